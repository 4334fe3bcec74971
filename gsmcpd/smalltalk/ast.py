"""
Syntax tree nodes for GemStone Smalltalk.

Nodes are immutable values.  Each has an C{offset}, the 0-based character
offset of its start in the source, and an C{end}, just past its last token
(a parenthesised expression's spans the inside), for reporting and for
rewriting by position; they take no part in equality, so trees that mean
the same thing compare equal wherever their text came from.  A send's and a
method pattern's C{parts} are the offsets of its selector's keywords (or its
one word), where a rename edits the text.
"""

from __future__ import annotations

from typing import Any

import attrs

LITERAL_KINDS = frozenset(
    {
        "integer",
        "float",
        "scaled",
        "string",
        "symbol",
        "character",
        "array",
        "bytearray",
        "nil",
        "true",
        "false",
    }
)


@attrs.frozen
class Node:
    """
    Base of every node, so that walkers can tell nodes from plain data.
    """

    offset: int = attrs.field(default=0, eq=False, kw_only=True)
    end: int = attrs.field(default=0, eq=False, kw_only=True)


Offsets = tuple[int, ...]
"""Where each keyword of a selector starts in the source."""


def _positions() -> Any:
    return attrs.field(default=(), eq=False, kw_only=True)


@attrs.frozen
class Literal(Node):
    """
    A constant: C{value} is a Python value whose type follows C{kind} (int,
    float, L{decimal.Decimal}, str, C{bytes}, a tuple of L{Literal} for
    arrays, or L{None}/L{True}/L{False}).
    """

    value: Any
    kind: str = attrs.field(validator=attrs.validators.in_(LITERAL_KINDS))


@attrs.frozen
class Variable(Node):
    """
    A reference to a variable, including C{self}, C{super} and
    C{thisContext}.
    """

    name: str


@attrs.frozen
class Assignment(Node):
    name: str
    value: Node


@attrs.frozen
class Message(Node):
    """
    One message send; C{selector} is the full selector (C{'at:put:'}).
    """

    receiver: Node
    selector: str
    args: tuple[Node, ...]
    parts: Offsets = _positions()


@attrs.frozen
class Cascade(Node):
    """
    Several messages to one receiver; C{messages} holds C{(selector, args)}
    pairs in source order.
    """

    receiver: Node
    messages: tuple[tuple[str, tuple[Node, ...]], ...]
    parts: tuple[Offsets, ...] = _positions()


@attrs.frozen
class Block(Node):
    params: tuple[str, ...]
    temps: tuple[str, ...]
    statements: tuple[Node, ...]


@attrs.frozen
class Return(Node):
    value: Node


@attrs.frozen
class BraceArray(Node):
    """
    C{{a. b}}: an Array built at run time from its expressions.
    """

    elements: tuple[Node, ...]


@attrs.frozen
class Sequence(Node):
    """
    The body of a doit, as compiled by GciTsExecute.
    """

    temps: tuple[str, ...]
    statements: tuple[Node, ...]


@attrs.frozen
class Method(Node):
    """
    A method definition; C{pragmas} holds C{(selector, args)} pairs whose
    args are L{Literal} nodes.
    """

    selector: str
    params: tuple[str, ...]
    pragmas: tuple[tuple[str, tuple[Literal, ...]], ...]
    temps: tuple[str, ...]
    statements: tuple[Node, ...]
    parts: Offsets = _positions()
    paramOffsets: Offsets = _positions()

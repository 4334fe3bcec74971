"""
Refactoring Browser patterns, matched against parse trees: C{`x} stands for
any variable, C{`@x} for any expression, C{`#x} for any literal; one name
used twice must match the same code both times.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import attrs

from .ast import Cascade, Literal, Message, Node, Variable
from .parser import SmalltalkSyntaxError, parse_expression
from .walk import iter_nodes

_METAVARIABLE = re.compile(r"`([@#.]*)([A-Za-z_][A-Za-z0-9_]*)")
_PREFIX = "_gsmcpPattern_"


@attrs.frozen
class Match:
    """Where a pattern matched: C{source[offset:end]}."""

    offset: int
    end: int


def compilePattern(pattern: str) -> Node:
    """
    The tree of C{pattern}, one expression, its metavariables as variables
    L{matches} recognises.

    @raise SmalltalkSyntaxError: if it is not one expression.
    """
    def placeholder(found: re.Match[str]) -> str:
        marks = found[1]
        kind = "any" if "@" in marks or "." in marks else \
            "literal" if "#" in marks else "variable"
        return f"{_PREFIX}{kind}_{found[2]}"

    tree = parse_expression(_METAVARIABLE.sub(placeholder, pattern))
    if len(tree.statements) != 1 or tree.temps:
        raise SmalltalkSyntaxError("a pattern is one expression", 0, 1)
    return tree.statements[0]


def selectorsOf(pattern: Node) -> list[str]:
    """The selectors a pattern sends, which any match sends too."""
    found = []
    for node in iter_nodes(pattern):
        if isinstance(node, Message):
            found.append(node.selector)
        elif isinstance(node, Cascade):
            found += [selector for selector, _ in node.messages]
    return found


def _matches(pattern: object, node: object, bound: dict[str, Node]) -> bool:
    if isinstance(pattern, Variable) and pattern.name.startswith(_PREFIX):
        kind, _, name = pattern.name[len(_PREFIX):].partition("_")
        if not isinstance(node, Node) or (kind == "literal" and not isinstance(
                node, Literal)) or (kind == "variable" and not isinstance(
                node, Variable)):
            return False
        if name in bound:
            return bound[name] == node
        bound[name] = node
        return True
    if isinstance(pattern, tuple):
        return isinstance(node, tuple) and len(pattern) == len(node) and all(
            _matches(p, n, bound) for p, n in zip(pattern, node, strict=True))
    if not isinstance(pattern, Node):
        return pattern == node
    if type(pattern) is not type(node):
        return False
    return all(_matches(getattr(pattern, f.name), getattr(node, f.name), bound)
               for f in attrs.fields(type(pattern)) if f.eq)


def _candidates(tree: Node) -> Iterator[tuple[Node, int, int]]:
    """Every node with its span; a cascade's messages also as sends."""
    for node in iter_nodes(tree):
        yield node, node.offset, node.end
        if isinstance(node, Cascade):
            for (selector, args), parts in zip(node.messages, node.parts,
                                               strict=True):
                end = args[-1].end if args else parts[-1] + len(selector)
                yield (Message(node.receiver, selector, args), node.offset,
                       end)


def matches(pattern: Node, tree: Node) -> list[Match]:
    """Where C{pattern} matches in C{tree}, in source order."""
    return sorted({Match(offset, end) for node, offset, end
                   in _candidates(tree) if _matches(pattern, node, {})},
                  key=lambda m: (m.offset, m.end))

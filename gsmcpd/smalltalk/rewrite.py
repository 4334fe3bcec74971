"""
Rewriting method sources by the parser's token positions: a rename edits
the selector's keywords where the parser found them, never text that merely
looks like them, so strings, comments and symbols are left alone (a symbol
naming the selector is reported, for a person to judge).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

import attrs

from .ast import (
    Assignment,
    Block,
    Cascade,
    Literal,
    Message,
    Method,
    Node,
    Return,
    Variable,
)
from .parser import parse_expression
from .walk import iter_nodes


@attrs.frozen
class Edit:
    """Replace C{source[start:end]} with C{text}."""

    start: int
    end: int
    text: str


@attrs.frozen
class Mention:
    """A symbol naming the selector, left unchanged, and why."""

    offset: int
    reason: str


class RewriteError(ValueError):
    """The rewrite cannot be done safely; the message says why."""


class SelectorMismatch(RewriteError):
    """The new selector does not fit the change asked for."""


def keywords(selector: str) -> list[str]:
    """C{at:put:} as C{['at:', 'put:']}; a unary or binary one alone."""
    if not selector.endswith(":"):
        return [selector]
    return re.findall(r"[^:]+:", selector)


def arity(selector: str) -> int:
    if selector.endswith(":"):
        return selector.count(":")
    return 0 if selector[:1].isalpha() or selector[:1] == "_" else 1


def applyEdits(source: str, edits: Iterable[Edit]) -> str:
    """C{source} with C{edits} (which must not overlap) made."""
    pieces, last = [], 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < last:
            raise RewriteError("two edits overlap")
        pieces += [source[last:edit.start], edit.text]
        last = edit.end
    return "".join([*pieces, source[last:]])


def sends(tree: Node) -> Iterator[tuple[Node, str, tuple[Node, ...], tuple[int, ...]]]:
    """Every send in C{tree}: the node, selector, arguments, keyword offsets."""
    for node in iter_nodes(tree):
        if isinstance(node, Message):
            yield node, node.selector, node.args, node.parts
        elif isinstance(node, Cascade):
            for (selector, args), parts in zip(node.messages, node.parts, strict=True):
                yield node, selector, args, parts


def _renamed(parts: Iterable[int], old: str, new: str) -> list[Edit]:
    return [Edit(at, at + len(was), now) for at, was, now
            in zip(parts, keywords(old), keywords(new), strict=True)]


def renameSelectorEdits(tree: Method, old: str, new: str,
                        pattern: bool = True,
                        renames: Callable[[Node], bool] = lambda node: True,
                        ) -> list[Edit]:
    """
    The edits renaming C{old} to C{new} (of the same kind and arity) in
    C{tree}'s pattern, if it defines C{old} and C{pattern} says so, and in
    each send of it that C{renames} (given the send's node) accepts.
    """
    if arity(old) != arity(new) or old.endswith(":") != new.endswith(":"):
        raise SelectorMismatch(f"{new} does not take the arguments {old} takes: "
                           f"add_parameter or remove_parameter changes those")
    edits = _renamed(tree.parts, old, new) \
        if pattern and tree.selector == old else []
    for node, selector, _, parts in sends(tree):
        if selector == old and renames(node):
            edits += _renamed(parts, old, new)
    return edits


def symbolMentions(tree: Node, selector: str) -> list[Mention]:
    """
    The symbols C{#selector} in C{tree}: a C{perform:} of it, or one in a
    literal array (or elsewhere), which a rename leaves as they are.
    """
    performed = {id(args[0]) for _, name, args, _ in sends(tree)
                 if name.startswith("perform:") and args}
    inArrays = {id(each) for node in iter_nodes(tree)
                if isinstance(node, Literal) and node.kind == "array"
                for each in iter_nodes(node) if each is not node}
    return [Mention(node.offset, "a symbol in a literal array"
                    if id(node) in inArrays else
                    "perform: of the literal symbol"
                    if id(node) in performed else "a literal symbol")
            for node in iter_nodes(tree)
            if isinstance(node, Literal) and node.kind == "symbol"
            and node.value == selector]


def variableEdits(tree: Method, name: str, new: str) -> list[Edit]:
    """
    The edits renaming the variable C{name} (a global or an instance
    variable) to C{new} wherever C{tree} refers to it; refused where a
    parameter or temporary of that name would hide it.
    """
    declared = {*tree.params, *tree.temps}
    for node in iter_nodes(tree):
        if isinstance(node, Block):
            declared.update(node.params, node.temps)
    if name in declared or new in declared:
        raise RewriteError(
            f"{tree.selector} declares a parameter or temporary named "
            f"{name if name in declared else new}")
    return [Edit(node.offset, node.offset + len(name), new)
            for node in iter_nodes(tree)
            if isinstance(node, (Variable, Assignment)) and node.name == name]


def _argument(default: str) -> str:
    """C{default} as an argument: parenthesised unless one primary."""
    statements = parse_expression(default).statements
    if len(statements) != 1:
        raise SelectorMismatch("the default must be one expression")
    plain = isinstance(statements[0], (Literal, Variable))
    return default.strip() if plain else f"({default.strip()})"


def _wrapped(source: str, node: Node) -> str:
    """A receiver's text, parenthesised where a send could bind it."""
    text = source[node.offset:node.end]
    return text if isinstance(node, (Literal, Variable)) or (
        isinstance(node, Message) and not node.args) else f"({text})"


def addParameterEdits(source: str, tree: Method, old: str, new: str,
                      default: str, parameter: str) -> list[Edit]:
    """
    The edits turning C{old} into C{new}, which has one keyword more at its
    end: the pattern takes C{parameter}, every send passes C{default}.
    """
    if not new.endswith(":") or arity(new) != arity(old) + 1 or (
            arity(old) == 1 and not old.endswith(":")):
        raise SelectorMismatch(f"{new} must be {old} with one keyword more at "
                           f"its end")
    last = keywords(new)[-1]
    argument = _argument(default)
    edits: list[Edit] = []
    if tree.selector == old:
        end = tree.paramOffsets[-1] + len(tree.params[-1]) \
            if tree.params else None
        edits += _extended(tree.parts, end, old, new, f"{last} {parameter}")
    free = _unbound(tree)
    for node, selector, args, parts in sends(tree):
        if selector == old:
            edits += _extended(parts, args[-1].end if args else None, old,
                               new, f"{last} {argument}")
            if not old.endswith(":") and isinstance(node, Message) and \
                    id(node) not in free:
                # A unary send become a keyword one would take what follows.
                edits += [Edit(node.offset, node.offset, "("),
                          Edit(node.end, node.end, ")")]
    return edits


def _unbound(tree: Node) -> set[int]:
    """The nodes no send takes as receiver or argument: statements, and
    what is returned or assigned."""
    free: set[int] = set()
    for node in iter_nodes(tree):
        if isinstance(node, (Method, Block)):
            free.update(id(each) for each in node.statements)
        elif isinstance(node, Assignment):
            free.add(id(node.value))
        elif isinstance(node, Return):
            free.add(id(node.value))
    return free


def _extended(parts: tuple[int, ...], end: int | None, old: str,
              new: str, added: str) -> list[Edit]:
    if end is None:  # a unary selector: its word becomes the keyword
        return [Edit(parts[0], parts[0] + len(old), added)]
    kept = "".join(keywords(new)[:-1])
    return [*_renamed(parts, old, kept), Edit(end, end, " " + added)]


def removeParameterEdits(source: str, tree: Method, old: str, new: str,
                         index: int) -> list[Edit]:
    """
    The edits turning C{old} into C{new}, without its C{index}th (1-based)
    keyword and argument; refused if C{tree} implements C{old} and uses
    that parameter.
    """
    count = arity(old)
    if not old.endswith(":") or not 1 <= index <= count or \
            arity(new) != count - 1 or (count > 1) != new.endswith(":"):
        raise SelectorMismatch(f"{new} must be {old} without its keyword "
                           f"number {index}")
    kept = [k for i, k in enumerate(keywords(old)) if i != index - 1]
    edits: list[Edit] = []
    if tree.selector == old:
        name = tree.params[index - 1]
        if any(isinstance(n, Variable) and n.name == name
               for n in iter_nodes(tree)):
            raise RewriteError(f"{tree.selector} uses its parameter {name}")
        ends = [at + len(p) for at, p in zip(tree.paramOffsets, tree.params,
                                                 strict=True)]
        edits += _dropped(source, tree.parts, ends, index, kept, new)
    for node, selector, args, parts in sends(tree):
        if selector == old:
            removed = args[index - 1]
            if not isinstance(removed, (Literal, Variable, Block)):
                # Only what evaluating has no effect of may go unevaluated.
                raise RewriteError(
                    f"a send of {old} passes "
                    f"{source[removed.offset:removed.end]} as the argument "
                    f"removed, and dropping it could drop a side effect")
            edits += _dropped(source, parts, [a.end for a in args], index,
                              kept, new)
            if count == 1 and isinstance(node, Message):
                receiver = node.receiver
                text = _wrapped(source, receiver)
                if text != source[receiver.offset:receiver.end]:
                    edits.append(Edit(receiver.offset, receiver.end, text))
    return edits


def _dropped(source: str, parts: tuple[int, ...], ends: list[int],
             index: int, kept: list[str], new: str) -> list[Edit]:
    if len(parts) == 1:
        return [Edit(parts[0], ends[0], new)]
    start, end = parts[index - 1], ends[index - 1]
    if index == 1:
        end = parts[1]  # up to the next keyword, the blanks between gone
    else:
        while source[start - 1] in " \t\r\n":
            start -= 1
    edits = [Edit(start, end, "")]
    remaining = [p for i, p in enumerate(parts) if i != index - 1]
    return edits + [Edit(at, at + len(was), now) for at, was, now
                    in zip(remaining, kept, keywords(new), strict=True)]

"""
C{rename_instance_variable}: an instance variable renamed in every method
of its class and its subclasses that names it, by the parser's token
positions, then the class redefined with the new name (a new version, as
GemStone changes a class's shape), each subclass redefined under its
superclass's new version, and their methods compiled into them as
rewritten.  Existing instances stay on the old versions.
"""

import difflib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs
from twisted.internet.defer import inlineCallbacks

from gsmcpd.smalltalk import (
    Assignment,
    Block,
    Method,
    Node,
    Sequence,
    SmalltalkSyntaxError,
    Variable,
    parse_method,
)
from gsmcpd.smalltalk.rewrite import Edit, applyEdits, symbolMentions
from gsmcpd.tools.arguments import JsonObject
from gsmcpd.tools.base import Steps, ToolCall, ToolError
from gsmcpd.tools.compiling import compileError, locatedErrors
from gsmcpd.tools.ledger import classKey
from gsmcpd.tools.previews import MethodChange, Preview, shelfOf

if TYPE_CHECKING:
    from gsmcpd.tools.mutation import MutationToolset

DEFAULT_CATEGORY = "as yet unclassified"


def refuseStale(value: JsonObject, className: str) -> None:
    """
    Refuse a rename whose template found C{className}'s methods changed
    since its preview (the blind-write rule): nothing of it was applied.
    """
    if value.get("stale"):
        raise ToolError("refused", f"{className}'s methods changed since the "
                        f"preview was made (one changed, or was added or "
                        f"removed)")


def _scoped(node: Node, hidden: frozenset[str]) -> Iterator[tuple[Node,
                                                                   frozenset[str]]]:
    """C{node} and those below it, each with the names declared around it."""
    if isinstance(node, (Method, Block, Sequence)):
        hidden = hidden | set(getattr(node, "params", ())) | set(node.temps)
    yield node, hidden
    for field in attrs.fields(type(node)):
        yield from _children(getattr(node, field.name), hidden)


def _children(value: Any, hidden: frozenset[str]) -> Iterator[tuple[
        Node, frozenset[str]]]:
    if isinstance(value, Node):
        yield from _scoped(value, hidden)
    elif isinstance(value, tuple):
        for item in value:
            yield from _children(item, hidden)


def instVarEdits(tree: Method, name: str, new: str) -> list[Edit | None]:
    """
    The edits renaming the instance variable C{name} to C{new} in C{tree}:
    its uses, each L{None} where a parameter or temporary of that name
    hides it.

    @raise ToolError: C{refused} when C{new} is declared in the method
        (the stone refuses a name the class already sees).
    """
    edits: list[Edit | None] = []
    for node, hidden in _scoped(tree, frozenset()):
        if new in hidden:
            raise ToolError("refused", f"{tree.selector} declares a parameter"
                            f" or temporary named {new}")
        if isinstance(node, (Variable, Assignment)) and node.name == name:
            edits.append(None if name in hidden else
                         Edit(node.offset, node.offset + len(name), new))
    return edits


@inlineCallbacks
def planRenameInstanceVariable(toolset: "MutationToolset", call: ToolCall,
                               arguments: JsonObject) -> Steps[Preview]:
    """
    A preview: the methods of the class and its subclasses (both sides:
    all are compiled into their new versions), the instance side's
    rewritten.
    """
    className, name = arguments["className"], arguments["name"]
    new = arguments["newName"]
    if name == new:
        raise ToolError("invalidParams", f"newName is {name} itself")
    checked = yield _checked(call, toolset.kernelClasses, className, name,
                             new, None)
    moved, unchanged, changed = [], [], 0
    for owner, meta, selector, category, source in checked["sources"]:
        after = source
        if not meta:
            try:
                tree = parse_method(source)
            except SmalltalkSyntaxError as e:
                raise ToolError("refused", f"{owner}>>{selector} does not "
                                f"parse here ({e}); nothing was previewed.")
            found = instVarEdits(tree, name, new)
            edits = [each for each in found if each is not None]
            changed += bool(edits)
            after = applyEdits(source, edits)
            reasons = [each.reason for each in symbolMentions(tree, name)]
            if None in found:
                reasons.append(f"a parameter or temporary named {name} "
                               f"hides the variable there")
            unchanged += [{"className": owner, "meta": False,
                           "selector": selector, "reason": reason}
                          for reason in reasons]
        moved.append(MethodChange(owner, meta, selector, selector, category,
                                  source, after))
    subclasses = checked["subclasses"]
    return Preview(
        shelfOf(call.ledger).newId(), "rename_instance_variable",
        f"Rename {className}'s instance variable {name} to {new} (a new "
        f"version of {', '.join([className, *subclasses])}; instances stay "
        f"on the old, not migrated)", (),
        tuple(unchanged), {"implementors": 0, "senders": 0,
                           "methods": changed, "classes": 1 + len(subclasses)},
        arguments, moved=tuple(moved), redefine=(className, name, new),
        shown=(_definitionChange(className, checked["definition"], name,
                                 new),))


def _definitionChange(className: str, definition: str, name: str,
                      new: str) -> JsonObject:
    """The class definition's change, as a change of the preview shows."""
    after = re.sub(r"instVarNames: #\([^)]*\)", lambda found: re.sub(
        rf"(?<![\w:]){re.escape(name)}(?!\w)", new, found.group(0)),
        definition, count=1)
    diff = "\n".join(difflib.unified_diff(
        definition.splitlines(), after.splitlines(), f"{className} definition",
        f"{className} definition", lineterm=""))
    return {"className": className, "meta": False, "selector": "",
            "newSelector": "", "diff": diff}


@inlineCallbacks
def redefined(toolset: "MutationToolset", call: ToolCall,
              preview: Preview) -> Steps[None]:
    """
    Redefine the preview's class with the instance variable renamed and
    compile its methods into the new version, or change nothing.
    """
    assert preview.redefine is not None
    className, name, new = preview.redefine
    yield _checked(call, toolset.kernelClasses, className, name, new, [
        [c.className, c.meta, c.selector, c.category or DEFAULT_CATEGORY,
         c.before, c.after] for c in preview.moved], preview)
    for change in preview.moved:
        call.ledger.recordRead(change.key, change.after)
    for each in dict.fromkeys([className, *(c.className
                                            for c in preview.moved)]):
        call.ledger.forget(classKey(each))
    call.journal.record("redefined", f"class {className}: instance variable "
                        f"{name} renamed {new}", className)


@inlineCallbacks
def _checked(call: ToolCall, kernelClasses: bool, className: str, name: str,
             new: str, methods: list[list[Any]] | None,
             preview: Preview | None = None) -> Steps[JsonObject]:
    """
    Run C{rename_instance_variable}: without C{methods}, only its checks
    (answering the class's definition).

    @raise ToolError: C{refused} with the stone's reason.
    """
    value = yield call.runTemplate("rename_instance_variable", {
        "className": className, "name": name, "newName": new,
        "kernelClasses": kernelClasses, "methods": methods})
    refuseStale(value, className)
    if value["failures"]:
        assert preview is not None
        failed = value["failures"][0]
        where = (failed["className"], failed["meta"], failed["selector"])
        source = next(c.after for c in preview.moved
                      if (c.className, c.meta, c.selector) == where)
        raise compileError(f"{failed['className']}>>{failed['selector']} did "
                           f"not compile as rewritten",
                           {"className": failed["className"]},
                           locatedErrors(source, failed["errors"]))
    return value

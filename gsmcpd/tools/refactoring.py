"""
The Refactoring toolset: renames and parameter changes an agent can trust,
previewed first, then applied all at once or not at all, and C{find_code},
a search by the code's structure.

The refactorings are computed here, with the project's own parser, from the
sources the stone gives (L{gsmcpd.smalltalk.rewrite}), and written back
through the mutation tools' guarded compile path, so the blind-write
guardrail holds as it does for C{compile_method}.  Served when named: the
default surface's byte budget has no room for it.
"""

import functools
from collections.abc import Callable, Iterable
from typing import Any

import attr
from twisted.internet.defer import Deferred, inlineCallbacks

from gsmcpd.smalltalk import (
    Method,
    Node,
    SmalltalkSyntaxError,
    Variable,
    iter_nodes,
    parse_expression,
    parse_method,
)
from gsmcpd.smalltalk.rewrite import (
    Edit,
    RewriteError,
    SelectorMismatch,
    addParameterEdits,
    applyEdits,
    keywords,
    removeParameterEdits,
    renameSelectorEdits,
    sends,
    symbolMentions,
    variableEdits,
)
from gsmcpd.tools import structure
from gsmcpd.tools.arguments import (
    BOOLEAN,
    IDENTIFIER,
    INTEGER,
    STRING,
    JsonObject,
    Schema,
    stringArgument,
)
from gsmcpd.tools.base import (
    OWN_SESSION,
    Steps,
    Tool,
    ToolCall,
    ToolError,
    ToolResult,
    annotations,
    closedSchema,
    counted,
    resultSchema,
)
from gsmcpd.tools.confirm import CONFIRM_OPTION, confirming
from gsmcpd.tools.journal import itemised
from gsmcpd.tools.mutation import MutationToolset
from gsmcpd.tools.previews import MAX_PREVIEWS, MethodChange, Preview, shelfOf
from gsmcpd.tools.refactorapply import applied, confirmRemovals
from gsmcpd.tools.renameivar import planRenameInstanceVariable
from gsmcpd.tools.structure import SCOPE, findCodeTool, scopeOf

APPLY = stringArgument("a previewId: apply exactly that preview")

Row = list[Any]
"""A method as refactoring_sources answers it: className, meta, selector,
category, source, inScope."""

REFACTORING_SCHEMA = resultSchema(
    previewId=STRING, applied=BOOLEAN,
    changes={"type": "array", "items": resultSchema(
        className=STRING, meta=BOOLEAN, selector=STRING, newSelector=STRING,
        diff=STRING)},
    counts=resultSchema(implementors=INTEGER, senders=INTEGER,
                        methods=INTEGER, classes=INTEGER),
    unchanged={"type": "array", "items": resultSchema(
        className=STRING, meta=BOOLEAN, selector=STRING, reason=STRING)})


Rewrite = Callable[[Row, Method, bool, Callable[[Node], bool]], list[Edit]]
"""The edits of one method: its row, its tree, whether it implements the
selector in scope, and which of its sends to change."""


def _freshName(tree: Method, name: str) -> str:
    """C{name}, or it numbered, so it hides nothing in C{tree}."""
    taken = {*tree.params, *tree.temps} | {
        each.name for each in iter_nodes(tree) if isinstance(each, Variable)}
    candidate, number = name, 1
    while candidate in taken:
        candidate, number = f"{name}{number}", number + 1
    return candidate


def _unchanged(row: Row, reason: str) -> JsonObject:
    return {"className": row[0], "meta": row[1], "selector": row[2],
            "reason": reason}


def _parsed(row: Row) -> Any:
    try:
        return parse_method(row[4])
    except SmalltalkSyntaxError as e:
        reason = str(e)
    except RecursionError:
        reason = "blocks or expressions nest too deeply to parse"
    raise ToolError("refused", f"{row[0]}>>{row[2]} does not parse here "
                    f"({reason}), so it cannot be rewritten safely")


def plainClass(definition: str) -> bool:
    """
    Whether a class, by its definition, is one rename_class renames: a
    plain C{subclass:} (the new version is one) with no class-instance
    variables (their values stay with the old class) and no options; the
    rename_class template checks the same.
    """
    lowered = definition.lower()
    return all(part in lowered for part in (
        " subclass: ", "classinstvars: #()", "options: #()"))


def _unique(rows: Iterable[Row]) -> list[Row]:
    seen: dict[tuple[str, bool, str], Row] = {}
    for row in rows:
        seen.setdefault((row[0], row[1], row[2]), row)
    return list(seen.values())


class RefactoringToolset(MutationToolset):
    """
    C{rename_selector}, C{rename_class}, C{rename_instance_variable},
    C{add_parameter},
    C{remove_parameter}, and C{find_code}.
    """

    name = "refactoring"
    title = "Refactoring"
    declaredOptionNames = ("kernelClasses", CONFIRM_OPTION)
    instructions = (
        "rename_selector, rename_class, rename_instance_variable, "
        "add_parameter and remove_parameter "
        "answer a preview and change nothing: diffs, counts, and what they "
        "leave unchanged and why. The same call with apply: <previewId> "
        "applies exactly it, all or nothing (refused if a method changed "
        f"since); a session keeps its last {MAX_PREVIEWS} previews. "
        "find_code matches Refactoring Browser patterns.")

    def tools(self) -> list[Tool]:
        return [*itemised([
            self._refactoring(
                "rename_selector", "Rename selector",
                "Rename a selector in its implementors and senders.",
                {"selector": stringArgument(), "newSelector": stringArgument(),
                 "scope": SCOPE}, self.planRenameSelector),
            self._refactoring(
                "rename_class", "Rename class",
                "Rename a class (a new version under the new name, its "
                "methods both sides) and its references in methods; "
                "refused if it has subclasses.",
                {"className": stringArgument(), "newName": stringArgument(
                    pattern=IDENTIFIER)}, self.planRenameClass),
            self._refactoring(
                "rename_instance_variable", "Rename instance variable",
                "Rename an instance variable: the class and each subclass "
                "redefined (new versions; instances are not migrated) and "
                "their methods.",
                {"className": stringArgument(), "name": stringArgument(),
                 "newName": stringArgument(pattern=IDENTIFIER)},
                functools.partial(planRenameInstanceVariable, self)),
            self._refactoring(
                "add_parameter", "Add parameter",
                "Add a keyword at the end of a selector; every sender "
                "passes default.",
                {"selector": stringArgument(), "newSelector": stringArgument(
                    "the selector with one keyword more at its end"),
                 "default": stringArgument("a Smalltalk expression")},
                self.planAddParameter),
            self._refactoring(
                "remove_parameter", "Remove parameter",
                "Remove a selector's index-th keyword and argument; refused "
                "if an implementor uses it.",
                {"selector": stringArgument(), "newSelector": stringArgument(),
                 "index": {"type": "integer", "minimum": 1}},
                self.planRemoveParameter),
        ]), findCodeTool()]

    def _refactoring(self, name: str, title: str, description: str,
                     properties: Schema,
                     plan: Callable[[ToolCall, JsonObject], Deferred[Preview]],
                     ) -> Tool:
        required = [key for key in properties if key != "scope"]

        @inlineCallbacks
        def run(call: ToolCall, arguments: JsonObject) -> Steps[ToolResult]:
            given = {k: v for k, v in arguments.items() if k != "apply"}
            if "apply" in arguments:
                result = yield self.applyPreview(call, name, given,
                                                 arguments["apply"])
                return result
            preview = yield plan(call, given)
            # Not a read for the blind-write guard: the client saw a diff,
            # and apply checks each method against the preview's own text.
            shelfOf(call.ledger).keep(preview)
            return previewResult(preview, applied=False)

        return Tool(name, title, description + " Without apply: a preview.",
                    closedSchema(dict(properties, apply=APPLY),
                                 required=required),
                    annotations(False, destructive=True), run,
                    REFACTORING_SCHEMA, streams=confirming(self),
                    runsOn=OWN_SESSION)

    @inlineCallbacks
    def applyPreview(self, call: ToolCall, tool: str, given: JsonObject,
                     previewId: str) -> Steps[ToolResult]:
        preview = shelfOf(call.ledger).take(previewId)
        if preview is None or preview.tool != tool:
            raise ToolError(
                "refused", f"No preview {previewId} of {tool} is kept in "
                f"this session (one is applied once; a session keeps its "
                f"last {MAX_PREVIEWS}): call {tool} without apply first.")
        if preview.arguments != given:
            raise ToolError(
                "refused", f"{previewId} was made with other arguments "
                f"({preview.arguments}); nothing was changed.")
        try:
            yield confirmRemovals(self, call, preview)
        except BaseException:
            # Asked (a 2026-era call comes back answered) or declined: kept.
            shelfOf(call.ledger).keep(preview)
            raise
        yield applied(self, call, preview)
        return previewResult(preview, applied=True)

    def planRenameSelector(self, call: ToolCall,
                           arguments: JsonObject) -> Deferred[Preview]:
        old, new = arguments["selector"], arguments["newSelector"]

        def rewrite(row: Row, tree: Method, implements: bool,
                    renames: Callable[[Node], bool]) -> list[Edit]:
            return renameSelectorEdits(tree, old, new, implements, renames)

        return self.planSelectorChange(call, "rename_selector", arguments,
                                       f"Rename {old} to {new}", rewrite)

    def planAddParameter(self, call: ToolCall,
                         arguments: JsonObject) -> Deferred[Preview]:
        old, new = arguments["selector"], arguments["newSelector"]
        default = arguments["default"]
        try:
            parse_expression(default)
        except SmalltalkSyntaxError as e:
            raise ToolError("invalidParams", f"default does not parse: {e}")

        def rewrite(row: Row, tree: Method, implements: bool,
                    renames: Callable[[Node], bool]) -> list[Edit]:
            return addParameterEdits(row[4], tree, old, new, default,
                                     _freshName(tree, keywords(new)[-1][:-1]))

        return self.planSelectorChange(
            call, "add_parameter", arguments,
            f"Add a parameter to {old} as {new}, senders passing {default}",
            rewrite)

    def planRemoveParameter(self, call: ToolCall,
                            arguments: JsonObject) -> Deferred[Preview]:
        old, new = arguments["selector"], arguments["newSelector"]
        index = arguments["index"]

        def rewrite(row: Row, tree: Method, implements: bool,
                    renames: Callable[[Node], bool]) -> list[Edit]:
            return removeParameterEdits(row[4], tree, old, new, index)

        return self.planSelectorChange(
            call, "remove_parameter", arguments,
            f"Remove parameter {index} of {old} as {new}", rewrite)

    @inlineCallbacks
    def planSelectorChange(self, call: ToolCall, tool: str,
                           arguments: JsonObject, summary: str,
                           rewrite: Rewrite) -> Steps[Preview]:
        """
        A preview of C{rewrite} made to the implementors of C{selector}
        (those in scope) and its senders; the symbols naming it, and sends
        a narrower scope cannot vouch for, listed as unchanged.
        """
        old, new = arguments["selector"], arguments["newSelector"]
        if old == new:
            raise ToolError("invalidParams", f"newSelector is {old} itself")
        kind, scopeName = scopeOf(arguments)
        value = yield call.runTemplate("refactoring_sources", {
            "selector": old, "newSelector": new, "global": None,
            "scopeKind": kind, "scopeName": scopeName, "mentions": True,
            "sendersOffset": 0, "sendersLimit": structure.SENDERS_READ})
        sending = list(value["senders"])
        while len(sending) < value["sendersTotal"]:
            # A window at a time, as find_code reads them: one answer could
            # not hold every sender of a common selector with its source.
            more = yield call.runTemplate("refactoring_sources", {
                "selector": old, "newSelector": None, "global": None,
                "scopeKind": kind, "scopeName": scopeName, "mentions": False,
                "sendersOffset": len(sending),
                "sendersLimit": structure.SENDERS_READ})
            if not more["senders"]:
                break
            sending += more["senders"]
        implementors = [row for row in value["implementors"] if row[5]]
        if not implementors:
            raise ToolError("notFound", f"No method implements {old} in "
                            f"the scope {arguments.get('scope', 'all')}.")
        classes = {(row[0], row[1]) for row in implementors}
        taken = [row for row in value["taken"]
                 if (row[0], row[1]) in classes]
        if taken:
            raise ToolError("refused", f"{taken[0][0]} already implements "
                            f"{new}: changing {old} would replace it.")
        if value["overrides"]:
            raise ToolError("refused", f"{', '.join(value['overrides'])} "
                            f"implements {new} above or below an implementor "
                            f"of {old}: the change would make or break an "
                            f"override.", {"overrides": value["overrides"]})
        changes, unchanged = [], []
        senders = 0
        for row in _unique([*implementors, *sending,
                            *value["mentions"]]):
            tree = _parsed(row)
            implements = row[2] == old and bool(row[5])
            renames = functools.partial(_renamesSend, kind == "all",
                                        bool(row[5]))
            try:
                edits = rewrite(row, tree, implements, renames)
            except SelectorMismatch as e:
                raise ToolError("invalidParams", str(e))
            except RewriteError as e:
                raise ToolError("refused", f"{row[0]}>>{row[2]}: {e}; "
                                f"nothing was previewed.")
            sent = [node for node, selector, _, _ in sends(tree)
                    if selector == old]
            if any(not renames(node) for node in sent):
                unchanged.append(_unchanged(
                    row, "a send whose receiver cannot be known: the "
                    "scope is narrower than the symbol list"))
            unchanged += [_unchanged(row, each.reason)
                          for each in symbolMentions(tree, old)]
            if edits:
                senders += any(renames(node) for node in sent)
                changes.append(MethodChange(
                    row[0], row[1], row[2], new if implements else row[2],
                    row[3], row[4], applyEdits(row[4], edits)))
        return self._preview(call, tool, arguments, summary, changes,
                             unchanged, len(implementors), senders)

    @inlineCallbacks
    def planRenameClass(self, call: ToolCall,
                        arguments: JsonObject) -> Steps[Preview]:
        old, new = arguments["className"], arguments["newName"]
        value = yield call.runTemplate("refactoring_sources", {
            "selector": None, "newSelector": None, "global": old,
            "scopeKind": "all", "scopeName": None, "mentions": False,
            "sendersOffset": 0, "sendersLimit": None})
        moved, changes, unchanged = [], [], []
        for row in _unique([*value["own"], *value["references"]]):
            tree = _parsed(row)
            try:
                edits = variableEdits(tree, old, new)
            except RewriteError as e:
                raise ToolError("refused", f"{row[0]}>>{row[2]}: {e}, so "
                                f"its references to {old} cannot be told "
                                f"apart; nothing was previewed.")
            unchanged += [_unchanged(row, each.reason)
                          for each in symbolMentions(tree, old)]
            after = applyEdits(row[4], edits)
            if row[0] == old:
                moved.append(MethodChange(row[0], row[1], row[2], row[2],
                                          row[3], row[4], after, new))
            elif edits:
                changes.append(MethodChange(row[0], row[1], row[2], row[2],
                                            row[3], row[4], after))
        unchanged += [{"className": old, "meta": False, "selector": "",
                       "reason": f"another binding of the class ({each}): "
                       f"apply is refused until it is removed"}
                      for each in value["aliases"]]
        if not plainClass(value["definition"]):
            unchanged.append({
                "className": old, "meta": False, "selector": "",
                "reason": "not a plain subclass: without class-instance "
                "variables or options (its definition follows): apply is "
                "refused, the renamed version would lose them\n"
                + value["definition"]})
        preview = self._preview(call, "rename_class", arguments,
                                f"Rename class {old} to {new}", changes,
                                unchanged, 0, len(changes), (old, new))
        return attr.evolve(preview, moved=tuple(moved), counts=dict(
            preview.counts, methods=len(moved) + len(changes),
            classes=1 + len({c.className for c in changes})))

    def _preview(self, call: ToolCall, tool: str, arguments: JsonObject,
                 summary: str, changes: list[MethodChange],
                 unchanged: list[JsonObject], implementors: int,
                 senders: int, renameClass: tuple[str, str] | None = None,
                 ) -> Preview:
        counts = {"implementors": implementors, "senders": senders,
                  "methods": len(changes),
                  "classes": len({c.className for c in changes})}
        return Preview(shelfOf(call.ledger).newId(), tool, summary,
                       tuple(changes), tuple(unchanged), counts, arguments,
                       renameClass)


def _renamesSend(everywhere: bool, inScope: bool, node: Any) -> bool:
    """
    Whether a rename changes a send: every one when its scope is the whole
    symbol list, else only one to self or super from a class in scope,
    whose class is known.
    """
    receiver = getattr(node, "receiver", None)
    return everywhere or inScope and isinstance(receiver, Variable) and \
        receiver.name in ("self", "super")


def previewResult(preview: Preview, applied: bool) -> ToolResult:
    """A preview, or what applying it changed, as the client reads it."""
    counts = preview.counts
    head = (f"{'Applied' if applied else 'Preview'} {preview.previewId}: "
            f"{preview.summary}: {counted(counts['methods'], 'method')} in "
            f"{counted(counts['classes'], 'class', 'classes')} "
            f"({counted(counts['implementors'], 'implementor')}, "
            f"{counted(counts['senders'], 'sender')})"
            + (", uncommitted." if applied else
               f"; apply: {preview.previewId} applies it."))
    everything = [c for c in (*preview.moved, *preview.changes)
                  if c.before != c.after or c.selector != c.newSelector
                  or c.newClassName]
    lines = [head, *(c["diff"] for c in preview.shown),
             *(c.diff() for c in everything)]
    lines += [f"unchanged: {u['className']}{' class' if u['meta'] else ''}"
              f">>{u['selector']}: {u['reason']}" for u in preview.unchanged]
    return ToolResult("\n".join(lines), {
        "previewId": preview.previewId, "applied": applied,
        "changes": [*preview.shown, *(c.described() for c in everything)],
        "counts": dict(counts), "unchanged": list(preview.unchanged)})

"""
The Changes toolset: what a session changed since its last commit or abort,
and undoing one method's change, read from the session's journal
(L{gsmcpd.tools.journal}), which lives in the daemon.

An abort drops every change at once; C{list_changes} is how a client learns
what it would redo, and C{revert_method} takes back one method's edit
alone.  The list is what gsmcpd's tools did: code the client ran may have
changed more, and the answer says so rather than look complete.  Served
when named: the default surface's 28 KB in the 2026 era has no room for it.
"""





from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import (
    BOOLEAN,
    META,
    OPTIONAL_STRING,
    STRING,
    JsonObject,
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
from gsmcpd.tools.compiling import compileError, locatedErrors, methodName
from gsmcpd.tools.journal import Change, itemised
from gsmcpd.tools.ledger import methodKey
from gsmcpd.tools.mutation import MutationToolset

CHANGE_SCHEMA = resultSchema(what=STRING, subject=STRING,
                             previous=OPTIONAL_STRING)
"""One change: C{compiled}, C{deleted}, C{defined}, ... what it was done to,
and a method's source before it (null for a new method, or not a method)."""


class ChangesToolset(MutationToolset):
    """
    C{list_changes} and C{revert_method}; C{revert_method} passes the
    mutation tools' guardrail, and their C{kernelClasses} option says
    whether it may change a kernel class's method.
    """

    name = "changes"
    title = "Changes"
    declaredOptionNames = ("kernelClasses",)
    instructions = ("list_changes shows your uncommitted changes before an "
                    "abort drops them; revert_method undoes one method's.")

    def tools(self) -> list[Tool]:
        return itemised([
            Tool("list_changes", "List changes",
                 "Your uncommitted changes by tool, a method's with its "
                 "previous source; notListed: what code may have changed.",
                 closedSchema(), annotations(True), listChanges,
                 resultSchema(
                     changes={"type": "array", "items": CHANGE_SCHEMA},
                     notListed={"type": "array", "items": STRING}),
                 runsOn=OWN_SESSION),
            Tool("revert_method", "Revert method",
                 "Undo your uncommitted edits of one method; a new one is "
                 "removed. Needs a read.",
                 closedSchema({"className": stringArgument(),
                               "selector": stringArgument(), "meta": META},
                              required=["className", "selector"]),
                 annotations(False, destructive=True), self.revertMethod,
                 resultSchema(removed=BOOLEAN),
                 runsOn=OWN_SESSION),
        ])

    @inlineCallbacks
    def revertMethod(self, call: ToolCall,
                     arguments: JsonObject) -> Steps[ToolResult]:
        className, selector = arguments["className"], arguments["selector"]
        meta = arguments.get("meta", False)
        key = methodKey(className, selector, meta)
        named = methodName(className, selector, meta)
        first = call.journal.firstChangeOf(key)
        if first is None:
            raise ToolError(
                "refused", f"This session has not changed {named} through "
                f"these tools since its last commit or abort, so there is "
                f"nothing to revert (list_changes lists what it changed; "
                f"abort discards every change).")
        absent = [each for each in call.journal
                  if each.method == key][-1].what in ("deleted", "dropped")
        subject = {"className": className, "meta": meta, "selector": selector}
        if first.previous is None and not absent:
            yield self.guarded(call, "delete_method", subject, key,
                               "get_method_source")
            call.ledger.forget(key)
        elif first.previous is not None:
            value = yield self.guarded(
                call, "compile_method", dict(
                    subject, source=first.previous, category=first.category,
                    replaces=None),
                key, "get_method_source")
            if "compileErrors" in value:
                raise compileError(
                    f"The previous source of {named} no longer compiles",
                    subject, locatedErrors(first.previous,
                                           value["compileErrors"]))
            call.ledger.recordRead(key, value["source"])
        call.journal.reverted(key, named, className)
        removed = first.previous is None
        return ToolResult(
            f"Reverted {named}: " + ("removed (it was new)." if removed else
                                     "its previous source is back."),
            {"removed": removed})


@inlineCallbacks
def listChanges(call: ToolCall, arguments: JsonObject) -> Steps[ToolResult]:
    # Any template tells whether the stone holds uncommitted changes.
    yield call.runTemplate("status", {})
    changes = list(call.journal)
    notListed = [f"what {name} changed, if anything"
                 for name in call.journal.unlisted]
    if call.needsCommit and not changes and not notListed:
        notListed.append("the session holds uncommitted changes that none "
                         "of these tools made")
    if not call.needsCommit and changes:
        notListed.append("the stone holds no uncommitted change: code "
                         "committed or aborted these")
    lines = [f"{each.what} {each.subject}{_previously(each)}"
             for each in changes]
    head = (f"{counted(len(changes), 'change')} since your last commit or "
            f"abort" + (":" if changes else "."))
    text = "\n".join([head, *lines, *(f"not listed: {each}"
                                      for each in notListed)])
    return ToolResult(text, {
        "changes": [{"what": each.what, "subject": each.subject,
                     "previous": each.previous} for each in changes],
        "notListed": notListed})


def _previously(change: Change) -> str:
    if change.method is None:
        return ""
    if change.previous is None:
        return " (new: revert_method removes it)"
    return " (revert_method restores its previous source)"

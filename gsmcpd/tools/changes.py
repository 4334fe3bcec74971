"""
What a session changed since its last commit or abort, and undoing one
method's change: served with the mutation tools, read from the session's
journal (L{gsmcpd.tools.journal}), which lives in the daemon.

An abort drops every change at once; C{list_changes} is how a client learns
what it would redo, and C{revert_method} takes back one method's edit
alone.  The list is what gsmcpd's tools did: code the client ran may have
changed more, and the answer says so rather than look complete.
"""

import attr
from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import (
    BOOLEAN, META, OPTIONAL_STRING, STRING, stringArgument)
from gsmcpd.tools.base import (
    OWN_SESSION, Tool, ToolError, ToolResult, annotations, closedSchema,
    counted, resultSchema)
from gsmcpd.tools.compiling import compileError, locatedErrors, methodName
from gsmcpd.tools.ledger import methodKey

CHANGE_SCHEMA = resultSchema(what=STRING, subject=STRING,
                             previousSource=OPTIONAL_STRING)
"""One change: C{compiled}, C{deleted}, C{defined}, ... what it was done to,
and a method's source before it (null for a new method, or not a method)."""


def itemised(tools):
    """
    C{tools}, declared as tools whose every change the journal lists (or
    that change nothing), so their calls never make the list incomplete.
    """
    return [attr.evolve(each, listsChanges=True) for each in tools]


def changeTools(mutation):
    """
    C{list_changes} and C{revert_method}, for the
    L{gsmcpd.tools.mutation.MutationToolset} C{mutation}, whose guardrail
    C{revert_method} passes.
    """
    return [
        Tool("list_changes", "List changes",
             "Your uncommitted changes made by these tools (a method's "
             "with its previous source), and whether code you ran may have "
             "changed more: what an abort would drop.",
             closedSchema(), annotations(True), listChanges,
             resultSchema(changes={"type": "array", "items": CHANGE_SCHEMA},
                          complete=BOOLEAN,
                          notListed={"type": "array", "items": STRING}),
             runsOn=OWN_SESSION),
        Tool("revert_method", "Revert method",
             "Undo your uncommitted edits of one method (a new one is "
             "removed); needs a read, as compile_method does.",
             closedSchema({"className": stringArgument(),
                           "selector": stringArgument(), "meta": META},
                          required=["className", "selector"]),
             annotations(False, destructive=True),
             lambda call, arguments: revertMethod(mutation, call, arguments),
             resultSchema(removed=BOOLEAN, source=OPTIONAL_STRING),
             runsOn=OWN_SESSION),
    ]


@inlineCallbacks
def listChanges(call, arguments):
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
                     "previousSource": each.previous} for each in changes],
        "complete": not notListed, "notListed": notListed})


def _previously(change):
    if change.method is None:
        return ""
    if change.previous is None:
        return " (new: revert_method removes it)"
    return " (revert_method restores its previous source)"


@inlineCallbacks
def revertMethod(mutation, call, arguments):
    className, selector = arguments["className"], arguments["selector"]
    meta = arguments.get("meta", False)
    key = methodKey(className, selector, meta)
    named = methodName(className, selector, meta)
    first = call.journal.firstChangeOf(key)
    if first is None:
        raise ToolError(
            "refused", f"This session has not changed {named} through "
            f"these tools since its last commit or abort, so there is "
            f"nothing to revert (list_changes lists what it changed; abort "
            f"discards every change).")
    absent = [each for each in call.journal
              if each.method == key][-1].what in ("deleted", "dropped")
    if first.previous is None and not absent:
        yield mutation.guarded(
            call, "delete_method",
            {"className": className, "meta": meta, "selector": selector},
            key, "get_method_source")
        call.ledger.forget(key)
    elif first.previous is not None:
        value = yield mutation.guarded(
            call, "compile_method", {
                "className": className, "meta": meta, "selector": selector,
                "source": first.previous, "category": first.category},
            key, "get_method_source")
        if "compileErrors" in value:
            raise compileError(
                f"The previous source of {named} no longer compiles",
                {"className": className, "meta": meta, "selector": selector},
                locatedErrors(first.previous, value["compileErrors"]))
        call.ledger.recordRead(key, value["source"])
    call.journal.reverted(key, named, className)
    removed = first.previous is None
    return ToolResult(
        f"Reverted {named}: " + ("removed (it was new)." if removed else
                                 "its previous source is back."),
        {"removed": removed, "source": first.previous})

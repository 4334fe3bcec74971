"""
The Session toolset: the client's transaction, moved only by the client.

No other tool commits, aborts or refreshes: the view is the only record the
stone keeps of what this client has seen, so moving it behind the client's
back would turn a refused stale write into a silent overwrite.  (Code a
tool runs may: the envelope asks the stone whether the view moved, and the
call says so and is recorded as a commit when a commit moved it.)
"""





from twisted.internet.defer import inlineCallbacks

from gsmcpd.gci.interfaces import IDebugSession
from gsmcpd.tools.arguments import BOOLEAN, INTEGER, STRING, JsonObject
from gsmcpd.tools.base import (
    OWN_SESSION,
    Steps,
    Tool,
    ToolCall,
    ToolError,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    counted,
    resultSchema,
)
from gsmcpd.tools.confirm import CONFIRM_OPTION, commitQuestion, confirmedIf, confirming
from gsmcpd.tools.journal import itemised

LAST_COMMIT = {"type": ["object", "null"], "properties": {
    "outcome": STRING, "at": STRING,
    "changes": {"type": "array", "items": STRING}}}
"""How the session's last commit ended (committed, conflict, failed, or
unknown: ended before the stone answered), when, and what it committed."""
UNCOMMITTED_LOST = ("yes (lost when this session ends: closed, idle, or a "
                    "server restart; commit what you mean to keep)")


class SessionToolset(Toolset):
    name = "session"
    title = "Session and transaction"
    instructions = (
        "Only commit, abort and refresh (or code sending them) move your "
        "view. "
        "While you hold uncommitted changes, a mutating tool's result ends "
        "with a [session] note. If a commit's answer was lost, call status "
        "before retrying.")
    declaredOptionNames = (CONFIRM_OPTION,)

    def tools(self) -> list[Tool]:
        return itemised([
            Tool("abort", "Abort",
                 "Discard every uncommitted change (code and data) and "
                 "move your view to the newest commit.",
                 closedSchema(), annotations(False, destructive=True,
                                             idempotent=True),
                 self.abort,
                 resultSchema(aborted=BOOLEAN),
                 runsOn=OWN_SESSION),
            Tool("commit", "Commit",
                 "Persist your uncommitted changes. It fails if another "
                 "session committed a change to a class or dictionary you "
                 "changed; abort to start again from the newest view.",
                 closedSchema(), annotations(False), self.commit,
                 resultSchema(committed=BOOLEAN),
                 streams=confirming(self),
                 runsOn=OWN_SESSION, cancellable=False),
            Tool("refresh", "Refresh view",
                 "Move your view to the newest commit, keeping uncommitted "
                 "changes.",
                 closedSchema(), annotations(False, idempotent=True),
                 self.refresh,
                 resultSchema(refreshed=BOOLEAN, writesCanCommit=BOOLEAN),
                 runsOn=OWN_SESSION),
            Tool("status", "Session status",
                 "Your GemStone session: user, number, stone, version, "
                 "transaction state and last commit.",
                 closedSchema(), annotations(True),
                 self.status,
                 resultSchema(user=STRING, session=INTEGER, stone=STRING,
                              version=STRING, inTransaction=BOOLEAN,
                              uncommittedChanges=BOOLEAN,
                              listedChanges=INTEGER,
                              lastCommit=LAST_COMMIT)),
        ])

    @inlineCallbacks
    def abort(self, call: ToolCall,
              arguments: JsonObject) -> Steps[ToolResult]:
        value = yield call.runTemplate("abort", {})
        call.transactionEnded(committed=False)
        return ToolResult(
            "Aborted: uncommitted changes discarded; the view is now the "
            "newest commit.", value)

    @inlineCallbacks
    def commit(self, call: ToolCall,
               arguments: JsonObject) -> Steps[ToolResult]:
        yield confirmedIf(self, call, commitQuestion(call.journal.summary),
                          "commit")
        value = yield call.runTemplate("commit", {})
        if not value["committed"]:
            conflicts = value["conflicts"]
            detail = "; ".join(f"{kind}: {_listed(objects)}"
                               for kind, objects in sorted(conflicts.items()))
            raise ToolError(
                "refused", "Commit failed: another session committed a "
                "conflicting change" + (f" ({detail})" if detail else "")
                + ". Nothing was committed and your changes are still "
                "uncommitted. GemStone detects conflicts per class, not "
                "per method: a commit by anyone else to a class you "
                "changed (any of its methods, its definition or its "
                "comment) since your view refuses yours, so two people "
                "editing one class must take turns. Abort discards your "
                "changes and moves to the newest view, where you can "
                "re-read what they changed and redo yours.",
                {"conflicts": conflicts})
        call.transactionEnded(committed=True)
        # A commit that succeeded had no conflicts to report.
        return ToolResult("Committed.", {"committed": True})

    @inlineCallbacks
    def refresh(self, call: ToolCall,
                arguments: JsonObject) -> Steps[ToolResult]:
        value = yield call.runTemplate("refresh", {})
        call.transactionEnded(committed=False)
        kept = ("uncommitted changes are kept" if value["writesCanCommit"]
                else "uncommitted changes are kept but can no longer commit: "
                "another session committed a change to a class (any of its "
                "methods) or dictionary you changed since your old view; "
                "abort discards them, then redo the change")
        return ToolResult(
            f"Refreshed: the view is now the newest commit; {kept}. Re-read "
            "anything you are about to change.", value)

    @inlineCallbacks
    def status(self, call: ToolCall,
               arguments: JsonObject) -> Steps[ToolResult]:
        value = yield call.runTemplate("status", {})
        last = call.lastCommit
        state = dict(value, uncommittedChanges=call.needsCommit,
                     listedChanges=len(call.journal),
                     lastCommit=None if last is None else last.described())
        text = (f"user: {state['user']}\nsession: {state['session']}\n"
                f"stone: {state['stone']}\nversion: {state['version']}\n"
                f"uncommitted changes: "
                f"{UNCOMMITTED_LOST if call.needsCommit else 'no'}\n"
                f"changes listed: {len(call.journal)}\n"
                f"last commit: {_lastCommit(state['lastCommit'])}")
        debuggable = IDebugSession(call.gem, None)
        if debuggable is not None and debuggable.paused:
            # The debugger's runs hold the session's gem (debug_list).
            text += f"\npaused debugged runs: {len(debuggable.paused)}"
        return ToolResult(text, state)


def _lastCommit(last: JsonObject | None) -> str:
    """
    A session's last commit as C{status} reads it.
    """
    if last is None:
        return "none in this session"
    changes = "; ".join(last["changes"]) or "no changes"
    described = f"{last['outcome']} at {last['at']} ({changes})"
    if last["outcome"] == "unknown":
        described += (": the stone did not say whether it committed (it "
                      "was ended before the stone answered, or code moved "
                      "the view by a commit or an abort), so it may have; "
                      "refresh and re-read what it changed before "
                      "committing again")
    return described


def _listed(conflict: JsonObject) -> str:
    """
    One kind of conflict as the commit template counts it: how many
    objects, and the classes (a class side as C{Foo class}) and methods
    among them by name.
    """
    named = ", ".join(conflict["names"])
    count = conflict["count"]
    objects = counted(count, "object")
    return f"{objects} ({named})" if named else objects

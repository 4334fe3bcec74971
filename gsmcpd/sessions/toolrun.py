"""
A tool run (by L{gsmcpd.tools.invocation}, the tools layer's one entry) on
the work session its call was placed in: its answer (or its failure as a
tool) becomes the call's result, with the session's notes
and, in C{_meta}, whether its code committed, aborted or left a change,
which the call's record reads; its end is kept in the session's journal.
"""

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred

from gsmcpd.observe.calloutcome import CHANGED_META, COMMITTED_META, DISCARDED_META
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.notes import VIEW_TOOLS, sessionNotes
from gsmcpd.tools.base import JsonObject, Tool
from gsmcpd.tools.context import ICallContext
from gsmcpd.tools.invocation import ToolRan, invoke


def runTool(work: IWorkSession | None, tool: Tool, arguments: Any,
            context: ICallContext, describe: Callable[[Tool], JsonObject]
            ) -> Any:
    """
    Run C{tool} with C{arguments} in C{work} (L{None}: in none): a
    L{Deferred} of, or the result of, the call.

    @param describe: how its era lists a tool (C{tool_call} names some).
    """
    ran = invoke(tool, arguments, None, None, context, None, None,
                 describe) if work is None else invoke(
        tool, arguments, work.gem, work.ledger, context, work.journal,
        work.lastCommit, describe)
    if isinstance(ran, Deferred):
        return ran.addCallback(_rendered, work, tool)
    return _rendered(ran, work, tool)


def _rendered(ran: ToolRan, work: IWorkSession | None, tool: Tool
              ) -> JsonObject:
    """
    A tool's run as the call's result: its notes after its answer, and in
    C{_meta} whether its code committed, aborted or left a change.
    """
    call = ran.call
    notices: list[str] = []
    grew = False
    if work is not None:
        grew = bool(call.needsCommit) and not work.journal.needsCommit
        notices = work.toolEnded(tool, call.needsCommit, ran.broken)
    result = ran.answer.asResult(
        [f"[warning] {each}" for each in call.warnings]
        + sessionNotes(tool, call.needsCommit, work, call.moved)
        + notices)
    if call.moved.moved and tool.name not in VIEW_TOOLS:
        if call.moved.committed is not False:
            result["_meta"] = {COMMITTED_META: call.moved.committed}
        elif call.needsCommit is False:
            result["_meta"] = {DISCARDED_META: True}
    elif grew:
        result["_meta"] = {CHANGED_META: True}
    return result

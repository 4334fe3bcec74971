"""
A tool run (by L{gsmcpd.tools.invocation}, the tools layer's one entry) on
the work session its call was placed in: its result (its answer, or its
failure as a tool, kept in the session's journal by the tools layer)
with the session's notes added as text blocks and, in C{_meta}, whether
its code committed, aborted or left a change, which the call's record
reads.
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
        return ran.addCallback(_noted, work, tool)
    return _noted(ran, work, tool)


def _noted(ran: ToolRan, work: IWorkSession | None, tool: Tool
           ) -> JsonObject:
    """
    A tool's run as the call's result: the session's notes after its
    answer (data added to its content, the answer rendered once by the
    tools layer), and in C{_meta} whether its code committed, aborted or
    left a change.
    """
    call, result = ran.call, ran.result
    notes = sessionNotes(tool, call.needsCommit, work, call.moved)
    if work is not None:
        notes += work.takeNotices()
    result["content"].extend({"type": "text", "text": note} for note in notes)
    if call.moved.moved and tool.name not in VIEW_TOOLS:
        if call.moved.committed is not False:
            result["_meta"] = {COMMITTED_META: call.moved.committed}
        elif call.needsCommit is False:
            result["_meta"] = {DISCARDED_META: True}
    elif ran.grew:
        result["_meta"] = {CHANGED_META: True}
    return result

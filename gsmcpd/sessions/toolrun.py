"""
A tool run on the work session its call was placed in: its answer (or its
failure as a tool) becomes the call's result, with the session's notes
and, in C{_meta}, whether its code committed, aborted or left a change,
which the call's record reads; its end is kept in the session's journal.
"""

from collections.abc import Callable
from typing import Any, cast

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from gsmcpd.observe.calloutcome import CHANGED_META, COMMITTED_META, DISCARDED_META
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.notes import VIEW_TOOLS, sessionNotes
from gsmcpd.tools.base import JsonObject, Tool, ToolCall, ToolError, ToolResult
from gsmcpd.tools.context import ICallContext
from gsmcpd.tools.templates.outcomes import CallBroken


def objectArguments(arguments: Any) -> JsonObject:
    """
    A call's arguments, which must be an object (none: an empty one).

    @raise ToolError: C{invalidParams} for any other value (the 2026 era
        answers it as a protocol error before the call is placed).
    """
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise ToolError("invalidParams", "arguments must be an object")
    return arguments


def runTool(work: IWorkSession | None, tool: Tool, arguments: Any,
            context: ICallContext, describe: Callable[[Tool], JsonObject]
            ) -> Any:
    """
    Run C{tool} with C{arguments} in C{work} (L{None}: in none): a
    L{Deferred} of, or the result of, the call.

    @param describe: how its era lists a tool (C{tool_call} names some).
    """
    call = ToolCall(None, None, context, describe=describe) \
        if work is None else ToolCall(work.gem, work.ledger, context,
                                      work.journal, work.lastCommit, describe)

    def rendered(answer: ToolResult, broken: bool = False) -> JsonObject:
        notices: list[str] = []
        grew = False
        if work is not None:
            grew = bool(call.needsCommit) and not work.journal.needsCommit
            notices = work.toolEnded(tool, call.needsCommit, broken)
        result = answer.asResult(
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

    def failed(failure: Failure) -> JsonObject:
        failure.trap(ToolError, CallBroken)
        return rendered(_toolFailure(cast(ToolError, failure.value)),
                        failure.check(CallBroken) is not None)

    # Callbacks rather than a generator: this runs for every tool call.
    try:
        checked = objectArguments(arguments)
        tool.validate(checked)
        run: Any = tool.run
        answer = run(call, checked)
    except (ToolError, CallBroken) as e:
        return rendered(_toolFailure(e), isinstance(e, CallBroken))
    if isinstance(answer, Deferred):
        return answer.addCallbacks(rendered, failed)
    return rendered(answer)


def _toolFailure(error: ToolError | CallBroken) -> ToolResult:
    """
    A tool's L{ToolError}, or a broken GemStone call, as its result.
    """
    if isinstance(error, CallBroken):
        error = ToolError("other", str(error), {"number": error.number})
    return ToolResult.fromError(error)

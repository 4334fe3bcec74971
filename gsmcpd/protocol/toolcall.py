"""
C{tools/call}, once for both eras: the tool runs where its era placed it,
and its answer (or its failure as a tool) becomes the call's result, with
the server's notes and, in C{_meta}, whether its code committed, aborted
or left a change, which the call's record reads.
"""

from typing import Any, cast

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from gsmcpd.observe.calloutcome import CHANGED_META, COMMITTED_META, DISCARDED_META
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import (
    INVALID_PARAMS,
    JsonObject,
    JsonRpcError,
    progressTokenOf,
)
from gsmcpd.protocol.notes import VIEW_TOOLS, sessionNotes
from gsmcpd.tools.base import Tool, ToolCall, ToolError, ToolResult
from gsmcpd.tools.templates.outcomes import CallBroken


def unknownTool(params: JsonObject) -> JsonRpcError:
    """
    The error for a C{tools/call} that names no tool its caller may use.
    """
    name = params.get("name")
    if not isinstance(name, str):
        return JsonRpcError(INVALID_PARAMS,
                            "Invalid params: tools/call needs a tool name")
    return JsonRpcError(INVALID_PARAMS,
                        f"Invalid params: unknown tool {name!r}")


def answersAsStream(params: JsonObject, tool: Tool | None) -> bool:
    """
    Whether a C{tools/call} of C{tool} with C{params} may be answered as a
    stream, where the client accepts one: it asked for progress, or the
    tool sends the client messages while it runs.
    """
    return progressTokenOf(params) is not None or \
        getattr(tool, "streams", False)


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


def callTool(request: RequestFacts, tool: Tool) -> Any:
    """
    Run C{tool}, the one C{request} names: a L{Deferred} of, or the result
    of, the call.
    """
    work = request.work
    describe = request.dialect.describe
    call = ToolCall(None, None, request.context, describe=describe) \
        if work is None else ToolCall(work.gem, work.ledger, request.context,
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
        arguments = objectArguments(request.arguments)
        tool.validate(arguments)
        run: Any = tool.run
        answer = run(call, arguments)
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

"""
The one way the sessions layer runs a tool: its L{ToolCall} made, its
arguments checked, the tool run, and its end (a tool error or a broken
GemStone call as its answer) handed back as one L{ToolRan}.
"""

from collections.abc import Callable
from typing import Any, cast

import attr
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.tools.base import JsonObject, Tool, ToolCall, ToolError, ToolResult
from gsmcpd.tools.context import ICallContext
from gsmcpd.tools.journal import ChangeJournal, LastCommit
from gsmcpd.tools.ledger import ReadLedger
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


@attr.s(slots=True, auto_attribs=True)
class ToolRan:
    """
    A tool's run, over: its L{ToolCall} (what it left: C{needsCommit},
    C{moved}, C{warnings}), its answer, and whether its GemStone call was
    broken off.
    """

    call: ToolCall
    answer: ToolResult
    broken: bool = False


def invoke(tool: Tool, arguments: Any, gem: IGemSession | None,
           ledger: ReadLedger | None, context: ICallContext,
           journal: ChangeJournal | None, lastCommit: LastCommit | None,
           describe: Callable[[Tool], JsonObject]
           ) -> "ToolRan | Deferred[ToolRan]":
    """
    Run C{tool} with C{arguments} on C{gem} (L{None}: on none): a
    L{ToolRan}, or a L{Deferred} of one; a tool error or a broken call is
    its answer, any other failure a bug that fails it.
    """
    call = ToolCall(gem, ledger, context, journal, lastCommit, describe)

    def failed(failure: Failure) -> ToolRan:
        error = failure.trap(ToolError, CallBroken)
        return _ended(call, cast(ToolError | CallBroken, failure.value),
                      error is CallBroken)

    # Callbacks rather than a generator: this runs for every tool call.
    try:
        checked = objectArguments(arguments)
        tool.validate(checked)
        run: Any = tool.run
        answer = run(call, checked)
    except (ToolError, CallBroken) as e:
        return _ended(call, e, isinstance(e, CallBroken))
    if isinstance(answer, Deferred):
        return answer.addCallbacks(lambda value: ToolRan(call, value), failed)
    return ToolRan(call, answer)


def _ended(call: ToolCall, error: ToolError | CallBroken, broken: bool
           ) -> ToolRan:
    """
    A tool's L{ToolError}, or a broken GemStone call, as its answer.
    """
    if isinstance(error, CallBroken):
        error = ToolError("other", str(error), {"number": error.number})
    return ToolRan(call, ToolResult.fromError(error), broken)

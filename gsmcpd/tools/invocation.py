"""
The one way the sessions layer runs a tool: its L{ToolCall} made, its
arguments checked, the tool run, its end (a tool error or a broken
GemStone call as its answer) kept in its session's journal, and handed
back as one L{ToolRan}, its answer already a C{tools/call} result.

The journal entry is made here, where the tool, its call and the journal
all are, rather than by the work session after the run: the tools layer
writes the journal and the sessions layer only adds its notes to the
result, so a tool's run goes down from sessions into tools once.
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

NOT_AN_OBJECT = "arguments must be an object"
"""What a call whose arguments are not an object is told (the 2026 era
says it as a protocol error, before the call is placed)."""


def objectArguments(arguments: Any) -> JsonObject:
    """
    A call's arguments, which must be an object (none: an empty one).

    @raise ToolError: C{invalidParams} for any other value.
    """
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise ToolError("invalidParams", NOT_AN_OBJECT)
    return arguments


@attr.s(slots=True, auto_attribs=True)
class ToolRan:
    """
    A tool's run, over: its L{ToolCall} (what it left: C{needsCommit},
    C{moved}), its answer as a C{tools/call} result (the resumed Warnings'
    notes after it), whether its GemStone call was broken off, and whether
    it left its session needing a commit that did not before.
    """

    call: ToolCall
    result: JsonObject
    broken: bool = False
    grew: bool = False


def invoke(tool: Tool, arguments: Any, gem: IGemSession | None,
           ledger: ReadLedger | None, context: ICallContext,
           journal: ChangeJournal | None, lastCommit: LastCommit | None,
           describe: Callable[[Tool], JsonObject]
           ) -> "ToolRan | Deferred[ToolRan]":
    """
    Run C{tool} with C{arguments} on C{gem} (L{None}: on none), its end
    kept in C{journal} (L{None}: no session's): a L{ToolRan}, or a
    L{Deferred} of one; a tool error or a broken call is its answer, any
    other failure a bug that fails it.
    """
    call = ToolCall(gem, ledger, context, journal, lastCommit, describe)

    def answered(answer: ToolResult) -> ToolRan:
        return _ran(tool, call, journal, answer)

    def failed(failure: Failure) -> ToolRan:
        failure.trap(ToolError, CallBroken)
        return _ended(tool, call, journal,
                      cast(ToolError | CallBroken, failure.value))

    # Callbacks rather than a generator: this runs for every tool call.
    try:
        checked = objectArguments(arguments)
        tool.validate(checked)
        run: Any = tool.run
        answer = run(call, checked)
    except (ToolError, CallBroken) as e:
        return _ended(tool, call, journal, e)
    if isinstance(answer, Deferred):
        return answer.addCallbacks(answered, failed)
    return _ran(tool, call, journal, answer)


def _ended(tool: Tool, call: ToolCall, journal: ChangeJournal | None,
           error: ToolError | CallBroken) -> ToolRan:
    """
    A tool's L{ToolError}, or a broken GemStone call, as its answer.
    """
    if isinstance(error, CallBroken):
        return _ran(tool, call, journal, ToolResult.fromError(ToolError(
            "other", str(error), {"number": error.number})), True)
    return _ran(tool, call, journal, ToolResult.fromError(error))


def _ran(tool: Tool, call: ToolCall, journal: ChangeJournal | None,
         answer: ToolResult, broken: bool = False) -> ToolRan:
    """
    The run's end, kept in C{journal} (whether the session grew a change
    to commit is read before), its answer rendered once, here.
    """
    grew = False
    if journal is not None:
        grew = bool(call.needsCommit) and not journal.needsCommit
        journal.callEnded(tool, call.needsCommit, broken)
    return ToolRan(call, answer.asResult(
        [f"[warning] {each}" for each in call.warnings]), broken, grew)

"""
A tool call's record, in either era: its audit line written before it runs
(or it does not run: started by the sessions layer once the call is
admitted, L{CallRecords.starting}), counted and audited once really over,
whoever still waited, so a commit the stone made is committed everywhere.  A
L{gsmcpd.observe.audit.CallRefused} is recorded as C{refused:<kind>}.
"""

from typing import Any, cast

import attr
from twisted.internet.defer import CancelledError
from twisted.python.failure import Failure

from gsmcpd.observe.audit import AuditUnavailable, CallFacts, CallRefused, changeOf
from gsmcpd.observe.calloutcome import (
    ASKED,
    COMMIT_TOOL,
    ERROR,
    NO_ANSWER,
    CallOutcome,
)
from gsmcpd.observe.metrics import UNOBSERVED
from gsmcpd.observe.observed import CallObserver, CallStart, ObservedCall
from gsmcpd.protocol import kinds
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import INTERNAL_ERROR, SERVER_ERROR, JsonRpcError
from gsmcpd.sessions.running import CANCELLED
from gsmcpd.tools.base import ToolError, ToolResult
from gsmcpd.tools.questions import InputRequired


def auditRefusal() -> CallRefused:
    """
    A call refused because its audit line cannot be written: its client is
    told what it can do, not which file failed (the log says).
    """
    return CallRefused(kinds.AUDIT_UNAVAILABLE, JsonRpcError(
        SERVER_ERROR, "This server cannot write its audit trail, so it runs "
        "no tool call until an operator mends it; nothing was run. Try "
        "again later, or use another server.",
        {"kind": kinds.AUDIT_UNAVAILABLE}))


def changesOf(request: RequestFacts) -> tuple[str, ...]:
    """
    What a commit, a tool's or its code's, would commit as C{request}'s
    call starts: its work session's journal then.
    """
    work = request.work
    return work.journal.summary \
        if request.tool is not None and work is not None else ()


def unrefused(outcome: Any) -> Any:
    """
    What a refused call's client is told: its tool error as the result, or
    its JSON-RPC error as a L{Failure} (any other C{outcome} as it is).
    """
    if not (isinstance(outcome, Failure) and outcome.check(CallRefused)):
        return outcome
    error = cast(CallRefused, outcome.value).error
    if isinstance(error, JsonRpcError):
        return Failure(error)
    return ToolResult.fromError(cast(ToolError, error)).asResult()


def outcomeOf(outcome: Any) -> CallOutcome | dict[str, Any]:
    """
    What a call came to, typed, from its value or its L{Failure}; any
    failure not a JSON-RPC error, a question or a cancellation is the
    internal error the transport answers for a bug.  A result is answered
    as it is: its record reads it (L{ObservedCall.ended}).
    """
    if isinstance(outcome, Failure):
        error = outcome.value
        if isinstance(error, JsonRpcError):
            data = error.data
            kind = data.get("kind") if isinstance(data, dict) else None
            return CallOutcome(ERROR, kind or "jsonrpc", error.code)
        if isinstance(error, InputRequired):
            return ASKED
        if isinstance(error, CancelledError):
            return NO_ANSWER
        return CallOutcome(ERROR, "jsonrpc", INTERNAL_ERROR)
    if outcome is CANCELLED or outcome is None:
        return NO_ANSWER
    return cast(dict[str, Any], outcome)


class CallRecords:
    """
    Where tool calls are counted and audited (C{audit}: the
    L{gsmcpd.observe.audit.AuditLog}, or L{None}: nothing refused for it).
    """

    def __init__(self, clock: Any, audit: Any = None,
                 metrics: Any = UNOBSERVED) -> None:
        self.clock = clock
        self.audit = audit
        self._observer = CallObserver(clock, audit, metrics)

    def admit(self) -> None:
        """
        Raise L{CallRefused} (C{auditUnavailable}) while the audit trail
        cannot be written, before anything is done for a call.
        """
        if self.audit is not None and self.audit.failure is not None:
            raise auditRefusal()

    def _facts(self, request: RequestFacts | None) -> CallFacts | None:
        """A tool call's facts, when there is a trail to write them to."""
        if self.audit is None or request is None or \
                request.method != "tools/call":
            return None
        principal, work = request.principal, request.work
        handle = None if work is None else work.handle
        return CallFacts(
            tool=request.params.get("name"), arguments=request.arguments,
            identity=None if principal is None else principal.identity,
            user=None if principal is None else principal.user,
            session=None if handle is None else handle[:8], handle=handle,
            requestId=request.id)

    def starting(self, request: RequestFacts) -> CallStart:
        """
        How C{request}'s call is observed from its start: counted in, a
        tool call's audit line written first.
        """
        tool = request.tool
        # Only a method's call is recorded: it has a method.
        name = cast(str, request.method) if tool is None else tool.name
        return CallStart(self._observer, name, self._facts(request),
                         request.work is None)

    def started(self, request: RequestFacts) -> "CallRecord":
        """
        A call answered here about to be, started (L{starting}): if its
        audit line cannot be written, L{CallRefused} (it must not be).
        """
        try:
            observed = self.starting(request).started()
        except AuditUnavailable:
            raise auditRefusal()
        return CallRecord(self, request, observed, changesOf(request))

    def refused(self, request: RequestFacts | None, refusal: CallRefused
                ) -> None:
        """
        Record and count a call refused before it ran; one with no
        C{request} (a 2025 C{initialize}, a resource read: no audit line
        names it) is counted only.
        """
        self._observer.refused(refusal.kind, self._facts(request))


@attr.s(slots=True, auto_attribs=True)
class CallRecord:
    """
    One call's record, from its start to its end; C{changes}, what its
    journal held then: what a commit, the tool's or its code's, commits.
    """

    records: CallRecords
    request: RequestFacts
    observed: ObservedCall
    changes: tuple[str, ...]

    def ended(self, outcome: Any, step: str | None = None) -> None:
        """
        The call is over with C{outcome} (its value, a L{Failure}, or
        L{None}: no answer), ending it escalated as far as C{step}.  A
        L{CallRefused} is recorded as a refusal; a commit's answer, or a
        result saying its code committed, becomes its session's last one.
        """
        request = self.request
        if isinstance(outcome, Failure) and outcome.check(CallRefused):
            self.observed.refused(cast(CallRefused, outcome.value).kind)
            return
        name = None if request.tool is None else request.tool.name
        committed = self.observed.ended(outcomeOf(outcome), name, step)
        work = request.work
        if work is not None and committed is not None:
            changes = self.changes if name == COMMIT_TOOL else (
                *self.changes, changeOf(name, request.arguments))
            work.commitEnded(committed, self.records.clock.seconds(),
                             changes)

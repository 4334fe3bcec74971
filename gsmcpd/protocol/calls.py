"""
The one path a GemStone-backed request (a call) takes, whatever carried
it: a L{CallRunner} hands it to the sessions layer once (L{WorkCalls}: a
L{WorkCall} saying where it runs, what it runs and how it is observed),
which admits it, starts its observation and runs it to its real end; the
runner words its refusals and records how it ended.  The errors both eras
answer for a session's login are here too.
"""

from collections.abc import Callable
from functools import partial
from typing import Any, NoReturn, cast

from twisted.internet.defer import Deferred, fail, maybeDeferred, succeed
from twisted.python.failure import Failure

from gsmcpd.gci.errors import GciError
from gsmcpd.observe.audit import AuditUnavailable, CallRefused
from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.metrics import UNOBSERVED
from gsmcpd.observe.observed import ObservedCall
from gsmcpd.protocol import kinds
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import INVALID_REQUEST, SERVER_ERROR, JsonRpcError
from gsmcpd.protocol.methods import Method
from gsmcpd.protocol.recording import (
    CallRecord,
    CallRecords,
    auditRefusal,
    changesOf,
    unrefused,
)
from gsmcpd.protocol.shares import shareRefusal
from gsmcpd.sessions.context import CallContext
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.logins import LoginNotAnswered
from gsmcpd.sessions.running import CallEnded, WorkCall, WorkCalls
from gsmcpd.sessions.shares import RequestInFlight, ShareExhausted
from gsmcpd.tools.base import ToolResult
from gsmcpd.tools.templates.outcomes import GemGone, ToolError


class SessionGoneError(JsonRpcError):
    """The session's gem died; the session is closed as this is sent."""

    def __init__(self, number: int | None) -> None:
        super().__init__(
            SERVER_ERROR,
            f"The GemStone session ended (GemStone error {number}); "
            "this MCP session is closed. Initialize a new session.",
            {"kind": kinds.SESSION_GONE, "number": number})


def sessionLimitMessage(limit: int, whatToDo: str) -> str:
    """What an agent reads when the GemStone sessions are all taken."""
    return (f"This server already has its maximum of {limit} GemStone "
            f"session{'s' if limit != 1 else ''} open. {whatToDo}")


class LoginFailedError(JsonRpcError):
    """A session's GemStone login failed, or was not answered in time."""


def loginFailed(failure: Failure) -> NoReturn:
    """
    A failed login (a L{GciError}, or minting its credentials' L{ToolError})
    or one the stone did not answer by its deadline, as L{LoginFailedError}.
    """
    error = failure.value
    if isinstance(error, LoginNotAnswered):
        raise LoginFailedError(
            SERVER_ERROR, f"The GemStone stone did not answer the login "
            f"within {error.deadline:g} seconds; try again later.",
            {"kind": kinds.STONE_NOT_ANSWERING, "deadline": error.deadline})
    failure.trap(GciError, ToolError)
    number = error.number if isinstance(error, GciError) \
        else (cast(ToolError, error).details or {}).get("number")
    raise LoginFailedError(
        SERVER_ERROR, f"The GemStone login failed (GemStone error "
        f"{number}); the server log has the details.",
        {"kind": kinds.LOGIN_FAILED, "number": number})


class CallRunner:
    """
    Answers requests with their methods' handlers; a GemStone-backed one
    is admitted and run by the sessions layer (C{work}), and recorded
    from its start to its real end (C{records}).
    """

    def __init__(self, registry: Any, clock: Any,
                 requestTimeout: float | None = None, audit: Any = None,
                 metrics: Any = UNOBSERVED) -> None:
        self._registry = registry
        self.work = WorkCalls(registry, clock, requestTimeout)
        self.records = CallRecords(clock, audit, metrics)

    def answer(self, request: RequestFacts, method: Method,
               admitted: bool = False,
               opening: Callable[[], CallContext] | None = None
               ) -> Deferred[Any]:
        """
        A L{Deferred} of one request's result (its era frames it), of
        L{CANCELLED} for a call its client cancelled, or failing with a
        L{JsonRpcError}; C{admitted}: already, by its era; C{opening}
        builds its context once it is admitted (else its facts carry it).
        A call's end is recorded once, as its client is told.
        """
        handler, tool = method.handler, request.tool
        if not method.call:
            # Answered from memory: nothing to end, nothing to stream.
            return maybeDeferred(handler, request)
        changes = changesOf(request)
        try:
            # A tools/call's handler says what tool it runs; any other
            # method's is called back with its context.
            running = self.work.run(WorkCall(
                request.work, request.id, tool is None or tool.cancellable,
                request.context if opening is None else opening,
                handler(request) if tool is not None
                else lambda context: handler(request.replace(context=context)),
                not admitted, request.principal,
                self.records.starting(request)))
        except (RequestInFlight, ShareExhausted) as e:
            return self.unmade(request, notAdmitted(request, e))
        except AuditUnavailable:
            return self.unmade(request, auditRefusal())
        record = CallRecord(self.records, request,
                            cast(ObservedCall, running.observed), changes)
        running.over.addCallback(lambda end: record.ended(
            _told(request, end.outcome), end.step))
        return running.answer.addBoth(
            lambda outcome: unrefused(_told(request, outcome)))

    def unmade(self, request: RequestFacts,
               error: CallRefused | JsonRpcError | ToolError
               ) -> Deferred[Any]:
        """
        Record a call not made as what its client is told: a refusal's
        answer (counted as refused), a tool error as its result, or
        failing with its L{JsonRpcError}; counted as its session's
        activity all the same.
        """
        if request.work is not None:
            self._registry.active(request.work)
        if isinstance(error, CallRefused):
            self.records.refused(request, error)
            return fail(error).addErrback(unrefused)
        if isinstance(error, ToolError):
            return self.recorded(request, partial(
                succeed, ToolResult.fromError(error).asResult()))
        return self.recorded(request, partial(fail, error))

    def admit(self, request: RequestFacts, work: IWorkSession | None
              ) -> None:
        """
        Before anything is queued or lent in C{work} (L{None}: one yet to
        be lent), raise L{JsonRpcError} for a request id in flight there,
        then L{CallRefused} for a caller past its share.
        """
        try:
            self._registry.shares.admitCall(work, request.principal,
                                            request.id)
        except (RequestInFlight, ShareExhausted) as e:
            raise notAdmitted(request, e)

    def recorded(self, request: RequestFacts,
                 answer: Callable[[], Deferred[Any]]) -> Deferred[Any]:
        """
        Record a C{tools/call} answered without a GemStone call of its own
        (C{open_session}, a call not made) as any other: its start written
        first, its end when C{answer}'s L{Deferred} fires.
        """
        try:
            record = self.records.started(request)
        except CallRefused as refusal:
            return self.unmade(request, refusal)

        def over(outcome: Any) -> Any:
            record.ended(outcome)
            return unrefused(outcome)

        return maybeDeferred(answer).addBoth(over)


def notAdmitted(request: RequestFacts,
                error: RequestInFlight | ShareExhausted
                ) -> JsonRpcError | CallRefused:
    """
    What a call the sessions layer did not admit is answered: a request id
    in flight is an invalid request, a caller past its share a refusal.
    """
    if isinstance(error, ShareExhausted):
        return CallRefused(kinds.SHARE_CAP, shareRefusal(error))
    return JsonRpcError(
        INVALID_REQUEST, f"Invalid Request: request id "
        f"{clipped(repr(request.id))} is already in flight on this "
        "session; JSON-RPC ids must be unique among requests in flight")


def _told(request: RequestFacts, outcome: Any) -> Any:
    """
    What a call's client, and its record, are told of C{outcome}: the
    server's ending or its gem's death as the JSON-RPC error its era sends.
    """
    if not isinstance(outcome, Failure):
        return outcome
    error = outcome.value
    if isinstance(error, CallEnded):
        return Failure(JsonRpcError(SERVER_ERROR, error.message,
                                    {"kind": error.why, "step": error.step}))
    if isinstance(error, GemGone):
        return Failure(request.dialect.sessionGoneError(
            cast(IWorkSession, request.work), error.number))
    return outcome

"""
The one path a GemStone-backed request takes, whatever carried it.

A L{CallRunner} owns such a request (a call) from start to end: its
deadline, its cancellation, the race between its answer, its cancellation
and the abandonment of its GemStone session, the death of the gem, what
the client is told when the server ended it, and its count and audit.  An
era's adapter hands it the request's facts and the method, and frames what
comes back; the transport only gates, parses and renders.  The errors both
eras answer for a session's login are here too.
"""

from collections.abc import Callable
from typing import Any, NoReturn

import attr
from twisted.internet.defer import (
    CancelledError, Deferred, fail, inlineCallbacks, maybeDeferred, succeed)
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.metrics import UNOBSERVED
from gsmcpd.protocol import kinds
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import (
    INTERNAL_ERROR, INVALID_REQUEST, SERVER_ERROR, JsonObject, JsonRpcError,
    result)
from gsmcpd.protocol.methods import Method
from gsmcpd.protocol.shares import shareRefusal
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.registry import LoginNotAnswered
from gsmcpd.sessions.shares import ShareExhausted
from gsmcpd.tools.templates.outcomes import GemGone, ToolError

ENDED = (GemGone, CallWithdrawn, CancelledError)
"""How a call's answer fails because the call was ended: expected when it
arrives after the request was already answered."""


class SessionGoneError(JsonRpcError):
    """
    The session's gem died; the session is closed as this is sent.
    """

    def __init__(self, number):
        super().__init__(
            SERVER_ERROR,
            f"The GemStone session ended (GemStone error {number}); "
            "this MCP session is closed. Initialize a new session.",
            {"kind": kinds.SESSION_GONE, "number": number})


def sessionLimitMessage(limit: int, whatToDo: str) -> str:
    """
    What an agent reads when the server's GemStone sessions are all taken:
    the cap, then C{whatToDo}, what it can do about it in its era.
    """
    return (f"This server already has its maximum of {limit} GemStone "
            f"session{'s' if limit != 1 else ''} open. {whatToDo}")


class LoginFailedError(JsonRpcError):
    """
    The GemStone login for a session failed; the server log says why.
    """

    def __init__(self, number):
        super().__init__(
            SERVER_ERROR, f"The GemStone login failed (GemStone error "
            f"{number}); the server log has the details.",
            {"kind": kinds.LOGIN_FAILED, "number": number})


class StoneNotAnsweringError(LoginFailedError):
    """
    The stone did not answer a session's login within its deadline.
    """

    def __init__(self, deadline):
        JsonRpcError.__init__(
            self, SERVER_ERROR, f"The GemStone stone did not answer the "
            f"login within {deadline:g} seconds; try again later.",
            {"kind": kinds.STONE_NOT_ANSWERING, "deadline": deadline})


def loginFailed(failure: Failure) -> NoReturn:
    """
    Answer a failed login (its L{GciError}, or the L{ToolError} of minting
    its credentials) as L{LoginFailedError}, and one the stone did not
    answer in time as L{StoneNotAnsweringError}, in either era.
    """
    if failure.check(LoginNotAnswered):
        raise StoneNotAnsweringError(failure.value.deadline)
    failure.trap(GciError, ToolError)
    error = failure.value
    number = error.number if isinstance(error, GciError) \
        else (error.details or {}).get("number")
    raise LoginFailedError(number)


@attr.s(frozen=True, slots=True, auto_attribs=True)
class AuditSubject:
    """
    What the audit trail names a call's session by: its principal, and the
    handle of the work session it ran in (or that it opened or closed), or
    L{None} for a call that had none.
    """

    principal: Any
    handle: str | None

    @property
    def label(self) -> str:
        return "-" if self.handle is None else self.handle[:8]


def answered(handler: Callable[[RequestFacts], Any],
             request: RequestFacts) -> Deferred[Any]:
    """
    What C{handler} answers C{request}, as a L{Deferred} of its result
    value, or failing with what it raised.
    """
    try:
        value = handler(request)
    except Exception:
        return fail()
    return value if isinstance(value, Deferred) else succeed(value)


class CallRunner:
    """
    Answers requests with their methods' handlers, running the
    GemStone-backed ones as L{RunningCall}s.

    @ivar requestTimeout: the per-request deadline in seconds, or L{None}.
    @ivar audit: the L{gsmcpd.observe.audit.AuditLog} each tool call is
        recorded in, or L{None}.
    """

    log = Logger()

    def __init__(self, registry, clock, requestTimeout=None, audit=None,
                 metrics=UNOBSERVED):
        self._metrics = metrics
        self._registry = registry
        self._clock = clock
        self.requestTimeout = requestTimeout
        self.audit = audit

    def answer(self, request: RequestFacts, method: Method) -> Deferred[Any]:
        """
        The result of one request, unframed: whichever era carried it
        frames it.

        @return: a L{Deferred} firing with the result value, or with
            L{CANCELLED} for a call the client cancelled (nobody waits for
            its answer), or failing with L{JsonRpcError}.
        """
        if not method.call:
            # Answered from memory: nothing to end, nothing to stream.
            return answered(method.handler, request)
        return self._run(request, method.handler)

    def cancel(self, work: IWorkSession, params: JsonObject) -> None:
        """
        The client cancelled a request running in C{work}: end it if it is
        still running.
        """
        requestId = params.get("requestId")
        run = work.calls.running.get(requestId) \
            if isinstance(requestId, (str, int)) else None
        if run is not None:
            self._cancelled(run, params.get("reason"))

    def _cancelled(self, run, reason):
        self.log.info("session {handle}: the client cancelled request {id}: "
                      "{reason}", handle=run.label,
                      id=clipped(run.requestId), reason=clipped(reason))
        run.end("cancelled")

    def _stoppedWaiting(self, run, first):
        """
        End C{run} for a client that stopped waiting for its answer (it
        hung up, or cancelled the task it became), and settle C{first} even
        when the call was already being ended (by its deadline, say), so
        that it is still counted and audited as such.
        """
        if run.why is None:
            self._cancelled(run, "the client stopped waiting for the answer")
        if not first.called:
            first.callback(None)

    def _run(self, request, handler):
        """
        Run C{request} as a L{RunningCall}: whichever comes first of its
        answer, its cancellation and the abandonment of its GemStone
        session decides the response (callbacks rather than a
        C{DeferredList} and a generator: this runs for every call).
        """
        work = request.work
        if work is not None and request.id in work.calls.running:
            # Its cancellation, its answer and its record would be
            # mistaken for the running one's.
            return fail(JsonRpcError(
                INVALID_REQUEST, f"Invalid Request: request id "
                f"{clipped(repr(request.id))} is already in flight on this "
                "session; JSON-RPC ids must be unique among requests in "
                "flight"))
        if work is not None:
            try:
                self._registry.shares.admitCall(work, request.principal)
            except ShareExhausted as e:
                return fail(shareRefusal(e))
        started = self._clock.seconds()
        tool = request.tool
        timer = self._metrics.callStarted(
            request.method if tool is None else tool.name, self._clock)
        run = RunningCall(work, request.id, self._registry, self._clock)
        if work is not None:
            work.calls.admit(run)
        if self.requestTimeout is not None:
            run.setDeadline(self.requestTimeout)
        answering = answered(handler, request.running(
            request.context.endedBy(run)))
        # Whoever stops waiting (a client that hangs up) cancels the call
        # as notifications/cancelled does: ending it settles C{first}, so
        # the call is still counted, audited and broken.
        first = Deferred(lambda _: self._stoppedWaiting(run, first))

        def settle(outcome):
            if not first.called:
                if isinstance(outcome, Failure):
                    first.errback(outcome)
                else:
                    first.callback(outcome)
            elif isinstance(outcome, Failure) and not outcome.check(*ENDED):
                # Whatever came second is consumed here, but a bug that
                # no client will hear of is still a bug.
                self.log.failure(
                    "session {handle}: request {id} failed after it was "
                    "answered", outcome, handle=run.label,
                    id=clipped(request.id))

        def callOver(result):
            run.finished()
            return result

        answering.addBoth(callOver).addBoth(settle)
        run.abandoned.addBoth(settle)
        run.cancelled.addBoth(settle)
        first.addErrback(self._gemGone, request)
        first.addCallback(self._decided, run)
        self._recorded(first, request, started, timer, run)
        return first.addBoth(self._over, run)

    def recorded(self, request: RequestFacts,
                 answer: Callable[[], Deferred[Any]]) -> Deferred[Any]:
        """
        Count and audit a C{tools/call} the server answers without a
        GemStone call of its own (C{open_session}, C{close_session}), as
        every other tool call is.

        @param answer: called for a L{Deferred} of its result value (or
            of a L{JsonRpcError}).
        """
        started = self._clock.seconds()
        timer = self._metrics.callStarted(request.params.get("name"),
                                          self._clock)
        return self._recorded(maybeDeferred(answer), request, started, timer)

    def _recorded(self, answering, request, started, timer, run=None):
        # Both ways: a wait cancelled past the first answer (the session
        # of a dead gem being closed) still ends a call that ran.
        answering.addBoth(self._counted, timer, run)
        if self.audit is not None and request.method == "tools/call":
            answering.addBoth(self._audited, request, started)
        return answering

    def _gemGone(self, failure, request):
        failure.trap(GemGone)
        return self._sessionGone(request, failure.value)

    def _decided(self, value, run):
        if run.why == "cancelled":
            return CANCELLED
        ended = run.endedMessage()
        if ended is not None:
            raise JsonRpcError(
                SERVER_ERROR, ended, {"kind": run.why, "step": run.step})
        return value

    def _counted(self, outcome, timer, run):
        timer.finished(_answerOf(outcome), None if run is None else run.step)
        return outcome

    def _audited(self, outcome, request, started):
        response = _answerOf(outcome)
        self.audit.toolCall(
            session=AuditSubject(request.principal, _handleOf(
                request, response)),
            tool=request.params.get("name"), arguments=request.arguments,
            response=response, seconds=self._clock.seconds() - started)
        return outcome

    def _over(self, result, run):
        if run.work is not None:
            run.work.calls.release(run)
        return result

    @inlineCallbacks
    def _sessionGone(self, request, gone):
        work = request.work
        self.log.error(
            "session {handle}: its gem died ({error}; reason: {reason})",
            handle=work.label, error=gone, reason=gone.reason)
        yield self._registry.close(work.handle, "its gem died",
                                   code="gem_died")
        raise request.dialect.sessionGone(work, gone.number)


CANCELLED = object()
"""What a request the client cancelled comes to: there is no answer to
send."""


def _handleOf(request, response):
    """
    The handle a tool call's audit line names: its work session's, or the
    one its result names (C{open_session}, C{close_session}), or L{None}.
    """
    if request.work is not None:
        return request.work.handle
    value = (response or {}).get("result")
    named = ((value or {}).get("structuredContent") or {}).get("session") \
        if isinstance(value, dict) else None
    return named if isinstance(named, str) else None


def _answerOf(outcome):
    """
    The JSON-RPC response a call ended with, as it is counted and audited:
    L{None} when nobody waits for one any more (cancelled), the internal
    error the transport answers for any other failure (a bug).
    """
    if isinstance(outcome, Failure):
        if outcome.check(JsonRpcError):
            return outcome.value.asResponse(None)
        if outcome.check(CancelledError):
            return None
        return JsonRpcError(INTERNAL_ERROR, "Internal error").asResponse(None)
    if outcome is CANCELLED:
        return None
    return result(None, outcome)

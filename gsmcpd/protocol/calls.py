"""
The one path a GemStone-backed request (a call) takes, whatever carried
it: a L{CallRunner} races its answer against its cancellation, its
deadline and the loss of its GemStone session, and records it to its
real end, whether or not its client still waits.  The errors both eras
answer for a session's login are here too.
"""

from collections.abc import Callable
from functools import partial
from typing import Any, NoReturn, cast

from twisted.internet.defer import (
    CancelledError,
    Deferred,
    fail,
    inlineCallbacks,
    maybeDeferred,
    succeed,
)
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.observe.audit import CallRefused
from gsmcpd.observe.calloutcome import OK
from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.metrics import UNOBSERVED
from gsmcpd.protocol import kinds
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import (
    INVALID_REQUEST,
    SERVER_ERROR,
    JsonObject,
    JsonRpcError,
)
from gsmcpd.protocol.methods import Handler, Method
from gsmcpd.protocol.recording import (
    CANCELLED,
    CallRecord,
    CallRecords,
    outcomeOf,
    unrefused,
)
from gsmcpd.protocol.shares import shareRefusal
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.logins import LoginNotAnswered
from gsmcpd.sessions.shares import RequestInFlight, ShareExhausted
from gsmcpd.tools.templates.outcomes import GemGone, ToolError

ENDED = (GemGone, CallWithdrawn, CancelledError)
"""How a call's answer fails because the call was ended: expected when it
arrives after the request was already answered."""


class SessionGoneError(JsonRpcError):
    """
    The session's gem died; the session is closed as this is sent.
    """

    def __init__(self, number: int | None) -> None:
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

    def __init__(self, number: object) -> None:
        super().__init__(
            SERVER_ERROR, f"The GemStone login failed (GemStone error "
            f"{number}); the server log has the details.",
            {"kind": kinds.LOGIN_FAILED, "number": number})


class StoneNotAnsweringError(LoginFailedError):
    """
    The stone did not answer a session's login within its deadline.
    """

    def __init__(self, deadline: float) -> None:
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
    error = failure.value
    if isinstance(error, LoginNotAnswered):
        raise StoneNotAnsweringError(error.deadline)
    failure.trap(GciError, ToolError)
    number = error.number if isinstance(error, GciError) \
        else (cast(ToolError, error).details or {}).get("number")
    raise LoginFailedError(number)


class CallRunner:
    """
    Answers requests with their methods' handlers, running the
    GemStone-backed ones as L{RunningCall}s, each recorded from its start
    to its real end (L{gsmcpd.protocol.recording}).

    @ivar requestTimeout: the per-request deadline in seconds, or L{None}.
    @ivar records: where each call is counted and audited.
    """

    log = Logger()

    def __init__(self, registry: Any, clock: Any,
                 requestTimeout: float | None = None, audit: Any = None,
                 metrics: Any = UNOBSERVED) -> None:
        """
        @param audit: the L{gsmcpd.observe.audit.AuditLog} each tool call
            is recorded in, or L{None}.
        """
        self._registry = registry
        self._clock = clock
        self.requestTimeout = requestTimeout
        self.records = CallRecords(clock, audit, metrics)

    def answer(self, request: RequestFacts, method: Method,
               admitted: bool = False) -> Deferred[Any]:
        """
        The result of one request, unframed: whichever era carried it
        frames it.

        @param admitted: whether the call was admitted already (L{admit}).

        @return: a L{Deferred} firing with the result value, or with
            L{CANCELLED} for a call the client cancelled (nobody waits for
            its answer), or failing with L{JsonRpcError}.
        """
        if not method.call:
            # Answered from memory: nothing to end, nothing to stream.
            return maybeDeferred(method.handler, request)
        return self._run(request, method.handler, admitted)

    def refused(self, request: RequestFacts,
                refusal: CallRefused) -> Deferred[Any]:
        """
        Record and count a call refused before it ran (by either era, for
        a C{kind} of L{gsmcpd.observe.metrics.REFUSALS}), and answer it as
        refused: its tool error as its result, or failing with its
        L{JsonRpcError}.
        """
        self.records.refused(request, refusal)
        answer = unrefused(Failure(refusal))
        return fail(answer) if isinstance(answer, Failure) else \
            succeed(answer)

    def cancel(self, work: IWorkSession, params: JsonObject) -> None:
        """
        The client cancelled a request running in C{work}: end it if it is
        still running.
        """
        requestId = params.get("requestId")
        run = work.callFor(requestId) \
            if isinstance(requestId, (str, int)) else None
        if run is not None:
            self._cancelled(run, params.get("reason"))

    def _cancelled(self, run: RunningCall, reason: object) -> None:
        self.log.info("session {handle}: the client cancelled request {id}: "
                      "{reason}", handle=run.label,
                      id=clipped(run.requestId), reason=clipped(reason))
        run.end("cancelled")

    def _run(self, request: RequestFacts, handler: Handler,
             admitted: bool) -> Deferred[Any]:
        """
        Run C{request} as a L{RunningCall} (a L{Call}), once its record
        has begun.
        """
        work = request.work
        try:
            if work is not None and not admitted:
                self.admit(request, work)
            record = self.records.started(request)
        except CallRefused as refusal:
            return self.refused(request, refusal)
        except JsonRpcError as e:
            return self.recorded(request, partial(fail, e))
        tool = request.tool
        run = RunningCall.begin(work, request.id, self._registry.replacement,
                                self._clock, tool is None or tool.cancellable,
                                self.requestTimeout)
        return Call(self, request, run, record).run(handler)

    def admit(self, request: RequestFacts, work: IWorkSession | None
              ) -> None:
        """
        Refuse a call into C{work} (L{None}: one yet to be lent) whose
        request id is in flight there, then one past its share
        (L{gsmcpd.sessions.shares}), before anything is queued or lent.

        @raise JsonRpcError: for the id in flight, recorded as what its
            client is told.
        @raise CallRefused: for the share, as a refusal its record names.
        """
        try:
            self._registry.shares.admitCall(work, request.principal,
                                            request.id)
        except RequestInFlight:
            raise JsonRpcError(
                INVALID_REQUEST, f"Invalid Request: request id "
                f"{clipped(repr(request.id))} is already in flight on this "
                "session; JSON-RPC ids must be unique among requests in "
                "flight")
        except ShareExhausted as e:
            raise CallRefused(kinds.SHARE_CAP, shareRefusal(e))

    def recorded(self, request: RequestFacts,
                 answer: Callable[[], Deferred[Any]]) -> Deferred[Any]:
        """
        Record a C{tools/call} the server answers without a GemStone call
        of its own (C{open_session}, C{close_session}) as every other tool
        call is: admitted and its start written first, its end when
        C{answer} is over.

        @param answer: called for a L{Deferred} of its result value (or
            of a L{JsonRpcError}, or a L{CallRefused}).
        """
        try:
            record = self.records.started(request)
        except CallRefused as refusal:
            return self.refused(request, refusal)

        def over(outcome: Any) -> Any:
            record.ended(outcome)
            return unrefused(outcome)

        return maybeDeferred(answer).addBoth(over)

    @inlineCallbacks
    def gemDied(self, request: RequestFacts, gone: GemGone) -> Any:
        """
        The answer to a call whose gem died: its session is closed first.
        """
        work = cast(IWorkSession, request.work)
        self.log.error(
            "session {handle}: its gem died ({error}; reason: {reason})",
            handle=work.label, error=gone, reason=gone.reason)
        yield self._registry.close(work.handle, "its gem died",
                                   code="gem_died")
        raise request.dialect.sessionGoneError(work, gone.number)


class Call:
    """
    One call as it runs: the answer its client waits for, and its record.

    The two part when the client stops waiting: it is answered nothing at
    once, while the call is recorded when it is really over, with what it
    did: its answer came back, its GemStone session was given up, or it
    was being ended with nothing running on its gem (a call being ended
    starts no GemStone call, so nothing more can happen).

    @ivar answer: the L{Deferred} the client waits on; cancelling it is
        how a client stops waiting (it hung up, or cancelled the task the
        call became), which ends the call as C{notifications/cancelled}
        does, except one that is not C{cancellable} (a commit) while its
        GemStone call runs: that ends as the stone answers, or by its
        deadline.
    """

    def __init__(self, runner: CallRunner, request: RequestFacts,
                 run: RunningCall, record: CallRecord) -> None:
        self._runner = runner
        self._request = request
        self._run = run
        self._record = record
        self._over = False
        self.answer: Deferred[Any] = Deferred(self._stoppedWaiting)

    def run(self, handler: Handler) -> Deferred[Any]:
        """
        Start the call with C{handler}: answer L{answer}.
        """
        run, request = self._run, self._request
        answering = maybeDeferred(handler, request.running(
            request.context.endedBy(run)))
        # Callbacks rather than a DeferredList and a generator: this runs
        # for every call.
        answering.addBoth(self._answered)
        run.abandoned.addCallback(self._abandoned)
        run.cancelled.addCallback(self._cancelled)
        return self.answer

    def _stoppedWaiting(self, answer: Deferred[Any]) -> None:
        run = self._run
        if self._over:
            # Its dead gem's session is being closed: nothing to end.
            return
        if run.why is None:
            self._runner._cancelled(
                run, "the client stopped waiting for the answer")
        if not answer.called:
            # Already being ended (by its deadline, say): told as such.
            self._answer(self._forClient(None, run.endedMessage()))

    def _answered(self, outcome: Any) -> None:
        self._ended(outcome, self._run.finished())

    def _abandoned(self, _: object) -> None:
        # Its GemStone session was given up: its answer will never come.
        self._ended(None, self._run.endedMessage())

    def _cancelled(self, _: object) -> None:
        self._answer(CANCELLED)
        if self._run.current is None:
            self._ended(None, self._run.endedMessage())

    def _ended(self, outcome: Any, ended: str | None) -> None:
        """
        The call is over with C{outcome} (C{ended}: what its client is told
        of how the server ended it, if it did): record it, and answer the
        client if it still waits.
        """
        if self._over:
            if isinstance(outcome, Failure) and not outcome.check(*ENDED):
                # A bug that no client will hear of is still a bug.
                self._runner.log.failure(
                    "session {handle}: request {id} failed after it was "
                    "answered", outcome, handle=self._run.label,
                    id=clipped(self._request.id))
            return
        self._over = True
        run, request = self._run, self._request
        if isinstance(outcome, Failure) and outcome.check(GemGone):
            gone = cast(GemGone, outcome.value)
            self._record.ended(Failure(request.dialect.sessionGoneError(
                cast(IWorkSession, request.work), gone.number)), run.step)
            closing = self._runner.gemDied(request, gone)
            closing.addBoth(self._answer)
        else:
            told = self._forClient(outcome, ended)
            self._record.ended(self._forRecord(outcome, told), run.step)
            self._answer(unrefused(told))
        if run.work is not None:
            run.work.release(run)

    def _forClient(self, outcome: Any, ended: str | None) -> Any:
        """
        What the client is told of a call that came to C{outcome}: nothing
        when it cancelled, the ending policy's message when the server
        ended it (unless it answered in full all the same: the break came
        too late, and a commit that committed must say so), else the
        outcome itself.
        """
        run = self._run
        if run.why == "cancelled":
            return CANCELLED
        if ended is not None and not _answeredInFull(outcome):
            return Failure(JsonRpcError(
                SERVER_ERROR, ended, {"kind": run.why, "step": run.step}))
        return outcome

    def _forRecord(self, outcome: Any, told: Any) -> Any:
        """
        What the record says a call that came to C{outcome} did: for one
        its client cancelled, what it did if it finished despite that
        (nothing was broken, or the break came too late), else that there
        was no answer; otherwise what its client is C{told}.
        """
        run = self._run
        if run.why != "cancelled":
            return told
        whole = _answeredInFull(outcome) or (
            run.step is None and not isinstance(outcome, Failure))
        return outcome if whole else None

    def _answer(self, outcome: Any) -> None:
        if not self.answer.called:
            if isinstance(outcome, Failure):
                self.answer.errback(outcome)
            else:
                self.answer.callback(outcome)


def _answeredInFull(outcome: Any) -> bool:
    """
    Whether a call came to a whole answer: not a failure, not a tool error
    (which a break may have caused), not nothing.
    """
    return outcome is not None and not isinstance(outcome, Failure) and \
        outcomeOf(outcome).ended == OK

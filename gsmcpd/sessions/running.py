"""
Running one call in the work session its era placed it in (L{WorkCall}):
admitted (a request id in flight there, a caller over its share: refused
before anything is queued), its observation started, begun with its
deadline, raced against its client's cancellation, that
deadline and the loss of its gem, released, and answered twice: to its
client at once when it stops waiting, to its record (L{CallEnd}) only
when the call is really over, so a commit the stone made is recorded as
made whoever still waited.
"""

from collections.abc import Callable
from typing import Any, cast

import attr
from twisted.internet.defer import CancelledError, Deferred, maybeDeferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.observe.calloutcome import OK, resultOutcome
from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.observed import CallStart, ObservedCall
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.context import CallContext
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.toolrun import runTool
from gsmcpd.tools.base import JsonObject, Tool
from gsmcpd.tools.templates.outcomes import GemGone

CANCELLED = object()
"""What a call its client cancelled comes to: there is no answer to
send."""
ENDED = (GemGone, CallWithdrawn, CancelledError)
"""How a call's answer fails because the call was ended: expected when it
arrives after its client was answered."""


@attr.s(auto_exc=True, auto_attribs=True)
class CallEnded(Exception):
    """
    The server ended the call (C{why}: its deadline, say) after escalating
    as far as C{step}; C{message} is what its client is told.
    """

    message: str
    why: str | None
    step: str | None


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ToolRun:
    """
    A tool a call runs here, with no call back up: its arguments as its
    era checked them, and how its era lists tools (C{tool_call} names
    some).
    """

    tool: Tool
    arguments: Any
    describe: Callable[[Tool], JsonObject]


@attr.s(frozen=True, slots=True, auto_attribs=True)
class WorkCall:
    """
    Where a call runs and what it runs: all the sessions layer is told.

    @ivar work: the work session its era placed it in, admitted already
        (L{None}: it runs in none, and ending it only decides its answer).
    @ivar cancellable: whether its client's cancellation breaks it (not a
        commit's, once its GemStone call has begun).
    @ivar context: what its tool may ask of its client (the call adds how
        it is ended); or what builds it once the call is admitted, its
        era's one call back up (the 2026 era opens the call's stream only
        then: a refused call is answered as plain JSON).
    @ivar run: the L{ToolRun} of a C{tools/call}; else its method's
        handler, called back with that context: its result, or a
        L{Deferred} of it.
    @ivar admit: whether it is admitted here (its era may have admitted
        it before lending it a session), as C{principal}'s.
    @ivar start: how it is observed from its start, once admitted (its
        audit line, its metrics), or L{None}.
    """

    work: IWorkSession | None
    requestId: object
    cancellable: bool
    context: CallContext | Callable[[], CallContext]
    run: ToolRun | Callable[[CallContext], Any]
    admit: bool = False
    principal: Any = None
    start: CallStart | None = None


@attr.s(frozen=True, slots=True, auto_attribs=True)
class CallEnd:
    """
    How a call really ended, for its record: C{outcome} is its value, its
    L{Failure} (L{CallEnded}, L{GemGone}, or the tool's), or L{None} for no
    answer; C{step} how far ending it escalated.
    """

    outcome: Any
    step: str | None


class WorkCalls:
    """
    Runs calls on work sessions, each to its real end.

    @ivar deadline: the per-call deadline in seconds, or L{None}.
    """

    log = Logger()

    def __init__(self, registry: Any, clock: IReactorTime,
                 deadline: float | None = None) -> None:
        """
        @param registry: the L{gsmcpd.sessions.registry.SessionRegistry}:
            its C{replacement} replaces a gem that took no break, its
            C{close} closes the session of one that died.
        """
        self._registry = registry
        self._clock = clock
        self.deadline = deadline

    def run(self, call: WorkCall) -> "Running":
        """
        Count C{call} as its session's activity, admit it, have its
        context built, start its observation and begin it: its client's
        answer is the L{Running}'s C{answer}, its record's its C{over}.

        @raise RequestInFlight: its request id is in flight in its work
            session.
        @raise ShareExhausted: its caller is over its share of calls.
        @raise AuditUnavailable: its audit line cannot be written.
        """
        work = call.work
        if work is not None:
            self._registry.active(work)
        if call.admit and work is not None:
            self._registry.shares.admitCall(work, call.principal,
                                            call.requestId)
        context = call.context
        if not isinstance(context, CallContext):
            context = context()
        observed = None if call.start is None else call.start.started()
        run = RunningCall.begin(work, call.requestId,
                                self._registry.replacement, self._clock,
                                call.cancellable, self.deadline)
        return Running(self, run, observed).start(call, context)

    def cancel(self, work: IWorkSession, requestId: object,
               reason: object) -> None:
        """
        The client cancelled a request running in C{work}: end it if it is
        still running.
        """
        run = work.callFor(requestId) \
            if isinstance(requestId, (str, int)) else None
        if run is not None:
            self.cancelled(run, reason)

    def cancelled(self, run: RunningCall, reason: object) -> None:
        self.log.info("session {handle}: the client cancelled request {id}: "
                      "{reason}", handle=run.label,
                      id=clipped(run.requestId), reason=clipped(reason))
        run.end("cancelled")

    def gemDied(self, work: IWorkSession, gone: GemGone) -> Deferred[Any]:
        """
        Close the session of a call whose gem died: then fail with C{gone}.
        """
        self.log.error(
            "session {handle}: its gem died ({error}; reason: {reason})",
            handle=work.label, error=gone, reason=gone.reason)
        closing = self._registry.close(work.handle, "its gem died",
                                       code="gem_died")
        return closing.addCallback(lambda _: Failure(gone))


class Running:
    """
    One call as it runs: the answer its client waits for, and its end.

    The two part when the client stops waiting: it is answered nothing at
    once, while C{over} fires when the call is really over, with what it
    did: its answer came back, its GemStone session was given up, or it
    was being ended with nothing running on its gem (a call being ended
    starts no GemStone call, so nothing more can happen).

    @ivar answer: the L{Deferred} the client waits on; cancelling it is
        how a client stops waiting (it hung up, or cancelled the task the
        call became), which ends the call as C{notifications/cancelled}
        does, except one that is not C{cancellable} (a commit) while its
        GemStone call runs: that ends as the stone answers, or by its
        deadline.
    @ivar over: fires once, with the L{CallEnd}, before C{answer} does
        (when it still waits).
    @ivar observed: the call as observed from its start, for its record
        to end, or L{None}.
    """

    def __init__(self, calls: WorkCalls, run: RunningCall,
                 observed: ObservedCall | None = None) -> None:
        self._calls = calls
        self._run = run
        self.observed = observed
        self._over = False
        self.answer: Deferred[Any] = Deferred(self._stoppedWaiting)
        self.over: Deferred[CallEnd] = Deferred()

    def start(self, call: WorkCall, context: CallContext) -> "Running":
        run = self._run
        context = context.endedBy(run)
        what = call.run
        # Callbacks rather than a DeferredList and a generator: this runs
        # for every call.
        running = maybeDeferred(
            runTool, call.work, what.tool, what.arguments, context,
            what.describe) if isinstance(what, ToolRun) \
            else maybeDeferred(what, context)
        running.addBoth(self._answered)
        run.abandoned.addCallback(self._abandoned)
        run.cancelled.addCallback(self._cancelled)
        return self

    def _stoppedWaiting(self, answer: Deferred[Any]) -> None:
        run = self._run
        if self._over:
            # Its dead gem's session is being closed: nothing to end.
            return
        if run.why is None:
            self._calls.cancelled(
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
        of how the server ended it, if it did): end it, release it, and
        answer its client if it still waits.
        """
        run = self._run
        if self._over:
            if isinstance(outcome, Failure) and not outcome.check(*ENDED):
                # A bug that no client will hear of is still a bug.
                self._calls.log.failure(
                    "session {handle}: request {id} failed after it was "
                    "answered", outcome, handle=run.label,
                    id=clipped(run.requestId))
            return
        self._over = True
        if isinstance(outcome, Failure) and outcome.check(GemGone):
            self.over.callback(CallEnd(outcome, run.step))
            self._calls.gemDied(cast(IWorkSession, run.work), cast(
                GemGone, outcome.value)).addBoth(self._answer)
        else:
            told = self._forClient(outcome, ended)
            self.over.callback(CallEnd(self._forRecord(outcome, told),
                                       run.step))
            self._answer(told)
        if run.work is not None:
            run.work.release(run)

    def _forClient(self, outcome: Any, ended: str | None) -> Any:
        """
        What the client is told of a call that came to C{outcome}: nothing
        when it cancelled, why the server ended it when it did (unless it
        answered in full all the same: the break came too late, and a
        commit that committed must say so), else the outcome itself.
        """
        run = self._run
        if run.why == "cancelled":
            return CANCELLED
        if ended is not None and not _answeredInFull(outcome):
            return Failure(CallEnded(ended, run.why, run.step))
        return outcome

    def _forRecord(self, outcome: Any, told: Any) -> Any:
        """
        What a call that came to C{outcome} did: for one its client
        cancelled, what it did if it finished despite that (nothing was
        broken, or the break came too late), else nothing; otherwise what
        its client is C{told}.
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
    (which a break may have caused), not a question, not nothing.
    """
    return outcome is not None and outcome is not CANCELLED and \
        not isinstance(outcome, Failure) and \
        resultOutcome(outcome).ended == OK

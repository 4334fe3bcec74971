"""
Ending a call that must end: past its deadline, or cancelled by the client.

GCI allows one call per session, and a call may run as long as its
Smalltalk does.  Ending one escalates: a soft break (the gem, its view and
its uncommitted work survive), then a hard break no sooner than
L{HARD_BREAK_DELAY} later (GemStone's client library has crashed on two
breaks closer than 300 ms), then, if neither was taken, the GemStone
session is abandoned and replaced.  Each step costs the client that request
only; only the last costs its uncommitted work.
"""

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import attr
from twisted.internet.defer import Deferred, fail
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.observe.clipping import clipped
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.context import ICallControl

_T = TypeVar("_T")

Explanation = Callable[[str], str]
"""What the client is told of a call the server ended, given how."""


class Replacing(Protocol):
    """
    What replaces a work session's GemStone session when a call takes
    neither break (L{gsmcpd.sessions.replacement.GemReplacement}).
    """

    def replace(self, session: IWorkSession, reason: str) -> Deferred[None]:
        ...

HARD_BREAK_DELAY = 2.0
"""Seconds from the soft break to the hard one; never under 0.3."""
REPLACE_DELAY = 3.0
"""Seconds from the hard break to giving the session up."""

STEPS: dict[str | None, str] = {
    "soft": "a soft break (the GemStone session and its uncommitted changes "
            "survive)",
    "hard": "a hard break (the GemStone session and its uncommitted changes "
            "survive)",
    "replaced": "replacing the GemStone session, since the call took neither "
                "a soft nor a hard break (its uncommitted changes were lost)",
}


@attr.s(auto_attribs=True)
class CallState:
    """
    One session's calls in flight.

    @ivar running: request id to the L{RunningCall} of each call in flight,
        so a cancellation or deadline can end it.
    @ivar replacing: while its GemStone session is being replaced, a
        L{Deferred} its next request waits on.
    @ivar ended: whether the server ever began ending one of its calls
        (its gem may still be taking the break): such a session is not
        lent for another read.
    """

    running: dict[Any, "RunningCall"] = attr.Factory(dict)
    replacing: Deferred[None] | None = None
    ended: bool = False


@implementer(ICallControl)
class RunningCall:
    """
    One client request in flight, and how to end it.

    @ivar work: the L{gsmcpd.sessions.interfaces.IWorkSession} it runs in,
        or L{None} for a call with no GemStone session (nothing to break:
        ending it only decides its answer).
    @ivar current: the result L{Deferred} of the GemStone call the request
        is making now, or L{None} between calls.
    @ivar why: C{"deadline"}, C{"cancelled"} or C{"pinned"} (it held the
        oldest commit record too long) once ending began.
    @ivar step: the furthest escalation step taken: C{"soft"}, C{"hard"},
        C{"replaced"}, or C{"withdrawn"} (it had not started).
    @ivar abandoned: fires if the session had to be replaced, since the
        request's own result will then never come.
    @ivar cancelled: fires when the client cancels the request, which is
        answered at once (with no body) rather than when the break lands.
    @ivar cancellable: whether the client's cancellation breaks the call;
        one that is not (a commit: one short step that happens or not) is
        left to end as the stone answers, or by its deadline, once its
        GemStone call has begun.
    """

    _logger = Logger()

    def __init__(self, work: IWorkSession | None, requestId: Any,
                 replacement: Replacing, clock: IReactorTime,
                 cancellable: bool = True) -> None:
        """
        @param replacement: replaces the session's GemStone session when a
            call takes neither break (a L{GemReplacement}).
        """
        self.work = work
        self.cancellable = cancellable
        self.requestId = requestId
        self._replacement = replacement
        self._clock = clock
        self._timer: IDelayedCall | None = None
        self.current: Deferred[Any] | None = None
        self.why: str | None = None
        self._explanation: Explanation | None = None
        self.step: str | None = None
        self.abandoned: Deferred[None] = Deferred()
        self.cancelled: Deferred[None] = Deferred()

    @classmethod
    def begin(cls, work: IWorkSession | None, requestId: Any,
              replacement: Replacing, clock: IReactorTime,
              cancellable: bool, deadline: float | None) -> "RunningCall":
        """
        A call admitted into C{work} (L{None}: it runs in none), ended
        past C{deadline} seconds unless that is L{None}.
        """
        run = cls(work, requestId, replacement, clock, cancellable)
        if work is not None:
            work.admit(run)
        if deadline is not None:
            run.setDeadline(deadline)
        return run

    @property
    def label(self) -> str:
        """How logs name the session it runs in (none: C{-})."""
        return "-" if self.work is None else self.work.label

    # ICallControl

    @property
    def ending(self) -> bool:
        return self.why is not None

    @property
    def clock(self) -> IReactorTime:
        return self._clock

    def start(self, call: Callable[..., Deferred[_T]], *args: object
              ) -> Deferred[_T]:
        if self.ending:
            return fail(CallWithdrawn())
        running = call(*args)
        self.track(running)
        return running

    def track(self, running: Deferred[Any]) -> None:
        self.current = running

        def over(result: object) -> object:
            if self.current is running:
                self.current = None
            return result

        running.addBoth(over)

    # Ending the call.

    def setDeadline(self, seconds: float) -> None:
        """
        End the call if it has not finished within C{seconds}.
        """
        self._timer = self._clock.callLater(
            seconds, self.end, "deadline",
            lambda how: f"The request ran past its {seconds:g}s deadline "
                        f"and was ended by {how}.")

    def end(self, why: str, explanation: Explanation | None = None) -> None:
        """
        Begin ending the call, for C{why}.

        @param explanation: called with how the call was ended (a phrase);
            answers what the client is told, or L{None} for a call whose
            client is not told (it cancelled).
        """
        if self.why is not None:
            return
        if why == "cancelled" and not self.cancellable and \
                self.current is not None:
            # Its client hears nothing; its deadline still ends it.
            self._logger.info("session {handle}: request {id} ({why}): not "
                              "broken; it ends as the stone answers",
                              handle=self.label, id=clipped(self.requestId),
                              why=why)
            if not self.cancelled.called:
                self.cancelled.callback(None)
            return
        self.why = why
        if self.work is not None:
            self.work.callEnding()
        self._explanation = explanation
        self._cancelTimer()
        self._escalate("soft", hard=False, then=HARD_BREAK_DELAY)
        if why == "cancelled" and not self.cancelled.called:
            self.cancelled.callback(None)

    def _escalate(self, step: str, hard: bool, then: float) -> None:
        if self.current is None or self.work is None:
            return
        gem = self.work.gem
        state = gem.callState(self.current)
        if state is None:
            return
        # The step is recorded first: ending the call can answer the
        # request before endCall returns.
        self.step = "withdrawn" if state == "queued" else step
        gem.endCall(self.current, hard)
        if state == "queued":
            return
        self._logger.info("session {handle}: request {id} ({why}): {step}",
                      handle=self.label, id=clipped(self.requestId),
                      why=self.why, step=step)
        if step == "soft":
            self._timer = self._clock.callLater(
                then, self._escalate, "hard", True, REPLACE_DELAY)
        else:
            self._timer = self._clock.callLater(then, self._replace)

    def _replace(self) -> None:
        self._timer = None
        if self.current is None or self.work is None:
            return
        self.step = "replaced"
        # The replacement is under way before the client hears: its next
        # request waits for it rather than finding the abandoned gem.
        self._replacement.replace(
            self.work, f"request {self.requestId!r} ({self.why}) took "
            "neither a soft nor a hard break")
        self.abandoned.callback(None)

    def finished(self) -> str | None:
        """
        The call is over (its result came back): stop every timer.  A
        cancelled request is answered before that, but its call goes on
        being ended until it is.

        @return: its L{endedMessage}.
        """
        self.current = None
        self._cancelTimer()
        return self.endedMessage()

    def _cancelTimer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None

    def endedMessage(self) -> str | None:
        """
        What the client is told when the server ended its request, or
        L{None} when it is told nothing.
        """
        if self._explanation is None:
            return None
        return self._explanation(
            STEPS.get(self.step, "withdrawing it before it started"))


def breakUntilOut(gem: IGemSession, clock: IReactorTime,
                  stopGem: Callable[[], object]) -> Callable[[], None]:
    """
    Clear a closing session's way out: what runs on C{gem} takes a soft
    break, then a hard one, then (if it took neither) the gem is stopped by
    C{stopGem()} from another session, so its logout runs and its login is
    given back.

    @return: a callable that stops the escalation (once the logout is
        done).
    """
    timers: list[IDelayedCall] = []

    def step(hard: bool, then: float, nextStep: Callable[[], object]
             ) -> None:
        gem.interrupt(hard)
        timers[:] = [clock.callLater(then, nextStep)]

    def stop() -> None:
        if gem.busy:
            stopGem()

    def hard() -> None:
        if gem.busy:
            step(True, REPLACE_DELAY, stop)

    step(False, HARD_BREAK_DELAY, hard)

    def cancel() -> None:
        for timer in timers:
            if timer.active():
                timer.cancel()

    return cancel


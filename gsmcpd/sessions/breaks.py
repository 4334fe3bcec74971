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

from twisted.internet.defer import Deferred
from twisted.logger import Logger

HARD_BREAK_DELAY = 2.0
"""Seconds from the soft break to the hard one; never under 0.3."""
REPLACE_DELAY = 3.0
"""Seconds from the hard break to giving the session up."""

STEPS = {
    "soft": "a soft break (the GemStone session and its uncommitted changes "
            "survive)",
    "hard": "a hard break (the GemStone session and its uncommitted changes "
            "survive)",
    "replaced": "replacing the GemStone session, since the call took neither "
                "a soft nor a hard break (its uncommitted changes were lost)",
}


class RunningCall:
    """
    One client request in flight, and how to end it.

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
    @ivar progress: called as C{progress(progress, total, message)} by a
        tool that can say how far it has got; a no-op unless the client
        asked for progress.
    @ivar sink: the call's own event stream (see
        L{gsmcpd.transport.sse.CallStream})
        when the request is answered as one, else L{None}.
    @ivar pending: the server's outstanding requests to clients.
    """

    log = Logger()

    def __init__(self, session, requestId, registry, clock):
        self.session = session
        self.requestId = requestId
        self._registry = registry
        self._clock = clock
        self._timer = None
        self.current = None
        self.why = None
        self.step = None
        self.pinnedBacklog = None
        self.abandoned = Deferred()
        self.cancelled = Deferred()
        self.progress = lambda progress, total=None, message=None: None
        self.wantsProgress = False
        self.sink = None
        self.pending = None

    def logToClient(self, level, data, logger=None):
        """
        A log message for the client, on this call's stream.
        """
        if self.sink is None or not self.session.wantsLog(level):
            return
        params = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        self.sink.post({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": params})

    def request(self, method, params):
        """
        A request to the client on this call's stream; fires with its
        result.
        """
        return self.pending.send(self.session, method, params, via=self.sink)

    def setDeadline(self, seconds):
        """
        End the call if it has not finished within C{seconds}.
        """
        self._timer = self._clock.callLater(seconds, self.end, "deadline")

    def end(self, why):
        """
        Begin ending the call, for C{why}.
        """
        if self.why is not None:
            return
        self.why = why
        self._cancelTimer()
        self._escalate("soft", hard=False, then=HARD_BREAK_DELAY)
        if why == "cancelled" and not self.cancelled.called:
            self.cancelled.callback(None)

    def _escalate(self, step, hard, then):
        gem = self.session.gem
        state = None if self.current is None else gem.callState(self.current)
        if state is None:
            return
        # The step is recorded first: ending the call can answer the
        # request before endCall returns.
        self.step = "withdrawn" if state == "queued" else step
        gem.endCall(self.current, hard)
        if state == "queued":
            return
        self.log.info("session {handle}: request {id!r} ({why}): {step}",
                      handle=self.session.handle, id=self.requestId,
                      why=self.why, step=step)
        if step == "soft":
            self._timer = self._clock.callLater(
                then, self._escalate, "hard", True, REPLACE_DELAY)
        else:
            self._timer = self._clock.callLater(then, self._replace)

    def _replace(self):
        self._timer = None
        if self.current is None:
            return
        self.step = "replaced"
        # The replacement is under way before the client hears: its next
        # request waits for it rather than finding the abandoned gem.
        self._registry.replaceGem(
            self.session, f"request {self.requestId!r} ({self.why}) took "
            "neither a soft nor a hard break")
        self.abandoned.callback(None)

    def finished(self):
        """
        The call is over (its result came back): stop every timer.  A
        cancelled request is answered before that, but its call goes on
        being ended until it is.
        """
        self.current = None
        self._cancelTimer()

    def _cancelTimer(self):
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None

    def endedMessage(self, deadline, pinnedGrace):
        """
        What the client is told when the server ended its request.
        """
        how = STEPS.get(self.step, "withdrawing it before it started")
        if self.why == "pinned":
            return (f"The request held the repository's oldest commit "
                    f"record for over {pinnedGrace:g}s while "
                    f"{self.pinnedBacklog} commit records waited on it, "
                    f"and was ended by {how}.")
        return (f"The request ran past its {deadline:g}s deadline and was "
                f"ended by {how}.")

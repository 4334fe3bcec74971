"""
Warm read sessions: the short-lived sessions of reads made without a
session handle, kept idle for the next such read of the same GemStone user.

A login spawns a gem on a real stone (tens to hundreds of milliseconds), so
a read that logs in and out pays for both.  A read's session that ended
cleanly waits here instead, for at most L{IDLE_LIMIT} seconds; the next read
of its GemStone user takes it after one C{abort} (a read never holds
changes, and must see the newest commit).  An idle session keeps its slot
under C{--max-sessions}, but gives it up to any new session that would
otherwise be refused (L{WarmSessions.evict}).
"""

from twisted.internet.defer import succeed
from twisted.logger import Logger

from gsmcpd.sessions.client import userOf
from gsmcpd.tools.base import ToolCall
from gsmcpd.tools.templates.outcomes import FAILURES

IDLE_LIMIT = 30.0
"""Seconds an idle read session is kept: long enough for an agent's burst
of reads, short enough that the view it holds (a commit record the stone
cannot dispose of) and its login are not held for long by nobody."""


class WarmSessions:
    """
    The idle read sessions of a L{SessionRegistry}, per GemStone user.

    @ivar perUser: most idle sessions kept per GemStone user; 0 keeps none.
    """

    log = Logger()

    def __init__(self, registry, clock, perUser, idleLimit=IDLE_LIMIT):
        self._registry = registry
        self._clock = clock
        self.perUser = perUser
        self.idleLimit = idleLimit
        self._idle = {}
        self._timers = {}

    def __len__(self):
        return len(self._timers)

    def take(self, user):
        """
        An idle session of GemStone user C{user}, its view moved to the
        newest commit.

        @return: L{None} when none is idle; else a L{Deferred} firing with
            the session, or with L{None} when its view could not be moved
            (it is then closed).
        """
        idle = self._idle.get(user)
        if not idle:
            return None
        session = idle.pop()
        self._timers.pop(session.handle).cancel()

        def moved(_):
            session.ledger.viewMoved()
            del session.view.notices[:]
            self._registry.touch(session)
            return session

        def failed(failure):
            # Whatever went wrong, the session is neither idle nor lent
            # any more: it is closed, and the read logs one in.
            if failure.check(*FAILURES):
                self.log.warn("session {handle}: moving an idle read "
                              "session's view: {error}",
                              handle=session.label, error=failure.value)
            else:
                self.log.failure("session {handle}: moving an idle read "
                                 "session's view", failure,
                                 handle=session.label)
            return self._registry.close(
                session.handle, "its view could not be moved for a read",
                code="view_stuck").addCallback(lambda _: None)

        return ToolCall(session.gem, session.ledger).runTemplate(
            "abort", {}).addCallbacks(moved, failed)

    def keep(self, session, why):
        """
        A read's session is done: keep it idle if its call ended cleanly
        and there is room, else close it for C{why}.
        """
        if not (self.perUser and self._reusable(session)):
            return self._registry.close(session.handle, why,
                                        code="read_done")
        user = userOf(session.principal)
        idle = self._idle.setdefault(user, [])
        idle.append(session)
        self._timers[session.handle] = self._clock.callLater(
            self.idleLimit, self._registry.close, session.handle,
            f"idle for {self.idleLimit:g}s after its read", code="read_idle")
        if len(idle) > self.perUser:
            return self._registry.close(
                idle[0].handle, f"more than {self.perUser} idle read "
                "sessions of its GemStone user", code="read_surplus")
        return succeed(None)

    def _reusable(self, session):
        """
        Whether C{session}'s call ended cleanly: the session is still
        registered, no call of it was ended (a break, a cancellation, a
        deadline, a replacement) and its gem is idle.
        """
        return self._registry.get(session.handle) is session and \
            not session.calls.ended and session.calls.replacing is None and \
            not session.busy

    def forget(self, session):
        """
        C{session} is being closed: it is no longer idle.
        """
        timer = self._timers.pop(session.handle, None)
        if timer is None:
            return
        if timer.active():
            timer.cancel()
        self._idle[userOf(session.principal)].remove(session)

    def evict(self):
        """
        Close the longest-idle session, to give its slot to a new one.

        @return: a L{Deferred} firing once it is logged out (its slot is
            then free), or L{None} when no session is idle.
        """
        idle = [s for sessions in self._idle.values() for s in sessions]
        if not idle:
            return None
        oldest = min(idle, key=lambda s: self._timers[s.handle].getTime())
        return self._registry.close(oldest.handle,
                                    "a new session needed its slot",
                                    code="evicted")

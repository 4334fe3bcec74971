"""
Throwaway sessions, and keeping them warm: the short-lived sessions of
calls made without a session handle, their commits locked from their login
(L{lockCommits}), kept idle for the next such call of the same GemStone
user.

A login spawns a gem on a real stone (tens to hundreds of milliseconds), so
a call that logs in and out pays for both.  A call's session that ended
cleanly waits here instead, for at most L{IDLE_LIMIT} seconds; the work of
a call that could change something is aborted first, so nothing it changed
outlives it.  The next call of its GemStone user takes it after one more
C{abort} (it must see the newest commit).  An idle session keeps its slot
under C{--max-sessions}, but gives it up to any new session that would
otherwise be refused (L{WarmSessions.evict}).
"""

from twisted.internet.defer import succeed
from twisted.logger import Logger

from gsmcpd.sessions.work import userOf
from gsmcpd.tools.base import ToolCall
from gsmcpd.tools.templates.outcomes import FAILURES

THROWAWAY_REASON = (
    "this is a throwaway session (a call made without a session handle): "
    "nothing it does is kept. Call open_session and pass its handle as "
    "'session' to keep your work")
"""Why a throwaway session's commits are locked: what a commit the user's
own code sends is refused with (GemStone's TransactionError 2249)."""

IDLE_LIMIT = 30.0
"""Seconds an idle read session is kept: long enough for an agent's burst
of reads, short enough that the view it holds (a commit record the stone
cannot dispose of) and its login are not held for long by nobody."""


def lockCommits(session, reason=THROWAWAY_REASON):
    """
    Lock C{session}'s commits for as long as it is logged in
    (C{System disableCommitsWithReason:}), a commit then refused with
    C{reason}: a throwaway session's work is aborted when its call ends,
    and this makes sure nothing commits before that either (and
    C{--read-only} locks every session so).

    @return: a L{Deferred} firing once the lock is armed.
    """
    return ToolCall(session.gem).runTemplate(
        "disable_commits", {"reason": reason})


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

    def take(self, principal):
        """
        An idle session of C{principal}'s GemStone user, its view moved to
        the newest commit, lent to C{principal} (the caller whose share it
        counts in).

        @return: L{None} when none is idle; else a L{Deferred} firing with
            the session, or with L{None} when its view could not be moved
            (it is then closed).
        """
        idle = self._idle.get(userOf(principal))
        if not idle:
            return None
        session = idle.pop()
        self._timers.pop(session.handle).cancel()
        self._registry.shares.lent(session, principal)

        def moved(aborted):
            if not aborted:
                return None
            del session.view.notices[:]
            self._registry.touch(session)
            return session

        return self._aborted(session, "its view could not be moved for a "
                             "read").addCallback(moved)

    def _aborted(self, session, why):
        """
        Abort C{session}'s transaction: its changes discarded, its view the
        newest commit.

        @return: a L{Deferred} firing with C{True}, or with C{False} once
            the session is closed for C{why} because the abort failed
            (whatever went wrong, the session cannot be lent again).
        """
        def aborted(_):
            session.transactionEnded()
            return True

        def failed(failure):
            if failure.check(*FAILURES):
                self.log.warn("session {handle}: aborting a throwaway "
                              "session: {error}",
                              handle=session.label, error=failure.value)
            else:
                self.log.failure("session {handle}: aborting a throwaway "
                                 "session", failure, handle=session.label)
            return self._registry.close(
                session.handle, why, code="view_stuck").addCallback(
                    lambda _: False)

        return ToolCall(session.gem, session.ledger).runTemplate(
            "abort", {}).addCallbacks(aborted, failed)

    def keep(self, session, why, changed=False):
        """
        A throwaway session's call is done: keep it idle if the call ended
        cleanly and there is room, else close it for C{why} (a logout
        discards its work).

        @param changed: whether the call may have changed something (a tool
            not annotated read-only): its work is then aborted before the
            session is idle, so no change outlives the call.
        """
        if not (self.perUser and self._reusable(session)):
            return self._registry.close(session.handle, why,
                                        code="read_done")
        kept = self._idled(session)
        if changed:
            # Queued on its gem at once, ahead of the abort of whichever
            # call takes it next (which may arrive before this one is done).
            self._aborted(session, why)
        return kept

    def _idled(self, session):
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

    def holds(self, session):
        """
        Whether C{session} is idle here: the server's, not its client's.
        """
        return session.handle in self._timers

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

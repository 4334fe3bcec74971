"""
Throwaway sessions, and keeping them warm: the short-lived sessions of
calls made without a session handle, their commits locked from their login
(L{lockCommits}), each serving one call and logged out after it.

Nothing one call leaves in its session may reach the next, whoever makes
it: not its uncommitted changes, nor what an abort keeps (C{SessionTemps},
the symbol list, the transaction mode, a process it forked).  GemStone
cannot reset all of a session's state from outside, so a used session is
never used again: its logout discards everything.

A login spawns a gem on a real stone (tens to hundreds of milliseconds), so
the pool logs spares in ahead, each on its own thread: once a call's
session ended cleanly and is logged out, a spare for its GemStone user
replaces it, idle for at most L{IDLE_LIMIT} seconds.  Only sessions never
used for a call wait here.  The next call of that user takes one after an
C{abort} (it must see the newest commit).  An idle session keeps its slot
under C{--max-sessions}, but gives it up to any new session that would
otherwise be refused (L{WarmSessions.evict}); so does a spare still logging
in, once its login is over.
"""

from collections import Counter
from typing import TYPE_CHECKING

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.auth.tokens import Principal
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.pool import ServerStopping, SessionLimitReached
from gsmcpd.sessions.interfaces import ISessionCloser, IWorkSession
from gsmcpd.sessions.shares import Shares
from gsmcpd.sessions.table import WorkSessions
from gsmcpd.sessions.work import WorkSession, userOf
from gsmcpd.tools.base import ToolCall
from gsmcpd.tools.templates.outcomes import FAILURES, ToolError

if TYPE_CHECKING:
    # The logins lock a throwaway session's commits with lockCommits.
    from gsmcpd.sessions.logins import Logins

THROWAWAY_REASON = (
    "this is a throwaway session (a call made without a session handle): "
    "nothing it does is kept. Call open_session and pass its handle as "
    "'session' to keep your work")
"""Why a throwaway session's commits are locked: what a commit the user's
own code sends is refused with (GemStone's TransactionError 2249)."""

IDLE_LIMIT = 30.0
"""Seconds an idle session is kept: long enough for an agent's burst
of calls, short enough that the view it holds (a commit record the stone
cannot dispose of) and its login are not held for long by nobody."""


def lockCommits(session: WorkSession, reason: str = THROWAWAY_REASON
                ) -> Deferred[object]:
    """
    Lock C{session}'s commits for as long as it is logged in
    (C{System disableCommitsWithReason:}), a commit then refused with
    C{reason}: a throwaway session is logged out when its call ends, its
    work with it, and this makes sure nothing commits before that (and
    C{--read-only} locks every session so).

    @return: a L{Deferred} firing once the lock is armed.
    """
    return ToolCall(session.gem).runTemplate(
        "disable_commits", {"reason": reason})


class WarmSessions:
    """
    The idle throwaway sessions, never used for a call, per GemStone
    user.  An idle one is the server's: it counts in no identity's share
    until it is lent.

    @ivar perUser: most spares per GemStone user, idle or logging in; 0
        logs none in.
    """

    log = Logger()

    def __init__(self, work: WorkSessions, logins: "Logins", shares: Shares,
                 closer: ISessionCloser, clock: IReactorTime, perUser: int,
                 idleLimit: float = IDLE_LIMIT) -> None:
        """
        @param logins: logs the spares in.
        @param closer: logs sessions out (used, unused too long, evicted).
        """
        self._work = work
        self._logins = logins
        self._shares = shares
        self._closer = closer
        self._clock = clock
        self.perUser = perUser
        self.idleLimit = idleLimit
        self._idle: dict[str | None, list[WorkSession]] = {}
        self._timers: dict[str, IDelayedCall] = {}
        self._coming: Counter[str | None] = Counter()
        self._claims: list[Deferred[None]] = []

    def __len__(self) -> int:
        return len(self._timers)

    def take(self, principal: Principal | None
             ) -> "Deferred[WorkSession | None] | None":
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
        self._shares.lent(session, principal)

        def moved(aborted: bool) -> WorkSession | None:
            if not aborted:
                return None
            session.takeNotices()
            self._work.touch(session)
            return session

        return self._aborted(session, "its view could not be moved for a "
                             "call").addCallback(moved)

    def _aborted(self, session: WorkSession, why: str) -> Deferred[bool]:
        """
        Abort C{session}'s transaction (a spare's has no changes): its view
        the newest commit.

        @return: a L{Deferred} firing with C{True}, or with C{False} once
            the session is closed for C{why} because the abort failed
            (whatever went wrong, the session cannot be lent again).
        """
        def aborted(_: object) -> bool:
            session.transactionEnded()
            return True

        def failed(failure: Failure) -> Deferred[bool]:
            if failure.check(*FAILURES):
                self.log.warn("session {handle}: aborting a throwaway "
                              "session: {error}",
                              handle=session.label, error=failure.value)
            else:
                self.log.failure("session {handle}: aborting a throwaway "
                                 "session", failure, handle=session.label)
            return self._closer.close(
                session.handle, why, code="view_stuck").addCallback(
                    lambda _: False)

        return ToolCall(session.gem, session.ledger).runTemplate(
            "abort", {}).addCallbacks(aborted, failed)

    def giveBack(self, session: IWorkSession, why: str) -> Deferred[None]:
        """
        A throwaway session's call is done: log it out for C{why}, since
        nothing the call left in it may reach another call; and if the
        call ended cleanly, log a spare in for the next call of its
        GemStone user (L{_spare}) once its slot is free.

        @return: a L{Deferred} firing once it is logged out.
        """
        clean = self.perUser and self._endedCleanly(session)
        closing = self._closer.close(session.handle, why, code="read_done")
        if clean:
            closing.addCallback(lambda _: self._spare(session.principal))
        return closing

    def _spare(self, principal: Principal | None) -> None:
        """
        Log in a session never used for a call, as C{principal}'s GemStone
        user, to idle here; unless that user has C{perUser} idle or coming
        already, or no slot is free (a call logs in then, as without the
        pool).
        """
        user = userOf(principal)
        if len(self._idle.get(user, ())) + self._coming[user] >= self.perUser:
            return
        try:
            logging = self._logins.logIn(principal, throwaway=True)
        except (SessionLimitReached, ServerStopping):
            return
        self._coming[user] += 1

        def arrived(session: WorkSession) -> None:
            self._coming[user] -= 1
            if self._claims:
                self._evicted(session).chainDeferred(self._claims.pop(0))
            else:
                self._idled(session)

        def failed(failure: Failure) -> None:
            # The next call logs in itself; the registry logged a refused
            # login, not a bug.  Its slot is free: a new session waiting
            # for it logs in.
            self._coming[user] -= 1
            if not failure.check(GciError, ToolError):
                self.log.failure("logging a spare session in", failure)
            if self._claims:
                self._claims.pop(0).callback(None)
        logging.addCallbacks(arrived, failed)

    def _idled(self, session: WorkSession) -> None:
        # The server's from now on: in no identity's share until lent.
        self._shares.closed(session)
        self._idle.setdefault(userOf(session.principal), []).append(session)
        self._timers[session.handle] = self._clock.callLater(
            self.idleLimit, self._closer.close, session.handle,
            f"idle for {self.idleLimit:g}s, unused", code="read_idle")

    def _endedCleanly(self, session: IWorkSession) -> bool:
        """
        Whether C{session}'s call ended cleanly: the session is still
        registered, no call of it was ended (a break, a cancellation, a
        deadline, a replacement) and its gem is idle.
        """
        live = self._work.get(session.handle)
        return live is session and live is not None and \
            not live.calls.ended and not live.replacing and not live.busy

    def yielding(self) -> int:
        """
        The slots spares would give up to new sessions (L{evict}): one per
        idle spare, and per spare logging in that no new session claimed.
        """
        return len(self) + sum(self._coming.values()) - len(self._claims)

    def forget(self, session: WorkSession) -> None:
        """
        C{session} is being closed: it is no longer idle.
        """
        timer = self._timers.pop(session.handle, None)
        if timer is None:
            return
        if timer.active():
            timer.cancel()
        self._idle[userOf(session.principal)].remove(session)

    def evict(self) -> Deferred[None] | None:
        """
        Close the longest-idle session, to give its slot to a new one; or,
        none idle, claim a spare still logging in that no other new session
        claimed, and close it once its login is over (a login cannot be
        cut short), so that a spare never makes a new session be refused.

        @return: a L{Deferred} firing once the slot is free (the spare is
            logged out, or its login failed), or L{None} when no session is
            idle or coming unclaimed.
        """
        idle = [s for sessions in self._idle.values() for s in sessions]
        if idle:
            return self._evicted(
                min(idle, key=lambda s: self._timers[s.handle].getTime()))
        if len(self._claims) >= sum(self._coming.values()):
            return None
        claim: Deferred[None] = Deferred()
        self._claims.append(claim)
        return claim

    def _evicted(self, session: WorkSession) -> Deferred[None]:
        return self._closer.close(session.handle,
                                  "a new session needed its slot",
                                  code="evicted")

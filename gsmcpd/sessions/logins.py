"""
Logins: a new work session's GemStone session logged in, prepared and
registered (L{Logins}); and what a client waits on when it opens one: its
share, a slot a spare gives up, a deadline (L{SessionOpener}).
"""

from collections.abc import Callable, Iterable
from typing import Any

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.auth.tokens import Principal
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IGemSession, ISessionPool
from gsmcpd.gci.pool import SessionLimitReached
from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.logformat import describeClient
from gsmcpd.observe.metrics import UNOBSERVED, Metrics
from gsmcpd.sessions.interfaces import ISessionCloser, JsonObject
from gsmcpd.sessions.shares import Shares
from gsmcpd.sessions.table import WorkSessions
from gsmcpd.sessions.warm import WarmSessions, lockCommits
from gsmcpd.sessions.work import WorkSession, newHandle, userOf
from gsmcpd.tools.templates.outcomes import ToolError

Preparation = Callable[[WorkSession], "Deferred[Any] | None"]
"""What the daemon does to each new (or replacement) session before it
serves: name its gem, lock its commits under --read-only."""


class LoginNotAnswered(Exception):
    """
    The stone did not answer a session's login within the opener's
    C{loginDeadline}; the login itself runs on to its end.
    """

    def __init__(self, deadline: float) -> None:
        super().__init__(f"the stone did not answer a login in {deadline:g}s")
        self.deadline = deadline


def unprepared(session: WorkSession) -> None:
    """Without a preparation a session is served as it logged in."""


class Logins:
    """
    Logs in, prepares and registers the GemStone session of each new work
    session.
    """

    log = Logger()

    def __init__(self, pool: ISessionPool, clock: IReactorTime,
                 work: WorkSessions, prepare: Preparation = unprepared,
                 onCommit: Iterable[Callable[[list[str]], object]] = (),
                 metrics: Metrics = UNOBSERVED) -> None:
        """
        @param work: where a session logged in is registered.
        @param prepare: called with each new L{WorkSession} before it is
            registered (to name its gem, say); may answer a L{Deferred}.
        @param onCommit: called with the resource URIs each commit changed.
        """
        self._pool = pool
        self._clock = clock
        self._work = work
        self._prepare = prepare
        self._onCommit = tuple(onCommit)
        self._metrics = metrics

    def logIn(self, principal: Principal | None = None,
              clientInfo: JsonObject | None = None,
              throwaway: bool = False) -> Deferred[WorkSession]:
        """
        Log a GemStone session in as the GemStone user C{principal} names,
        prepare and register it: without shares, eviction or deadline (the
        warm pool's spares, awaited by nobody, log in so).

        @param clientInfo: what its client said it is, for the log.
        @param throwaway: whether it serves one call
            (L{WorkSession.throwaway}).
        @raise gsmcpd.gci.pool.SessionLimitReached: synchronously when the
            pool is full.
        """
        handle = newHandle()
        d = self._pool.open(name=handle[:8], user=userOf(principal))

        def opened(gem: IGemSession) -> Deferred[WorkSession]:
            session = WorkSession(handle, gem, principal,
                                  self._clock.seconds(), throwaway,
                                  self._onCommit)
            prepared = self.prepared(session)
            # A session its preparation refused (no commit lock, say) is
            # never served: its GemStone session goes back.
            prepared.addErrback(lambda failure: self._pool.close(gem).addBoth(
                lambda _: failure))
            return prepared.addCallback(lambda _: register(session))

        def register(session: WorkSession) -> WorkSession:
            self._metrics.logins.labels("ok").inc()
            self._work.add(session)
            self.log.info("session {handle} opened for {client}",
                          handle=session.label,
                          client=clipped(describeClient(clientInfo)))
            return session

        return d.addCallback(opened).addErrback(self._failed)

    def prepared(self, session: WorkSession) -> Deferred[object]:
        """
        Prepare a new (or replacement) GemStone session before it serves:
        for a throwaway session, the stone's commit lock (L{lockCommits}),
        so that nothing its calls do is kept, not even a commit the user's
        own code sends; then the daemon's preparation (whose own lock,
        --read-only's, has the last word on the reason given).
        """
        if not session.throwaway:
            return maybeDeferred(self._prepare, session)
        return lockCommits(session).addCallback(
            lambda _: self._prepare(session))

    def _failed(self, failure: Failure) -> Failure:
        """
        Count and log a login that failed (the client is told less: the
        log keeps the GemStone error's reason).
        """
        self._metrics.logins.labels("failed").inc()
        error = failure.value
        if isinstance(error, GciError):
            self.log.error("GemStone login failed: {error} ({reason})",
                           error=error, reason=error.reason)
        elif isinstance(error, ToolError):
            # A step of the daemon's own: minting the user's one-time
            # password, or preparing the session (its gem's name, the
            # commit lock of a throwaway or --read-only session).
            self.log.error("GemStone login failed: the daemon could not "
                           "mint the user's one-time password or prepare "
                           "the new session: {error}",
                           error=error.message)
        return failure


class SessionOpener:
    """
    Opens the work sessions clients ask for: within their identity's
    share, in a slot an idle spare gives up if none is free, and answered
    within a deadline.

    @ivar loginDeadline: seconds a client waits for its login before it is
        told the stone is not answering (L{LoginNotAnswered}), or L{None}.
    """

    log = Logger()

    def __init__(self, logins: Logins, warm: WarmSessions, shares: Shares,
                 closer: ISessionCloser, clock: IReactorTime,
                 metrics: Metrics = UNOBSERVED,
                 loginDeadline: float | None = None) -> None:
        self._logins = logins
        self._warm = warm
        self._shares = shares
        self._closer = closer
        self._clock = clock
        self._metrics = metrics
        self.loginDeadline = loginDeadline

    def open(self, principal: Principal | None = None,
             clientInfo: JsonObject | None = None,
             throwaway: bool = False) -> Deferred[WorkSession]:
        """
        Log a GemStone session in: as the GemStone user C{principal} names,
        with authentication (L{Logins.logIn}).

        @return: a L{Deferred} firing with the registered L{WorkSession}.
        @raise gsmcpd.gci.pool.SessionLimitReached: synchronously when the
            pool is full and no spare, idle or logging in, can give up
            its slot; no login is attempted.
        @raise gsmcpd.sessions.shares.ShareExhausted: synchronously when
            C{principal}'s identity holds its share of sessions.
        """
        self._shares.admitSession(principal)
        d: Deferred[Any]
        try:
            d = self._logins.logIn(principal, clientInfo, throwaway)
        except SessionLimitReached:
            # A spare's slot frees once it is logged out (a spare still
            # logging in, once its login is over); the login is then
            # attempted at once, before anything else runs, so no other
            # opener can take that slot first.
            evicted = self._warm.evict()
            if evicted is None:
                self._metrics.logins.labels("refused").inc()
                raise
            d = evicted.addBoth(lambda _: self._logins.logIn(
                principal, clientInfo, throwaway))
        loginOver = self._shares.opening(principal)
        return self._withinDeadline(d.addBoth(lambda outcome: (
            loginOver(), outcome)[1]))

    def _withinDeadline(self, opening: Deferred[WorkSession]
                        ) -> Deferred[WorkSession]:
        """
        What a client waits on for C{opening}: it, or L{LoginNotAnswered}
        once C{loginDeadline} passes.  The login is not abandoned: its slot
        stays taken until it really ends (so the cap holds and no slot
        leaks), and a session it opens for nobody is closed at once.
        """
        deadline = self.loginDeadline
        if deadline is None:
            return opening
        answer: Deferred[WorkSession] = Deferred()

        def late() -> None:
            if not answer.called:
                self.log.warn("the stone has not answered a login for "
                              "{deadline:g}s; its client is told so",
                              deadline=deadline)
                answer.errback(LoginNotAnswered(deadline))

        timer = self._clock.callLater(deadline, late)

        def ended(outcome: WorkSession | Failure) -> Deferred[None] | None:
            if timer.active():
                timer.cancel()
            if not answer.called:
                if isinstance(outcome, Failure):
                    answer.errback(outcome)
                else:
                    answer.callback(outcome)
            elif isinstance(outcome, WorkSession):
                return self._closer.close(
                    outcome.handle, "its login answered after its client "
                    "stopped waiting", code="abandoned")
            return None

        opening.addBoth(ended)
        return answer

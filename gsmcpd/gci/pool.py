"""
The GCI session pool: every GemStone login the daemon holds, and its cap.

A session is a GemStone login, and a stone has a finite number of them: the
login that exhausts a stone fails for every gem on it, topaz included.  So
the pool refuses past its cap before attempting a login, and gives a slot
back once the session is logged out, whether it was closed or its login
failed.
"""

from collections.abc import Callable
from typing import Any, TypeVar, cast

from twisted.internet.defer import Deferred, DeferredList, maybeDeferred, succeed
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure
from zope.interface import implementer

from gsmcpd.gci.deliveries import ResultDeliveries
from gsmcpd.gci.interfaces import IGemSession, ISessionPool
from gsmcpd.gci.library import GciLibrary
from gsmcpd.gci.session import GemSession, LoginParameters, shielded

Credentials = Callable[[str | None], "LoginParameters | Deferred[LoginParameters]"]

_T = TypeVar("_T")


class SessionLimitReached(Exception):
    """
    The pool already holds as many sessions as it may.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"this server already has its maximum of {limit} GemStone "
            f"session{'s' if limit != 1 else ''} open; close one (or raise "
            "--max-sessions) and try again")
        self.limit = limit


class ServerStopping(Exception):
    """
    The daemon is draining before it stops: it opens no new session, while
    the sessions it holds keep being served until it stops.
    """

    kind = "serverStopping"

    def __init__(self) -> None:
        super().__init__(
            "this server is stopping and opens no new session; start a new "
            "session again (behind a load balancer it reaches another server)")


@implementer(ISessionPool)
class GemSessionPool:
    """
    Opens, counts and closes L{GemSession}s.

    @ivar maxSessions: the cap, or L{None} for none.
    @param credentials: called before each login with the GemStone user
        to log in as (L{None}: the default) for its L{LoginParameters} (or a
        L{Deferred} of them); by default the daemon's own C{login}.
    @param answered: called after each login that succeeded: news that the
        stone answers.

    Its sessions share one L{ResultDeliveries}, so results that arrive
    together wake the reactor once.
    """

    breakInterval = 1.0
    """Seconds between the hard breaks that clear a busy session's way out;
    well over the 300 ms GemStone needs between two breaks."""

    def __init__(self, library: GciLibrary, login: LoginParameters,
                 reactor: Any, maxSessions: int | None,
                 credentials: Credentials | None = None,
                 answered: Callable[[], object] = lambda: None) -> None:
        self._library = library
        self._reactor = reactor
        self._deliveries = ResultDeliveries(reactor)
        self.maxSessions = maxSessions
        self._credentials = credentials or (lambda user: login)
        self._answered = answered
        self._sessions: set[IGemSession] = set()
        self._closing: set[IGemSession] = set()
        self._opening = 0
        self.stopping = False

    def refuseNew(self) -> None:
        """
        Open no new session from now on (L{open} raises L{ServerStopping});
        a busy session's replacement still logs in, in its own slot.
        """
        self.stopping = True

    def __len__(self) -> int:
        return len(self._sessions) + self._opening

    def open(self, name: str, user: str | None = None) -> Deferred:
        """
        Log a new session in, as C{user} (L{None}: the default user).

        @return: a L{Deferred} firing with the logged-in L{GemSession}.
        @raise SessionLimitReached: synchronously, with no login attempted,
            when the pool is full.
        @raise ServerStopping: synchronously, once told to L{refuseNew}.
        """
        if self.stopping:
            raise ServerStopping()
        if self.maxSessions is not None and len(self) >= self.maxSessions:
            raise SessionLimitReached(self.maxSessions)
        return self._loggedIn(name, user)

    def _loggedIn(self, name: str, user: str | None) -> Deferred:
        """
        A new logged-in session, with fresh credentials (a worker user's
        one-time password, say).
        """
        def login(parameters: LoginParameters) -> Deferred[GemSession]:
            gem = GemSession(self._library, parameters, self._reactor, name,
                             self._deliveries)
            self._sessions.add(gem)

            def failed(failure: Failure) -> Deferred[GemSession]:
                # A failed or cancelled login may still hold its login on
                # the stone: the slot is free once the logout is done,
                # whoever stops waiting for it.
                def released(_: object) -> Failure:
                    self._sessions.discard(gem)
                    return failure
                return shielded(gem.logout().addBoth(released))

            def loggedIn(_: None) -> GemSession:
                self._answered()
                return gem

            return gem.login().addCallbacks(loggedIn, failed)

        # The slot is counted while the credentials are minted, then as the
        # session itself: never both at once.
        self._opening += 1

        def minted(result: LoginParameters | Failure
                   ) -> LoginParameters | Failure:
            self._opening -= 1
            return result

        # maybeDeferred chains a Deferred the credentials answer.
        minting = cast("Deferred[LoginParameters]",
                       maybeDeferred(self._credentials, user))
        return minting.addBoth(minted).addCallback(login)

    def replace(self, gem: IGemSession, name: str,
                user: str | None = None) -> Deferred:
        """
        Abandon C{gem} (its call took no break) and log a new session in
        for its owner (as C{user}), in its slot.

        @return: a L{Deferred} firing with the new L{GemSession}.
        """
        gem.abandon("replaced after its call took neither break")
        self._sessions.discard(gem)
        self._closing.discard(gem)
        return self._loggedIn(name, user)

    def close(self, gem: IGemSession) -> Deferred[None]:
        """
        Log C{gem} out; its slot comes back once the stone has it back.
        """
        if gem not in self._sessions or gem in self._closing:
            return succeed(None)
        self._closing.add(gem)

        def released(result: _T) -> _T:
            self._sessions.discard(gem)
            self._closing.discard(gem)
            return result

        # The caller may stop waiting (a DELETE whose client gave up); the
        # logout, and so the slot, does not depend on it.
        return shielded(gem.logout().addBoth(released))

    def closeAll(self) -> Deferred:
        """
        Log every session out, hard-breaking what runs (again each
        L{breakInterval}, since a break sent before a queued call starts is
        lost) so no logout waits behind a call that never ends.  A session
        already logging out is left to whoever closes it, who escalates its
        breaks at their own pace (a soft and a hard break sent together
        can crash libgcits).
        """
        closing = []
        for gem in list(self._sessions - self._closing):
            breaking = LoopingCall(gem.interrupt, hard=True)
            breaking.clock = self._reactor
            if gem.busy:
                breaking.start(self.breakInterval)
            d = self.close(gem)
            d.addBoth(_stopped, breaking)
            closing.append(d)
        return DeferredList(closing, consumeErrors=True)


def _stopped(result: object, breaking: LoopingCall) -> object:
    if breaking.running:
        breaking.stop()
    return result

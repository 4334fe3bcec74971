"""
The session registry: the live work sessions, keyed by an opaque handle,
and the 2025 clients' sessions working in them, as parts with one job each
(L{SessionRegistry}), assembled here; and closing a session, which each
part hears of.

The 2025 transport hands a client session's handle out as
C{MCP-Session-Id}, the 2026 era as the C{session} argument of its tools;
nothing below the transport knows either.
"""

from collections.abc import Callable, Iterable
from typing import Any

from twisted.internet.defer import Deferred, DeferredList, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from gsmcpd.gci.interfaces import ISessionPool
from gsmcpd.gci.session import shielded
from gsmcpd.observe.metrics import UNOBSERVED, Metrics
from gsmcpd.sessions.breaks import breakUntilOut
from gsmcpd.sessions.clients import ClientSessions
from gsmcpd.sessions.interfaces import ISessionCloser, IWorkSession
from gsmcpd.sessions.logins import (
    Logins,
    Preparation,
    SessionOpener,
    unprepared,
)
from gsmcpd.sessions.replacement import GemReplacement
from gsmcpd.sessions.shares import NO_CAPS, FairShares, Shares
from gsmcpd.sessions.table import WorkSessions
from gsmcpd.sessions.warm import WarmSessions
from gsmcpd.sessions.work import WorkSession


@implementer(ISessionCloser)
class SessionRegistry:
    """
    The sessions, by role: C{work} (the live work sessions, L{WorkSessions}),
    C{logins} (logging one in, L{Logins}), C{opener} (opening one for a
    client, within its share and the login deadline, L{SessionOpener}),
    C{clients} (the 2025 client sessions and their streams' grace,
    L{ClientSessions}), C{replacement} (L{GemReplacement}), C{warm} (the
    throwaway spares, L{WarmSessions}) and C{shares} (L{Shares}); each
    built once, here.
    """

    log = Logger()

    def __init__(self, pool: ISessionPool, clock: IReactorTime,
                 streamLossGrace: float = 10.0,
                 prepare: Preparation = unprepared,
                 stopGem: Callable[[int], object] | None = None,
                 onClose: Iterable[Callable[[WorkSession], object]] = (),
                 metrics: Metrics = UNOBSERVED, warmReads: int = 0,
                 onCommit: Iterable[Callable[[list[str]], object]] = (),
                 loginDeadline: float | None = None,
                 shares: FairShares = NO_CAPS) -> None:
        """
        @param streamLossGrace: L{ClientSessions.streamLossGrace}.
        @param prepare: L{Logins}'s preparation of each new session.
        @param stopGem: L{GemReplacement}'s way to stop an abandoned gem.
        @param onClose: called with each session as it is closed.
        @param warmReads: spares per GemStone user
            (L{WarmSessions.perUser}).
        @param onCommit: called with the resource URIs each commit changed.
        @param loginDeadline: L{SessionOpener.loginDeadline}.
        @param shares: the fair shares' caps.
        """
        self._pool = pool
        self._clock = clock
        self._metrics = metrics
        self._onClose = tuple(onClose)
        self.shares = Shares(shares)
        self.work = WorkSessions(clock, self.shares)
        self.logins = Logins(pool, clock, self.work, prepare, onCommit,
                             metrics)
        self.replacement = GemReplacement(pool, self.work, self.logins, self,
                                          stopGem)
        self.warm = WarmSessions(self.work, self.logins, self.shares, self,
                                 clock, warmReads)
        self.opener = SessionOpener(self.logins, self.warm, self.shares,
                                    self, clock, metrics, loginDeadline)
        self.clients = ClientSessions(self.opener, self.work, self, clock,
                                      streamLossGrace)

    def active(self, work: IWorkSession) -> None:
        """
        A request for C{work}: it is active, and a verdict pending on its
        2025 client's lost stream is retracted (a throwaway session is kept
        for nobody).
        """
        if work.throwaway:
            return
        self.work.touch(work)
        self.clients.retract(work.handle)

    def replaced(self, work: IWorkSession) -> Deferred[None]:
        """
        A request for C{work} while its GemStone session is being replaced
        (rare): counted as activity, it waits until the replacement is
        over; its era finds its session again then.
        """
        self.active(work)
        return work.awaitReplacement() or succeed(None)

    def close(self, handle: str, reason: str, code: str = "other"
              ) -> Deferred[None]:
        """
        Unmap the session and log its GemStone session out.  The client is
        told nothing: its next request gets 404.

        @param reason: a sentence, for the log.
        @param code: the same as a short word, for the metrics' label (one
            of L{gsmcpd.observe.metrics.SESSION_ENDINGS}).
        """
        session = self.work.get(handle)
        if session is None:
            return succeed(None)
        # Counted first: an unknown code raises before anything changed.
        self._metrics.sessionClosed(code)
        self.work.remove(session)
        self.log.info("session {handle} closed: {reason}",
                      handle=session.label, reason=reason, code=code)
        self.clients.forget(session)
        for observer in self._onClose:
            observer(session)
        self.warm.forget(session)
        busy = session.busy
        closing = self._pool.close(session.gem)
        # Its identity's share holds it until its login is given back.
        def given(result: object) -> object:
            self.shares.closed(session)
            return result

        closing.addBoth(given)
        if busy and not any(run.ending for run in session.inFlight()):
            # Its logout queues behind what runs: break that, and stop its
            # gem if it takes no break, so the login comes back.  A call
            # already being ended is left to its own escalation (which ends
            # in a replacement): two breaks at once crash libgcits.
            stopBreaking = breakUntilOut(
                session.gem, self._clock,
                lambda: self.replacement.stopAbandoned(session))
            def stop(result: object) -> object:
                stopBreaking()
                return result

            closing.addBoth(stop)
        return shielded(closing)

    def closeAll(self, reason: str, code: str = "other"
                 ) -> Deferred[list[tuple[bool, object]]]:
        """
        Close every session; fires when every GemStone session is out.
        """
        closing: list[Deferred[Any]] = [
            self.close(session.handle, reason, code) for session in self.work]
        return DeferredList(closing + [self._pool.closeAll()],
                            consumeErrors=True)

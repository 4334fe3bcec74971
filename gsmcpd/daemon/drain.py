"""
The drain before a stop.

From the moment the daemon is told to stop, no new session opens on it
(C{initialize} and C{open_session} are refused with the
C{serverStopping} error), C{/healthz} answers 404 and the agent check
C{drain}, so a load balancer sends new sessions elsewhere but still sends
it the requests of the sessions it holds (HAProxy: C{disable-on-404} and
DRAIN keep the stick table's routes, where a server marked down would
lose them); those sessions keep being served for the grace, so the calls
in flight can finish and clients can commit, and each client with an
event stream is sent a warning saying so.  Then the port closes and the
sessions are logged out: their uncommitted work is lost, and their calls
still running are answered "the server is stopping".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import deferLater
from twisted.logger import Logger

if TYPE_CHECKING:
    from gsmcpd.daemon.admin import Health
    from gsmcpd.sessions.client import ClientSession


class Drain:
    """
    @param health: the L{gsmcpd.daemon.admin.Health} the balancer reads.
    @param refuseNew: called once, to open no new session from then on
        (L{gsmcpd.gci.pool.GemSessionPool.refuseNew}).
    @param grace: seconds the held sessions are still served.
    @param clock: an C{IReactorTime}.
    @param sessions: answers the open sessions, to warn their clients.
    """

    log = Logger()

    def __init__(self, health: Health, refuseNew: Callable[[], object],
                 grace: float, clock: IReactorTime,
                 sessions: Callable[[], Iterable[ClientSession]] = tuple
                 ) -> None:
        self._health = health
        self._refuseNew = refuseNew
        self.grace = grace
        self._clock = clock
        self._sessions = sessions

    def begin(self) -> Deferred[None] | None:
        """
        Stop taking sessions; answer a L{Deferred} firing once the grace is
        over, or L{None} when there is none to wait (no grace, or the
        daemon never served).
        """
        self._health.stopping = True
        self._refuseNew()
        if self.grace > 0 and self._health.serving:
            self.log.info(
                "draining: new sessions refused; the {count} open are "
                "served for {grace:g}s more, then logged out",
                count=self._health.sessionCount(), grace=self.grace)
            self._warn()
            return deferLater(self._clock, self.grace, lambda: None)
        return None

    def _warn(self) -> None:
        """
        Tell each client listening on a stream that its session ends soon.
        """
        for session in self._sessions():
            if session.stream is not None and session.wantsLog("warning"):
                session.post({
                    "jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "warning", "logger": "gsmcpd",
                               "data": STOPPING_WARNING.format(
                                   grace=self.grace)}})


STOPPING_WARNING = (
    "this server is stopping: this session ends in {grace:g}s and its "
    "uncommitted changes are lost; commit what you mean to keep now, then "
    "start a new session")

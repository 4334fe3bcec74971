"""
The daemon's side of being operated: systemd's notifications, the health
and capacity a load balancer reads, and the drain before a stop.

It is one service of the tree, started with the listening port and stopped
before it: on stop it tells systemd C{STOPPING=1} and drains
(L{gsmcpd.daemon.drain}), so a load balancer stops sending new sessions
before the port closes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from twisted.application.service import IService, Service
from twisted.internet.defer import Deferred, DeferredList
from twisted.internet.interfaces import IListeningPort, IReactorTime
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure
from twisted.web.resource import IResource

from gsmcpd.daemon import Reactor
from gsmcpd.daemon.admin import AdminApp, AdminBeside, Health
from gsmcpd.daemon.agent import AgentFactory, Capacity
from gsmcpd.daemon.drain import Drain
from gsmcpd.daemon.listening import ObservedEndpoint, listeningService
from gsmcpd.daemon.refusal import parseEndpoint
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.daemon.systemd import SystemdNotifier
from gsmcpd.transport.connections import GuardedFactory
from gsmcpd.transport.http import McpSite

if TYPE_CHECKING:
    from gsmcpd.auth.keys import IKeySource
    from gsmcpd.daemon.options import Config
    from gsmcpd.daemon.stone import ControlSession
    from gsmcpd.gci.pool import GemSessionPool
    from gsmcpd.observe.audit import AuditLog
    from gsmcpd.observe.metrics import Metrics
    from gsmcpd.sessions.listeners import ChangeNotices
    from gsmcpd.sessions.registry import SessionRegistry

WhenListening = Callable[[], Deferred[IListeningPort]]
"""Answers a L{Deferred} of the MCP port, once it and the others listen."""

STATUS_INTERVAL = 10.0
"""Seconds between C{STATUS=} updates (the session count)."""


def _observed(reactor: Reactor, option: str,
              description: str | None) -> ObservedEndpoint | None:
    """
    The endpoint C{option} names, watched for whether it opened; L{None}
    when the option is not set.
    """
    if description is None:
        return None
    try:
        return ObservedEndpoint(parseEndpoint(reactor, description))
    except ValueError as e:
        raise ConfigError(f"{option} {description!r}: {e}")


class OperationsService(Service):
    """
    @param health: the L{gsmcpd.daemon.admin.Health} C{/healthz} reads.
    @param notifier: the L{gsmcpd.daemon.systemd.SystemdNotifier}.
    @param whenServing: answers a L{Deferred} firing once the stone has
        answered and the port is open (failing if the daemon refused).
    @param drain: the L{Drain} run between being told to stop and closing
        the port.
    """

    name = "operations"

    def __init__(self, health: Health, notifier: SystemdNotifier,
                 whenServing: Callable[[], Deferred[Any]], drain: Drain,
                 clock: IReactorTime) -> None:
        self.health = health
        self.notifier = notifier
        self._whenServing = whenServing
        self.drain = drain
        self._clock = clock
        self._status = LoopingCall(self._reportStatus)
        self._status.clock = clock

    def startService(self) -> None:
        super().startService()
        self._whenServing().addCallbacks(self._serving, lambda _: None)

    def _serving(self, port: object) -> None:
        if not self.running:
            return
        self.health.serving = True
        self.notifier.ready(self.health.summary())
        self.notifier.startWatchdog(self._clock)
        self._status.start(STATUS_INTERVAL, now=False)

    def _reportStatus(self) -> None:
        self.notifier.status(self.health.summary())

    def stopService(self) -> Deferred[None] | None:
        super().stopService()
        if self._status.running:
            self._status.stop()
        self.notifier.stopping(
            f"draining for {self.drain.grace:g}s, then logging "
            f"{self.health.sessionCount()} sessions out")
        self.notifier.stopWatchdog()
        return self.drain.begin()


class Operations:
    """
    What the service tree needs to be operated, built from the settings:
    the metrics, the health, systemd's notifier, and the admin routes with
    their port (beside C{/mcp}, or C{--admin-port}).

    @ivar metrics: the L{Metrics} every instrumented object counts into.
    """

    def __init__(self, config: Config, reactor: Reactor, metrics: Metrics,
                 sessions: SessionRegistry, pool: GemSessionPool,
                 control: ControlSession, notices: ChangeNotices,
                 environ: Mapping[str, str] | None = None,
                 signingKeys: IKeySource | None = None,
                 audit: AuditLog | None = None) -> None:
        """
        @param sessions: the L{SessionRegistry}, @param pool: the
            L{GemSessionPool}, @param control: the daemon's own
            L{ControlSession} and @param notices: the L{ChangeNotices}:
            what the gauges, the session count and the stone's
            reachability are read from.
        @param signingKeys: with authentication, the tokens' key source,
            whose having no key makes the daemon unhealthy.
        @param audit: the L{gsmcpd.observe.audit.AuditLog}, or L{None};
            a trail that cannot be written makes the daemon unhealthy.
        """
        self.metrics = metrics
        self.health = Health(lambda: len(sessions.work), control, signingKeys,
                             audit)
        if audit is not None:
            metrics.watch(auditWritable=lambda: int(audit.failure is None),
                          auditUnwritten=lambda: audit.unwritten)
        metrics.watch(
            sessionsOpen=lambda: len(sessions.work),
            sessionsOpening=lambda: len(pool) - len(sessions.work),
            sessionsWarm=lambda: len(sessions.warm),
            slotsUsed=lambda: len(pool), slotsLimit=lambda: pool.maxSessions,
            eventStreams=lambda: notices.listenStreams() + sum(
                1 for each in sessions.clients.live()
                if each.stream is not None),
            stoneReachable=lambda: int(control.unreachable is None))
        self._config = config
        self._reactor = reactor
        self._notifier = SystemdNotifier(environ)
        self._admin = AdminApp(self.health, self.metrics).resource()
        self._pool = pool
        self._sessions = sessions
        self._agentEndpoint = _observed(reactor, "--agent-port",
                                        config.agentPort)
        self._adminEndpoint = _observed(reactor, "--admin-port",
                                        config.adminPort)

    def root(self, mcp: IResource) -> IResource:
        """
        The MCP site's root resource: C{mcp}, with the admin routes beside
        it unless they have a port of their own.
        """
        if self._adminEndpoint is not None:
            return mcp
        return AdminBeside(mcp, self._admin)

    def _slotsTaken(self) -> int:
        """
        The slots a new session cannot have: a spare (warm), idle or
        logging in, gives its slot up to one.
        """
        return len(self._pool) - self._sessions.warm.yielding()

    def whenListening(self, endpoint: ObservedEndpoint) -> WhenListening:
        """
        What the service tree waits on before it serves: C{endpoint}
        listening, and the admin port and the agent check's too when there
        are.
        """
        others = [(option, other) for option, other in (
            ("--admin-port", self._adminEndpoint),
            ("--agent-port", self._agentEndpoint)) if other is not None]
        if not others:
            return endpoint.whenListening

        def allListening() -> Deferred[IListeningPort]:
            return DeferredList(
                [endpoint.whenListening()] + [
                    other.whenListening().addErrback(_refused, option)
                    for option, other in others],
                fireOnOneErrback=True, consumeErrors=True).addCallbacks(
                    lambda results: results[0][1],
                    lambda failure: failure.value.subFailure)
        return allListening

    def services(self,
                 whenServing: Callable[[], Deferred[Any]]) -> list[IService]:
        """
        The services to start after the MCP port (and so to stop before
        it): the admin port and the agent check, if any, then the drain
        (which the agent check reports while it lasts).
        """
        services: list[IService] = []
        if self._adminEndpoint is not None:
            admin = listeningService(self._adminEndpoint,
                                     GuardedFactory(McpSite(self._admin)))
            admin.setName("admin")
            services.append(admin)
        if self._agentEndpoint is not None:
            agent = listeningService(self._agentEndpoint, AgentFactory(
                Capacity(self.health, self._slotsTaken,
                         lambda: self._pool.maxSessions)))
            agent.setName("agent-check")
            services.append(agent)
        drain = Drain(self.health, lambda: self._pool.refuseNew(),
                      self._config.drainGrace, self._reactor,
                      self._sessions.clients.live)
        services.append(OperationsService(
            self.health, self._notifier, whenServing, drain, self._reactor))
        return services


def _refused(failure: Failure, option: str) -> NoReturn:
    raise ValueError(f"{option}: {failure.value}")

"""
The daemon's service tree, and its assembly from a configuration.

Every collaborator is built once, here, and handed what it needs in its
constructor; nothing is wired afterwards (the metrics are only told, by
L{Metrics.watch}, where to read the gauges of what is built after them).
The tree is Twisted's own: a
L{MultiService} whose children are the stone, a L{Maintenance} service per
periodic pass (the reaper, view hygiene, the heap) and the listening port.
"""

from collections.abc import Callable, Iterable
from typing import NoReturn

from twisted.application.service import IService, MultiService, Service
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IListeningPort, IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web.resource import IResource

from gsmcpd import __version__
from gsmcpd.daemon import Inline, Reactor
from gsmcpd.daemon.check import DAEMON_OWN_SESSIONS
from gsmcpd.daemon.heap import FREEZE_INTERVAL, FrozenHeap
from gsmcpd.daemon.listening import ObservedEndpoint, listeningService
from gsmcpd.daemon.maintenance import Maintenance
from gsmcpd.daemon.operations import Operations, WhenListening
from gsmcpd.daemon.options import Config
from gsmcpd.daemon.outcome import Outcome
from gsmcpd.daemon.refusal import parseEndpoint
from gsmcpd.daemon.security import (
    SessionPolicies,
    auditLog,
    authenticated,
    bearerGate,
    listeningEndpoint,
    messageTrace,
    securityServices,
)
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.daemon.stone import (
    CONTROL_INTERVAL,
    SIMULATED_UNCAPPED,
    ControlSession,
    SimulatedStone,
    StartupRefused,
    StoneService,
    WorkerCheck,
    realLogin,
)
from gsmcpd.gci.library import GciLibrary
from gsmcpd.gci.pool import GemSessionPool
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.observe.metrics import Metrics
from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.eras.legacy.adapter import LegacyEra
from gsmcpd.protocol.eras.modern.adapter import ModernEra
from gsmcpd.protocol.eras.modern.lending import Lending
from gsmcpd.protocol.eras.modern.skills import Skills
from gsmcpd.protocol.eras.modern.tasks import TaskStore
from gsmcpd.protocol.handlers import Handlers
from gsmcpd.protocol.methods import MethodTable
from gsmcpd.protocol.pipeline import CallPipeline
from gsmcpd.sessions.hygiene import HYGIENE_INTERVAL, GemPreparation, ViewHygiene
from gsmcpd.sessions.lifetime import Reaper
from gsmcpd.sessions.listeners import ChangeNotices, SessionListeners
from gsmcpd.sessions.outbound import PendingRequests
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.workers import WorkerLogins
from gsmcpd.tools.catalogtools import servedCatalog
from gsmcpd.tools.guides import servedGuides
from gsmcpd.transport.bearer import BearerResource
from gsmcpd.transport.connections import GuardedFactory
from gsmcpd.transport.exposure import Listening
from gsmcpd.transport.hosts import HostPolicy, OriginPolicy
from gsmcpd.transport.http import McpApp, McpSite
from gsmcpd.transport.modern import ModernPost
from gsmcpd.transport.traced import TracedResource


class GsmcpService(MultiService):
    """
    Everything C{twistd gsmcp} runs.

    The stone starts first; the other children (the maintenance passes,
    then the listening port) start once it has answered, so nobody is
    served by a daemon that cannot log in.  Children stop one after the
    other in reverse, even past one that fails: the port closes before the
    sessions are logged out, and the stone stops last.  A refusal to start
    is logged in one line and stops the reactor.
    """

    log = Logger()

    def __init__(self, stone: StoneService, serving: Iterable[IService],
                 whenListening: WhenListening, reactor: Reactor, banner: str,
                 clientUrl: Callable[[int], str] = str,
                 outcome: Outcome[IListeningPort | None] | None = None
                 ) -> None:
        """
        @param stone: the L{StoneService}.
        @param serving: the services started once the stone answered, the
            listening port last.
        @param whenListening: answers a L{Deferred} of the listening port.
        @param banner: what the log line says is being served.
        @param clientUrl: the URL clients use, from the listening port's
            number.
        @param outcome: the L{Outcome} it settles with the port (or why it
            refused), which a child may wait on too.
        """
        super().__init__()
        self._stone = stone
        self._serving = tuple(serving)
        self._whenListening = whenListening
        self._reactor = reactor
        self._banner = banner
        self._clientUrl = clientUrl
        self._outcome: Outcome[IListeningPort | None] = \
            Outcome() if outcome is None else outcome
        for child in (stone, *serving):
            child.setServiceParent(self)

    def privilegedStartService(self) -> None:
        # Nothing binds before the stone has answered.
        Service.privilegedStartService(self)

    def startService(self) -> None:
        Service.startService(self)
        self._stone.startService()
        d = self._stone.whenReady().addCallback(lambda _: self._serve())
        d.addCallbacks(self._listened, self._refuse)

    def _serve(self) -> Deferred[IListeningPort] | None:
        if not self.running:
            return None
        for child in self._serving:
            child.startService()
        return self._whenListening().addErrback(_cannotListen)

    def _listened(self, port: IListeningPort | None) -> None:
        if port is not None:
            # A TCP port's address has a number, which IAddress does not say.
            number = port.getHost().port  # type: ignore[attr-defined]
            self.log.info("gsmcpd serving MCP on {banner}, port {port}; "
                          "clients use {url}", banner=self._banner,
                          port=number, url=self._clientUrl(number))
        self._outcome.settle(port)

    def _refuse(self, failure: Failure) -> None:
        self._outcome.settle(failure)
        if not self.running:
            return
        if failure.check(StartupRefused):
            self.log.critical("gsmcpd: refusing to start: {why}",
                              why=failure.value)
        else:
            self.log.failure("gsmcpd: refusing to start", failure)
        self._reactor.stop()

    def whenServing(self) -> Deferred[IListeningPort | None]:
        """
        A L{Deferred} firing with the listening port once the stone has
        answered and the port is open, or failing with why not.
        """
        return self._outcome.whenKnown()

    @inlineCallbacks
    def stopService(self) -> Inline[None]:
        Service.stopService(self)
        for child in reversed(list(self)):
            if not child.running:
                continue
            try:
                yield child.stopService()
            except Exception:
                # The next child still stops: the sessions still log out.
                self.log.failure("stopping {name}", name=child.name)


def _cannotListen(failure: Failure) -> NoReturn:
    raise StartupRefused(f"cannot listen: {failure.value}")


def eras(handlers: Handlers, calls: CallRunner, sessions: SessionRegistry,
         pending: PendingRequests, listeners: SessionListeners,
         clock: IReactorTime, tasks: TaskStore | None = None
         ) -> tuple[LegacyEra, ModernEra]:
    """
    The two eras' adapters over C{handlers}, sharing one method table and
    one call runner (C{calls}).

    @param tasks: the daemon's L{TaskStore} (default: one with the default
        retention).
    @return: C{(legacy, modern)}.
    """
    catalog = handlers.tools
    skills = Skills.fromGuides(servedGuides(
        toolset.name for toolset in catalog.toolsets))
    tasks = TaskStore(clock) if tasks is None else tasks
    methods = MethodTable(
        handlers, skills.methods() if skills else None,
        tasks.respond if any(tool.taskSupport is not None
                             for tool in catalog) else None)
    pipeline = CallPipeline(handlers, calls)
    return (LegacyEra(handlers, methods, pipeline, sessions, pending,
                      listeners),
            ModernEra(handlers, methods, pipeline, Lending(sessions), clock,
                      skills, tasks))


def assemble(config: Config, library: GciLibrary,
             reactor: Reactor) -> GsmcpService:
    """
    The daemon's service tree for C{config}.

    @raise ConfigError: C{--port} is not a Twisted endpoint.
    """
    tls, contexts = listeningEndpoint(config, reactor)
    try:
        endpoint = ObservedEndpoint(
            tls or parseEndpoint(reactor, config.port))
    except ValueError as e:
        raise ConfigError(f"--port {config.port!r}: {e}")
    simulator = SimulatedStone(reactor, (
        config.maxSessions or SIMULATED_UNCAPPED) + DAEMON_OWN_SESSIONS,
        repository=config.simulatedRepository) if config.simulated else None
    # Room above: every session the daemon may open, and its own.
    login = simulator.login if simulator else realLogin(config)

    def openGem(parameters: LoginParameters, name: str) -> GemSession:
        return GemSession(library, parameters, reactor, name)

    control = ControlSession(lambda: openGem(login, "control"), reactor,
                             config.stoneDeadline)
    # A token's user, or the worker user, logs in with a one-time password.
    credentials = WorkerLogins(control, login, config.workerUser) if (
        config.workerUser or authenticated(config)) else None
    gate = bearerGate(config, reactor)
    # Without a token, a session runs as the worker user when there is one.
    audit = auditLog(config, config.workerUser or login.user, config.toolsets)
    pending = PendingRequests(reactor)
    notices = ChangeNotices()
    listeners = SessionListeners(notices)
    metrics = Metrics(__version__)
    pool = GemSessionPool(library, login, reactor, config.maxSessions,
                          credentials, control.stoneAnswered)
    heap = FrozenHeap(sessions=lambda: len(sessions.work))
    sessions = SessionRegistry(
        pool, reactor, config.lifetime.streamLossGrace,
        prepare=SessionPolicies(GemPreparation(endpoint.portLabel),
                                config.readOnly),
        stopGem=control.stopGem,
        onClose=[pending.forget, listeners.remove, heap.sessionEnded] + (
            [audit.forget] if audit else []),
        onCommit=[notices.resourcesUpdated],
        metrics=metrics, warmReads=config.warmReads,
        loginDeadline=config.stoneDeadline, shares=config.shares)
    operations = Operations(config, reactor, metrics, sessions, pool, control,
                            notices,
                            signingKeys=gate.validator.keys if gate else None,
                            audit=audit)
    reaper = Reaper(sessions, pending, config.lifetime, reactor)
    hygiene = ViewHygiene(sessions, reactor, config.maxCommitsBehind,
                          config.stuckViewGrace, config.pinnedViewGrace,
                          control)
    legacy, modern = eras(
        Handlers(servedCatalog(config.surface, config.toolsets),
                 config.identity),
        CallRunner(sessions, reactor, config.callTimeout, audit, metrics),
        sessions, pending, listeners, reactor,
        TaskStore(reactor, config.taskRetention, kept=config.tasksKept))
    app = McpApp(sessions, legacy, ModernPost(modern, notices, reactor),
                 pending, reactor,
                 OriginPolicy.fromOptions(config.allowedOrigins),
                 HostPolicy.fromOptions(config.allowedHosts))
    root: IResource = app
    if gate is not None:
        root = BearerResource(root, gate)
    trace = messageTrace(config, reactor)
    if trace is not None:
        root = TracedResource(root, trace)
        metrics.watch(traceLost=lambda: trace.lost)
    stone = StoneService(
        control, sessions, login.user,
        # An empty --worker-user names none, as everywhere else.
        WorkerCheck(credentials, openGem, login.user, config.workerUser)
        if credentials and config.workerUser else None,
        simulator)
    outcome: Outcome[IListeningPort | None] = Outcome()
    serving = [
        Maintenance("reaper", reaper.interval, reaper.maintain, reactor),
        Maintenance("hygiene", HYGIENE_INTERVAL, hygiene.maintain, reactor),
        Maintenance("control", CONTROL_INTERVAL, control.maintain, reactor),
        Maintenance("heap", FREEZE_INTERVAL, heap.freeze, reactor),
        listeningService(endpoint, GuardedFactory(McpSite(
            operations.root(root), config.accessLog, config.connectionLimits,
            reactor, metrics))),
        *operations.services(outcome.whenKnown),
    ]
    serving[:0] = securityServices(reactor, contexts, audit, gate, trace)
    banner = f"{config.port} (libgcits {library.version}" + (
        ", SIMULATED stone)" if config.simulated else ")")
    service = GsmcpService(
        stone, serving, operations.whenListening(endpoint), reactor, banner,
        lambda port: Listening.parse(config.port).clientUrl(
            port, config.authAudience), outcome)
    return service

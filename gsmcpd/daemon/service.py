"""
The running daemon: the GCI library, the session pool, the HTTP site, and
(with C{--simulated}) the simulated stone's process.
"""

import os
import shutil
import tempfile

from twisted.application.service import Service
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.endpoints import serverFromString
from twisted.internet.threads import deferToThread
from twisted.logger import Logger

from gsmcpd.daemon.options import ConfigError
from gsmcpd.protocol.dispatch import Dispatcher
from gsmcpd.gci.library import GciLibrary, GciLibraryError, findLibrary
from gsmcpd.gci.pool import GemSessionPool
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.daemon.heap import FrozenHeap
from gsmcpd.sessions.hygiene import ViewHygiene
from gsmcpd.sessions.workers import WorkerLogins, grantNeeded
from gsmcpd.tools.base import ToolCall, ToolError
from gsmcpd.sessions.lifetime import Reaper
from gsmcpd.protocol.outbound import PendingRequests
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.transport.http import McpApp, McpSite

SIMULATED_USER = "DataCurator"
SIMULATED_UNCAPPED = 10_000
"""The simulated stone's login cap when --max-sessions is none."""
SIMULATED_PASSWORD = "swordfish"


def loadLibrary(config, environ=None):
    """
    Load libgcits as C{config} names it: the simulated stone's, an explicit
    path, or the one under C{$GEMSTONE/lib} (with libnetldi first).

    @raise ConfigError: naming the setting, when it cannot be loaded.
    """
    environ = os.environ if environ is None else environ
    try:
        if config.simulated:
            from gsmcpd.testing.simulator.build import SimulatorBuildError, libraryPath
            try:
                return GciLibrary.load(libraryPath())
            except SimulatorBuildError as e:
                raise ConfigError(f"--simulated: {e}")
        if config.gciLibrary:
            return GciLibrary.load(config.gciLibrary)
        if not environ.get("GEMSTONE"):
            raise ConfigError(
                "--gci-library (GSMCP_GCI_LIBRARY) is not set and neither is "
                "GEMSTONE, so libgcits cannot be found")
        netldi, gcits = findLibrary(environ["GEMSTONE"])
        return GciLibrary.load(gcits, netldi)
    except GciLibraryError as e:
        raise ConfigError(f"--gci-library: {e}")


class StartupRefused(Exception):
    """
    The stone cannot be served as configured; the message says why.
    """


class GsmcpService(Service):
    """
    Everything C{twistd gsmcp} runs, started and stopped in order: the
    simulated stone (if any) before the first login, every logout before
    the stone stops.
    """

    log = Logger()

    def __init__(self, config, library, reactor):
        self.config = config
        self.library = library
        self.reactor = reactor
        self.simulator = None
        self.sessions = None
        self.control = None
        self._listening = None
        self._port = None

    def whenListening(self):
        """
        Once started: a L{Deferred} firing with the listening port.
        """
        d = Deferred()

        def fire(port):
            d.callback(port)
            return port

        self._listening.addBoth(fire)
        return d

    def startService(self):
        super().startService()
        login = self._startStone()
        config = self.config
        self.control = GemSession(self.library, login, self.reactor,
                                  "control")
        credentials = config.workerUser and WorkerLogins(
            self.control, login, config.workerUser)
        pool = GemSessionPool(self.library, login, self.reactor,
                              config.maxSessions, credentials)
        self.sessions = SessionRegistry(pool, self.reactor,
                                        config.lifetime.streamLossGrace)
        pending = PendingRequests(self.reactor)
        self.sessions.onClose.append(pending.forget)
        self.reaper = Reaper(self.sessions, pending, config.lifetime,
                             self.reactor)
        self.hygiene = ViewHygiene(
            self.sessions, self.reactor, config.maxCommitsBehind,
            config.stuckViewGrace, config.pinnedViewGrace, self._portLabel,
            self.control)
        self.heap = FrozenHeap(self.reactor)
        self.sessions.prepare = self.hygiene.prepare
        self.sessions.stopGem = lambda number: ToolCall(
            self.control).runTemplate("stop_session", {"session": number})
        dispatcher = Dispatcher(ToolCatalog(config.toolsets),
                                config.identity)
        app = McpApp(self.sessions, dispatcher, self.reactor,
                     config.allowedOrigins, pending, config.requestTimeout,
                     config.pinnedViewGrace)
        site = McpSite(app.resource(), config.accessLog)
        self._listening = self._checkStone(credentials)
        self._listening.addCallback(
            lambda _: serverFromString(self.reactor, config.port).listen(site))
        self._listening.addCallbacks(self._listened, self._refuse)

    @inlineCallbacks
    def _checkStone(self, credentials):
        """
        Log the daemon's own session in and, with --worker-user, prove a
        worker can log in, before serving anyone.
        """
        try:
            yield self.control.login()
        except GciError as e:
            raise StartupRefused(
                f"cannot log in to GemStone as {self.config.user!r}: "
                f"GemStone error {e.number}: {e.message}")
        if credentials is None:
            return
        try:
            parameters = yield credentials()
        except ToolError as e:
            raise StartupRefused(
                f"--worker-user {self.config.workerUser!r}: "
                f"{self.config.user!r} cannot mint one-time passwords for it "
                f"({e.message}); "
                + grantNeeded(self.config.user, self.config.workerUser))
        probe = GemSession(self.library, parameters, self.reactor, "probe")
        try:
            yield probe.login()
        except GciError as e:
            raise StartupRefused(
                f"--worker-user {self.config.workerUser!r} cannot log in "
                f"with a one-time password: GemStone error {e.number}: "
                f"{e.message}")
        finally:
            yield probe.logout()

    def _portLabel(self):
        port = self._port
        return str(port.getHost().port) if port is not None else "0"

    def _listened(self, port):
        self._port = port
        self.reaper.start()
        self.hygiene.start()
        self.heap.start()
        self.log.info("gsmcpd serving MCP on {endpoint} (libgcits "
                      "{version}{simulated})", endpoint=self.config.port,
                      version=self.library.version,
                      simulated=", SIMULATED stone" if self.config.simulated
                      else "")
        return port

    def _refuse(self, failure):
        if failure.check(StartupRefused):
            self.log.critical("gsmcpd: refusing to start: {why}",
                              why=failure.value)
        else:
            self.log.failure("cannot listen on {endpoint}", failure,
                             endpoint=self.config.port)
        self.reactor.stop()

    def _startStone(self):
        if not self.config.simulated:
            return LoginParameters(
                stoneNrs=self.config.stoneNrs, gemNrs=self.config.gemNrs,
                user=self.config.user, password=self.config.password,
                hostUser=self.config.hostUser,
                hostPassword=self.config.hostPassword)
        from gsmcpd.testing.simulator.launch import launch
        self._simulatorDir = tempfile.mkdtemp(prefix="gsmcpd-sim-")
        socket = os.path.join(self._simulatorDir, "stone")
        # Room for every session the daemon may open, its own, and a
        # worker login being proved at startup.
        self.simulator = launch(socket, maxLogins=(
            self.config.maxSessions or SIMULATED_UNCAPPED) + 2)
        self.log.info("started the simulated stone (a test double, not "
                      "GemStone) at {socket}", socket=socket)
        return LoginParameters(stoneNrs=socket, gemNrs=None,
                               user=SIMULATED_USER,
                               password=SIMULATED_PASSWORD)

    @inlineCallbacks
    def stopService(self):
        if not self.running:
            return
        super().stopService()
        if self._port is not None:
            yield self._port.stopListening()
        if self.sessions is not None:
            self.reaper.stop()
            self.hygiene.stop()
            self.heap.stop()
            yield self.sessions.closeAll("the server is stopping")
            yield self.control.logout()
        if self.simulator is not None:
            yield deferToThread(self.simulator.stop)
            shutil.rmtree(self._simulatorDir, ignore_errors=True)
            self.log.info("stopped the simulated stone")

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
from twisted.web.server import Site

from gsmcpd.config import ConfigError
from gsmcpd.dispatch import Dispatcher
from gsmcpd.gci.library import GciLibrary, GciLibraryError, findLibrary
from gsmcpd.gci.pool import GemSessionPool
from gsmcpd.gci.session import LoginParameters
from gsmcpd.lifetime import Reaper
from gsmcpd.outbound import PendingRequests
from gsmcpd.sessions import SessionRegistry
from gsmcpd.tools.registry import ToolRegistry
from gsmcpd.web import CappedRequest, McpApp

SIMULATED_USER = "DataCurator"
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
            from gsmcpd.simulator.build import SimulatorBuildError, libraryPath
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
        self._listening = None

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
        pool = GemSessionPool(self.library, login, self.reactor,
                              self.config.maxSessions)
        lifetime = self.config.lifetime
        self.sessions = SessionRegistry(pool, self.reactor,
                                        lifetime.streamLossGrace)
        pending = PendingRequests(self.reactor)
        self.sessions.onClose.append(pending.forget)
        self.reaper = Reaper(self.sessions, pending, lifetime, self.reactor)
        self.reaper.start()
        dispatcher = Dispatcher(ToolRegistry(self.config.toolsets),
                                self.config.identity)
        app = McpApp(self.sessions, dispatcher, self.reactor,
                     self.config.allowedOrigins, pending,
                     self.config.requestTimeout)
        site = Site(app.resource())
        site.requestFactory = CappedRequest
        self._listening = serverFromString(
            self.reactor, self.config.port).listen(site)
        self._listening.addCallbacks(self._listened, self._cannotListen)

    def _listened(self, port):
        self.log.info("gsmcpd serving MCP on {endpoint} (libgcits "
                      "{version}{simulated})", endpoint=self.config.port,
                      version=self.library.version,
                      simulated=", SIMULATED stone" if self.config.simulated
                      else "")
        return port

    def _cannotListen(self, failure):
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
        from gsmcpd.simulator.launch import launch
        self._simulatorDir = tempfile.mkdtemp(prefix="gsmcpd-sim-")
        socket = os.path.join(self._simulatorDir, "stone")
        self.simulator = launch(socket)
        self.log.info("started the simulated stone (a test double, not "
                      "GemStone) at {socket}", socket=socket)
        return LoginParameters(stoneNrs=socket, gemNrs=None,
                               user=SIMULATED_USER,
                               password=SIMULATED_PASSWORD)

    @inlineCallbacks
    def stopService(self):
        super().stopService()
        if self._listening is not None:
            port = yield self._listening
            if port is not None:
                yield port.stopListening()
        if self.sessions is not None:
            self.reaper.stop()
            yield self.sessions.closeAll("the server is stopping")
        if self.simulator is not None:
            yield deferToThread(self.simulator.stop)
            shutil.rmtree(self._simulatorDir, ignore_errors=True)
            self.log.info("stopped the simulated stone")

"""
The stone the daemon serves: its library, the daemon's own session, and
(with C{--simulated}) the simulated stone's process.

The stone is started first and stopped last: the simulated stone before the
first login, the daemon's own login (and a worker's, proved) before anyone
is served; every client's logout, then ours, before the stone stops.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attr
from twisted.application.service import Service
from twisted.internet.defer import Deferred, inlineCallbacks, succeed
from twisted.internet.interfaces import IReactorThreads, IReactorTime
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from gsmcpd.daemon import Inline
from gsmcpd.daemon.outcome import Outcome
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.gci.library import GciLibrary, GciLibraryError, findLibrary
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.sessions.workers import grantNeeded
from gsmcpd.tools.templates.capabilities import describeLacking, lackingCapabilities
from gsmcpd.tools.templates.outcomes import FAILURES, ToolError
from gsmcpd.tools.templates.run import runTemplate

if TYPE_CHECKING:
    from gsmcpd.daemon.options import Config
    from gsmcpd.sessions.registry import SessionRegistry
    from gsmcpd.testing.simulator.launch import SimulatorProcess

SIMULATED_USER = "DataCurator"
SIMULATED_PASSWORD = "swordfish"
SIMULATED_UNCAPPED = 10_000
"""The simulated stone's login cap when --max-sessions is none."""
CONTROL_INTERVAL = 15.0
"""Seconds between passes of L{ControlSession.maintain}."""


def loadLibrary(config: Config,
                environ: Mapping[str, str] | None = None) -> GciLibrary:
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


def realLogin(config: Config) -> LoginParameters:
    """
    The daemon's own login parameters for a real stone.
    """
    assert config.password is not None  # Config requires it for a real stone
    return LoginParameters(
        stoneNrs=config.stoneNrs, gemNrs=config.gemServiceNrs,
        user=config.user, password=config.password,
        hostUser=config.hostUser, hostPassword=config.hostPassword)


class StartupRefused(Exception):
    """
    The stone cannot be served as configured; the message says why.
    """


@implementer(IGemSession)
class ControlSession:
    """
    The daemon's own GemStone session: it mints worker passwords, reads the
    commit-record backlog, and stops abandoned gems.

    Its thread starts at L{login}, not when the service tree is built:
    twistd forks into the background after building it, and a thread does
    not survive a fork.

    @param open: makes the (not yet logged in) L{IGemSession}.
    @param clock: the L{IReactorTime} a pass's deadline is measured on.
    @param deadline: seconds a pass may wait for the stone before the
        stone counts as not answering, or L{None} for ever.
    """

    name = "control"
    log = Logger()

    def __init__(self, open: Callable[[], GemSession], clock: IReactorTime,
                 deadline: float | None) -> None:
        self._open = open
        self._clock = clock
        self._deadline = deadline
        self._gem: GemSession | None = None
        self._unreachable = False
        self._passSince: float | None = None
        self._heard: float | None = None
        self._vouchedFor: GemSession | None = None

    def stoneAnswered(self) -> None:
        """
        A client's session logged in: the stone answers (C{/healthz} says
        so at once), even if this one is gone, until a pass of it fails.
        """
        self._heard = self._clock.seconds()
        if self.gone is not None:
            self._vouchedFor = self._gem

    @property
    def unreachable(self) -> str | None:
        """
        Why the stone counts as out of reach, or L{None}: this session is
        gone and no login succeeded since, or its pass has waited past its
        deadline with no login meanwhile (a stopped stone fails no call).
        """
        if self.gone is not None and self._vouchedFor is not self._gem:
            return f"the stone cannot be reached: {self.gone}"
        heard = max(self._passSince or 0, self._heard or 0)
        if self._passSince is not None and self._deadline is not None and \
                self._clock.seconds() - heard >= self._deadline:
            return "the stone is not answering"
        return None

    @property
    def busy(self) -> bool:
        return self._gem is not None and self._gem.busy

    @property
    def gone(self) -> GciError | None:
        return None if self._gem is None else self._gem.gone

    def login(self) -> Deferred[None]:
        """
        Open the session and log it in; fires with L{None}.
        """
        self._gem = self._open()
        return self._gem.login()

    def maintain(self) -> Deferred[object]:
        """
        One pass of keeping this session useful: while it lives, move its
        view to the newest commit (an idle session would otherwise pin the
        oldest commit record, and its failing call is how the stone's loss
        shows); once it is gone (the stone restarted, or its gem was
        stopped), log a fresh one in, so C{/healthz} and the daemon's own
        calls come back without restarting the daemon.

        The pass's deadline runs while it waits (L{unreachable}); the next
        pass is scheduled only once this one ends
        (L{gsmcpd.daemon.maintenance.Maintenance}), so a hung stone holds
        one pass, not a pile of them.
        """
        self._passSince = self._clock.seconds()
        warning = None if self._deadline is None else self._clock.callLater(
            self._deadline, self.log.warn, "the stone has not answered the "
            "daemon's own session for {deadline:g}s; /healthz says it is "
            "not answering until it does", deadline=self._deadline)

        def ended(result: object) -> object:
            self._passSince = None
            if warning is not None and warning.active():
                warning.cancel()
            elif warning is not None:
                self.log.info("the stone answers the daemon's own session "
                              "again")
            return result

        return self._pass().addBoth(ended)

    def _pass(self) -> Deferred[object]:
        if self._gem is None:
            return succeed(None)
        if self._gem.gone is None:
            return runTemplate(self, "continue_transaction", {}).addCallbacks(
                self._answered, self._failed)
        fresh = self._open()

        def loggedIn(_: object) -> Deferred[None]:
            gone, self._gem = self._live, fresh
            self._unreachable = False
            self.log.info("the daemon's own GemStone session is back")
            return gone.logout()

        return fresh.login().addCallbacks(
            loggedIn, lambda failure: self._failed(failure, fresh.logout()))

    def _answered(self, _: object) -> None:
        if self._unreachable:
            self._unreachable = False
            self.log.info("the daemon's own GemStone session answers again")

    def _failed(self, failure: Failure,
                then: Deferred[None] | None = None) -> Deferred[None] | None:
        """
        Log the first failure of an outage, not one per pass.
        """
        failure.trap(GciError, *FAILURES)
        self._vouchedFor = None
        if not self._unreachable:
            self._unreachable = True
            self.log.warn("the daemon's own GemStone session failed: "
                          "{error}; trying again every {interval:g}s",
                          error=failure.value, interval=CONTROL_INTERVAL)
        return then

    @property
    def _live(self) -> GemSession:
        assert self._gem is not None, "a call before login"
        return self._gem

    def execute(self, source: str, maxBytes: int) -> Deferred[bytes]:
        return self._live.execute(source, maxBytes)

    def interrupt(self, hard: bool) -> None:
        self._live.interrupt(hard)

    def callState(self, d: Deferred[Any]) -> str | None:
        return self._live.callState(d)

    def endCall(self, d: Deferred[Any], hard: bool) -> str | None:
        return self._live.endCall(d, hard)

    def abandon(self, reason: str) -> None:
        self._live.abandon(reason)

    def logout(self) -> Deferred[None]:
        return succeed(None) if self._gem is None else self._gem.logout()

    def stopGem(self, stoneSession: int) -> Deferred[Any]:
        """
        Stop another session's gem, one that took neither break.
        """
        return runTemplate(self, "stop_session", {"session": stoneSession})


@attr.s
class WorkerCheck:
    """
    Prove, before serving anyone, that a worker can log in with a one-time
    password minted by the daemon's own session.

    @ivar credentials: the L{gsmcpd.sessions.workers.WorkerLogins}.
    @ivar openGem: makes an L{IGemSession} from login parameters and a name.
    @ivar user: the daemon's own GemStone user, who mints.
    @ivar workerUser: the user every session logs in as.
    """

    credentials: Callable[[], Deferred[LoginParameters]] = attr.ib()
    openGem: Callable[[LoginParameters, str], GemSession] = attr.ib()
    user: str = attr.ib()
    workerUser: str = attr.ib()

    @inlineCallbacks
    def __call__(self) -> Inline[None]:
        try:
            parameters = yield self.credentials()
        except ToolError as e:
            raise StartupRefused(
                f"--worker-user {self.workerUser!r}: {self.user!r} cannot "
                f"mint one-time passwords for it ({e.message}); "
                + grantNeeded(self.user, self.workerUser))
        except FAILURES as e:
            raise StartupRefused(
                f"--worker-user {self.workerUser!r}: minting its one-time "
                f"password: {e}")
        probe = self.openGem(parameters, "probe")
        try:
            yield probe.login()
        except GciError as e:
            raise StartupRefused(
                f"--worker-user {self.workerUser!r} cannot log in with a "
                f"one-time password: GemStone error {e.number}: {e.message}")
        finally:
            yield probe.logout()


class SimulatedStone:
    """
    The simulated stone's process (a test double, not GemStone), on a
    socket in a directory of its own.

    @ivar login: the daemon's login parameters for it.
    """

    log = Logger()

    def __init__(self, reactor: IReactorThreads, maxLogins: int,
                 directory: str | None = None,
                 repository: str = "demo") -> None:
        self._reactor = reactor
        self._maxLogins = maxLogins
        self._repository = repository
        self._directory = directory or os.path.join(
            tempfile.gettempdir(), f"gsmcpd-sim-{secrets.token_hex(6)}")
        self.socketPath = os.path.join(self._directory, "stone")
        self.login = LoginParameters(
            stoneNrs=self.socketPath, gemNrs=None, user=SIMULATED_USER,
            password=SIMULATED_PASSWORD)
        self._process: SimulatorProcess | None = None

    def _inThread(self, work: Callable[..., Any], *args: Any,
                  **kwargs: Any) -> Deferred[Any]:
        return deferToThreadPool(self._reactor, self._reactor.getThreadPool(),
                                 work, *args, **kwargs)

    @inlineCallbacks
    def start(self) -> Inline[None]:
        from gsmcpd.testing.simulator.launch import launch
        os.mkdir(self._directory, 0o700)
        self._process = yield self._inThread(
            launch, self.socketPath, maxLogins=self._maxLogins,
            repository=self._repository)
        # The socket stays last: tests read it from the end of this line.
        self.log.info("started the simulated stone (a test double, not "
                      "GemStone) with the {repository} repository at {socket}",
                      socket=self.socketPath, repository=self._repository)

    @inlineCallbacks
    def stop(self) -> Inline[None]:
        if self._process is not None:
            yield self._inThread(self._process.stop)
            self.log.info("stopped the simulated stone")
        shutil.rmtree(self._directory, ignore_errors=True)


class StoneService(Service):
    """
    The stone's side of the daemon's life.

    @ivar sessions: the clients' sessions, closed when the service stops.
    @ivar simulator: the L{SimulatedStone}, or L{None}.
    """

    name = "stone"
    log = Logger()

    def __init__(self, control: ControlSession, sessions: SessionRegistry,
                 user: str,
                 checkWorker: Callable[[], Deferred[None]] | None = None,
                 simulator: SimulatedStone | None = None) -> None:
        self._control = control
        self.sessions = sessions
        self._user = user
        self._checkWorker = checkWorker
        self.simulator = simulator
        self._ready: Outcome[None] = Outcome()

    def startService(self) -> None:
        super().startService()
        # A refusal is handed to whoever waits (L{whenReady}), not left
        # unhandled here.
        self._start().addBoth(self._ready.settle).addErrback(lambda _: None)

    def whenReady(self) -> Deferred[None]:
        """
        A L{Deferred} firing once the daemon's own session (and a worker's,
        with C{--worker-user}) has logged in, or failing with
        L{StartupRefused}.
        """
        return self._ready.whenKnown()

    @inlineCallbacks
    def _start(self) -> Inline[None]:
        if self.simulator is not None:
            yield self.simulator.start()
        try:
            yield self._control.login()
        except GciError as e:
            raise StartupRefused(
                f"cannot log in to GemStone as {self._user!r}: "
                f"GemStone error {e.number}: {e.message}")
        yield self._reportCapabilities()
        if self._checkWorker is not None:
            yield self._checkWorker()

    @inlineCallbacks
    def _reportCapabilities(self) -> Inline[None]:
        """
        Say once which optional messages this stone lacks: the templates
        ask before sending one, so without this line nothing would.
        """
        try:
            lacking = yield lackingCapabilities(self._control)
        except FAILURES as e:
            self.log.warn("asking the stone which optional messages it "
                          "has: {error}", error=e)
            return
        emit = self.log.warn if lacking else self.log.info
        emit("{capabilities}", capabilities=describeLacking(lacking),
             lacking=[each.selector for each in lacking])

    @inlineCallbacks
    def stopService(self) -> Inline[None]:
        super().stopService()
        yield self.sessions.closeAll("the server is stopping", code="stopping")
        yield self._control.logout()
        if self.simulator is not None:
            yield self.simulator.stop()

"""
Tests for L{gsmcpd.daemon.stone}: the daemon's own session, the worker
proof, and the stone service's order, over fake GemStone sessions.
"""

import os

import attr
from twisted.application.service import IService
from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.task import Clock
from twisted.logger import Logger, LogLevel, formatEvent
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.daemon.admin import Health
from gsmcpd.daemon.agent import Capacity
from gsmcpd.daemon.maintenance import Maintenance
from gsmcpd.daemon.options import Options
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.daemon.stone import (
    ControlSession,
    StartupRefused,
    StoneService,
    WorkerCheck,
    loadLibrary,
    realLogin,
)
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.gci.session import LoginParameters
from gsmcpd.tools.templates.outcomes import GemGone, ToolError
from tests.fakes import FakeGem, SmalltalkRaised


class LoginGem(FakeGem):
    """
    A fake session that logs in, or fails to with C{loginError}.
    """

    def __init__(self, name="fake", loginError=None, journal=None):
        super().__init__(name)
        self.loginError = loginError
        self.journal = journal if journal is not None else []

    def login(self):
        self.journal.append(f"{self.name} login")
        return fail(self.loginError) if self.loginError else succeed(None)

    def logout(self):
        self.journal.append(f"{self.name} logout")
        return super().logout()


class ControlSessionTests(SynchronousTestCase):

    def setUp(self):
        self.opened = []
        self.loginError = None
        self.clock = Clock()
        self.control = ControlSession(self.open, self.clock, 10.0)
        self.events = []
        self.control.log = Logger(observer=self.events.append)

    def open(self):
        gem = LoginGem("control", self.loginError)
        gem.results["stop_session"] = lambda args: {"stopped": True}
        gem.results["continue_transaction"] = lambda args: {"continued": True}
        self.opened.append(gem)
        return gem

    def test_providesTheInterface(self):
        verifyObject(IGemSession, self.control)
        self.successResultOf(self.control.login())
        verifyObject(IGemSession, self.control)

    def test_openedAtLoginNotBefore(self):
        """
        No session (so no thread) exists until login: twistd forks after
        building the tree.
        """
        self.assertEqual(self.opened, [])
        self.assertFalse(self.control.busy)
        self.assertIsNone(self.control.gone)
        self.successResultOf(self.control.logout())
        self.successResultOf(self.control.login())
        self.assertEqual(len(self.opened), 1)

    def test_callsGoToTheSession(self):
        self.successResultOf(self.control.login())
        gem = self.opened[0]
        self.successResultOf(self.control.stopGem(12))
        self.assertEqual(gem.calls, [("stop_session", {"session": 12})])
        gem.held = True
        d = self.control.execute('"gsmcp:status"\n1', 1000)
        self.assertTrue(self.control.busy)
        self.assertEqual(self.control.callState(d), "running")
        self.assertEqual(self.control.endCall(d, hard=True), "broken")
        self.failureResultOf(d)
        self.control.interrupt(False)
        self.assertEqual(gem.interrupts, [True, False])
        self.successResultOf(self.control.logout())
        self.assertTrue(gem.loggedOut)

    def test_abandon(self):
        self.successResultOf(self.control.login())
        gem = self.opened[0]
        gem.held = True
        self.control.execute('"gsmcp:status"\n1', 1000)
        self.control.abandon("took neither break")
        self.assertEqual(gem.abandoned, "took neither break")

    def test_maintainMovesALiveSessionsView(self):
        """
        While the session lives, each pass moves its view (an idle session
        must not pin the oldest commit record); nothing is logged.
        """
        self.successResultOf(self.control.login())
        self.successResultOf(self.control.maintain())
        self.assertEqual(len(self.opened), 1)
        self.assertEqual(self.opened[0].calls, [("continue_transaction", {})])
        self.assertEqual(self.events, [])

    def test_maintainNoticesTheStonesLoss(self):
        """
        A pass whose call finds the gem gone says so once; the next pass
        logs a fresh session in, and calls go to it.
        """
        self.successResultOf(self.control.login())
        dead = self.opened[0]

        def lost(arguments):
            raise GciError(4100, "the stone restarted", fatal=True)

        dead.results["continue_transaction"] = lost
        self.successResultOf(self.control.maintain())
        self.assertIsNotNone(self.control.gone)
        self.successResultOf(self.control.maintain())
        fresh = self.opened[1]
        self.assertEqual(fresh.journal, ["control login"])
        self.assertTrue(dead.loggedOut)
        self.assertIsNone(self.control.gone)
        self.successResultOf(self.control.stopGem(12))
        self.assertEqual(fresh.calls, [("stop_session", {"session": 12})])
        self.assertEqual([e["log_format"].split(":")[0] for e in self.events],
                         ["the daemon's own GemStone session failed",
                          "the daemon's own GemStone session is back"])

    def test_maintainRefusedTriesAgainQuietly(self):
        """
        While the stone stays out of reach, each attempt ends its session
        and only the first failure is logged.
        """
        self.successResultOf(self.control.login())
        self.opened[0].gone = GciError(4100, "the stone restarted",
                                       fatal=True)
        self.loginError = GciError(4065, "the stone is not running")
        self.successResultOf(self.control.maintain())
        self.successResultOf(self.control.maintain())
        self.assertEqual(len(self.opened), 3)
        self.assertTrue(all(gem.loggedOut for gem in self.opened[1:]))
        self.assertIsNotNone(self.control.gone)
        self.assertEqual(len(self.events), 1)
        self.loginError = None
        self.successResultOf(self.control.maintain())
        self.assertIsNone(self.control.gone)
        self.assertEqual(len(self.events), 2)

    def test_silentStoneIsUnhealthyUntilAPassAnswers(self):
        """
        A pass the stone does not answer within its deadline makes
        C{/healthz} 503 and the agent check C{down}; no further pass starts
        while it waits; once it answers, the daemon is healthy again.
        """
        self.successResultOf(self.control.login())
        gem = self.opened[0]
        gem.held = True
        health = Health(controlSession=self.control)
        health.serving = True
        agent = Capacity(health, lambda: 0, lambda: None)
        passes = Maintenance("control", 15.0, self.control.maintain,
                             self.clock)
        passes.startService()
        self.addCleanup(passes.stopService)
        self.clock.advance(9.9)
        self.assertEqual(health.describe()[0], 200)
        self.clock.advance(0.1)
        self.assertEqual(health.describe(), (503, {
            "status": "unavailable", "reason": "the stone is not answering"}))
        self.assertEqual(agent.line(), b"down\n")
        [warned] = self.events
        self.assertEqual(warned["log_level"], LogLevel.warn)
        self.assertIn("has not answered", formatEvent(warned))
        self.clock.advance(60)
        self.assertEqual(len(gem.calls), 1)
        gem.held = False
        gem.release()
        self.assertEqual(health.describe()[0], 200)
        self.assertEqual(agent.line(), b"up ready 100%\n")
        self.assertIn("answers the daemon's own session again",
                      formatEvent(self.events[-1]))
        self.clock.advance(15)
        self.assertEqual(len(gem.calls), 2)

    def test_loginAfterTheLossIsHealthy(self):
        """
        Once the stone is lost, a client session's login is news that it
        answers again: C{/healthz} is 200 at once, not at the next pass;
        a pass of its own that fails makes it 503 again.
        """
        self.successResultOf(self.control.login())
        health = Health(controlSession=self.control)
        health.serving = True
        self.control.stoneAnswered()
        self.assertEqual(health.describe()[0], 200)
        self.opened[0].gone = GciError(4100, "the stone restarted",
                                       fatal=True)
        self.assertEqual(health.describe()[0], 503)
        self.control.stoneAnswered()
        self.assertEqual(health.describe()[0], 200)
        self.assertIsNone(self.control.unreachable)
        self.loginError = GciError(4065, "the stone is not running")
        self.successResultOf(self.control.maintain())
        self.assertEqual(health.describe(), (503, {
            "status": "unavailable", "reason": "the stone cannot be reached: "
            "GemStone error 4100: the stone restarted"}))
        self.loginError = None
        self.successResultOf(self.control.maintain())
        self.assertEqual(health.describe()[0], 200)

    def test_loginWhileAPassWaitsIsHealthy(self):
        """
        A pass that waits past its deadline makes the stone silent only if
        no login succeeded in that time either.
        """
        self.successResultOf(self.control.login())
        self.opened[0].held = True
        self.control.maintain()
        self.clock.advance(9)
        self.control.stoneAnswered()
        self.clock.advance(9)
        self.assertIsNone(self.control.unreachable)
        self.clock.advance(1)
        self.assertEqual(self.control.unreachable,
                         "the stone is not answering")

    def test_noDeadline(self):
        """
        With C{--stone-deadline none}, a pass may wait for ever.
        """
        control = ControlSession(self.open, self.clock, None)
        self.successResultOf(control.login())
        self.opened[0].held = True
        control.maintain()
        self.clock.advance(3600)
        self.assertIsNone(control.unreachable)


@attr.s
class Credentials:
    error = attr.ib(default=None)

    def __call__(self):
        if self.error:
            return fail(self.error)
        return succeed(LoginParameters("stone", None, "McpReadOnly", "otp"))


class WorkerCheckTests(SynchronousTestCase):

    def check(self, credentials, loginError=None):
        self.probes = []

        def openGem(parameters, name):
            self.probes.append(LoginGem(name, loginError))
            return self.probes[-1]

        return WorkerCheck(credentials, openGem, "DataCurator",
                           "McpReadOnly")()

    def test_proved(self):
        self.successResultOf(self.check(Credentials()))
        [probe] = self.probes
        self.assertEqual(probe.journal, ["probe login", "probe logout"])

    def test_cannotMint(self):
        failure = self.failureResultOf(
            self.check(Credentials(ToolError("refused", "not allowed"))),
            StartupRefused)
        self.assertIn("addOnetimePasswordUserId: 'McpReadOnly'",
                      str(failure.value))

    def test_gemDiedMinting(self):
        failure = self.failureResultOf(
            self.check(Credentials(GemGone(4100))), StartupRefused)
        self.assertEqual(str(failure.value),
                         "--worker-user 'McpReadOnly': minting its one-time "
                         "password: the gem died (GemStone error 4100)")

    def test_cannotLogIn(self):
        failure = self.failureResultOf(
            self.check(Credentials(), GciError(4051, "login denied")),
            StartupRefused)
        self.assertIn("GemStone error 4051", str(failure.value))
        self.assertTrue(self.probes[0].loggedOut)


class FakeSessions:
    def __init__(self, journal):
        self.journal = journal

    def closeAll(self, reason, code):
        self.journal.append(f"close all: {reason} ({code})")
        return succeed(None)


class FakeSimulator:
    def __init__(self, journal):
        self.journal = journal
        self.started = Deferred()

    def start(self):
        self.journal.append("simulator start")
        return self.started

    def stop(self):
        self.journal.append("simulator stop")
        return succeed(None)


class StoneServiceTests(SynchronousTestCase):

    def setUp(self):
        self.journal = []
        self.loginError = None
        self.simulator = FakeSimulator(self.journal)
        self.service = StoneService(
            ControlSession(lambda: LoginGem("control", self.loginError,
                                            self.journal),
                           Clock(), 10.0),
            FakeSessions(self.journal), "DataCurator",
            simulator=self.simulator)

    def test_isAService(self):
        verifyObject(IService, self.service)
        self.assertEqual(self.service.name, "stone")

    def test_simulatorThenLogin(self):
        self.service.startService()
        self.assertEqual(self.journal, ["simulator start"])
        self.assertNoResult(self.service.whenReady())
        self.simulator.started.callback(None)
        self.successResultOf(self.service.whenReady())
        self.assertEqual(self.journal, ["simulator start", "control login"])

    def test_loginRefused(self):
        self.loginError = GciError(4051, "the password is wrong")
        self.simulator.started.callback(None)
        self.service.startService()
        failure = self.failureResultOf(self.service.whenReady(),
                                       StartupRefused)
        self.assertEqual(str(failure.value),
                         "cannot log in to GemStone as 'DataCurator': "
                         "GemStone error 4051: the password is wrong")


    def startedLogging(self, gem):
        """
        Start a stone service whose control session is C{gem}; answer the
        events it logs.
        """
        events = []
        service = StoneService(ControlSession(lambda: gem, Clock(), 10.0),
                               FakeSessions(self.journal), "DataCurator")
        service.log = Logger(observer=events.append)
        service.startService()
        self.successResultOf(service.whenReady())
        return events

    def test_reportsLackingCapabilities(self):
        """
        Once logged in, the service says which optional messages the stone
        lacks, once, in the log.
        """
        gem = LoginGem("control")
        gem.results["lacking_capabilities"] = lambda args: ["descriptionOfSession:"]
        events = self.startedLogging(gem)
        [event] = events
        self.assertEqual((event["log_level"], event["lacking"]),
                         (LogLevel.warn, ["descriptionOfSession:"]))
        self.assertIn("this stone lacks System descriptionOfSession: (how far a view is "
                      "behind is unknown", formatEvent(event))
        self.assertEqual([tag for tag, _ in gem.calls], ["lacking_capabilities"])

    def test_capabilitiesUnknown(self):
        """
        A stone that cannot say does not stop the daemon from serving.
        """
        gem = LoginGem("control")

        def notUnderstood(arguments):
            raise SmalltalkRaised(2010, "MessageNotUnderstood", "no")
        gem.results["lacking_capabilities"] = notUnderstood
        events = self.startedLogging(gem)
        [event] = events
        self.assertEqual(event["log_level"], LogLevel.warn)
        self.assertIn("asking the stone which optional messages it has", formatEvent(event))

    def test_workerChecked(self):
        checked = []
        service = StoneService(
            ControlSession(lambda: LoginGem("control"), Clock(), 10.0),
            FakeSessions(self.journal), "DataCurator",
            checkWorker=lambda: checked.append(True) or succeed(None))
        service.startService()
        self.successResultOf(service.whenReady())
        self.assertEqual(checked, [True])

    def test_stopsSessionsThenOwnThenStone(self):
        self.simulator.started.callback(None)
        self.service.startService()
        del self.journal[:]
        self.successResultOf(self.service.stopService())
        self.assertEqual(self.journal, [
            "close all: the server is stopping (stopping)", "control logout",
            "simulator stop"])
        self.assertFalse(self.service.running)


class LibraryTests(SynchronousTestCase):

    def config(self, *argv):
        path = self.mktemp()
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("swordfish\n")
        options = Options()
        options.parseOptions(["--password-file", path, *argv])
        return options.config({})

    def test_noGemstoneNoLibrary(self):
        self.assertIn("--gci-library (GSMCP_GCI_LIBRARY) is not set",
                      str(self.assertRaises(ConfigError, loadLibrary,
                                            self.config(), {})))

    def test_unloadableLibrary(self):
        self.assertIn("--gci-library", str(self.assertRaises(
            ConfigError, loadLibrary,
            self.config("--gci-library", self.mktemp()), {})))

    def test_realLogin(self):
        login = realLogin(self.config("--host", "db1", "--user", "Ops"))
        self.assertEqual(
            (login.stoneNrs, login.gemNrs, login.user, login.password),
            ("!tcp@db1#server!gs64stone", "!tcp@db1#task!gemnetobject",
             "Ops", "swordfish"))

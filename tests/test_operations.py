"""
Tests for L{gsmcpd.daemon.operations}: readiness, status and the drain,
on a L{Clock}.
"""

from twisted.internet.defer import Deferred, fail
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.admin import AdminBeside, Health
from gsmcpd.daemon.operations import (
    STATUS_INTERVAL, Operations, OperationsService)
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.observe.metrics import Metrics
from gsmcpd.sessions.registry import SessionRegistry
from tests.fakes import FakePool


class RecordingNotifier:

    def __init__(self):
        self.sent = []

    def ready(self, status):
        self.sent.append(("READY", status))

    def status(self, status):
        self.sent.append(("STATUS", status))

    def stopping(self, status):
        self.sent.append(("STOPPING", status))

    def startWatchdog(self, clock):
        self.sent.append(("WATCHDOG", "started"))

    def stopWatchdog(self):
        self.sent.append(("WATCHDOG", "stopped"))


class OperationsTests(TestCase):

    def setUp(self):
        self.clock = Clock()
        self.sessions = 0
        self.health = Health(lambda: self.sessions)
        self.notifier = RecordingNotifier()
        self.serving = Deferred()
        self.service = OperationsService(
            self.health, self.notifier, lambda: self.serving, 5.0,
            self.clock)

    def test_readyOnlyOnceServing(self):
        self.service.startService()
        self.assertEqual(self.notifier.sent, [])
        self.assertFalse(self.health.serving)
        self.serving.callback(object())
        self.assertTrue(self.health.serving)
        self.assertEqual(self.notifier.sent[:2], [
            ("READY", "serving 0 sessions"), ("WATCHDOG", "started")])

    def test_statusCarriesTheSessionCount(self):
        self.service.startService()
        self.serving.callback(object())
        self.sessions = 1
        self.clock.advance(STATUS_INTERVAL)
        self.assertEqual(self.notifier.sent[-1],
                         ("STATUS", "serving 1 session"))

    def test_refusedNeverReady(self):
        self.serving = fail(RuntimeError("no stone"))
        self.service.startService()
        self.assertEqual(self.notifier.sent, [])
        self.assertIsNone(self.service.stopService())

    def test_drainKeepsServingForTheGrace(self):
        self.service.startService()
        self.serving.callback(object())
        self.sessions = 2
        stopped = self.service.stopService()
        self.assertTrue(self.health.stopping)
        self.assertEqual(self.health.describe()[0], 503)
        self.assertIn(("STOPPING", "draining for 5s, then logging 2 "
                       "sessions out"), self.notifier.sent)
        self.assertNoResult(stopped)
        self.clock.advance(5)
        self.successResultOf(stopped)
        self.clock.advance(STATUS_INTERVAL)
        self.assertNotEqual(self.notifier.sent[-1][0], "STATUS")


class Settings:

    def __init__(self, adminPort=None, drainGrace=0.0):
        self.adminPort = adminPort
        self.drainGrace = drainGrace


def operationsOf(settings):
    """
    L{Operations} for C{settings}, over an empty registry and pool.
    """
    return Operations(settings, Clock(), Metrics("1", False),
                      SessionRegistry(FakePool(), Clock()), FakePool(),
                      None, environ={})


class OperationsAssemblyTests(TestCase):

    def test_healthAndGaugesReadWhatTheyAreBuiltWith(self):
        """
        The health and the gauges are given what they read by constructor:
        nothing is patched into them afterwards.
        """
        pool = FakePool()
        sessions = SessionRegistry(pool, Clock())
        control = object()
        metrics = Metrics("1", False)
        operations = Operations(Settings(), Clock(), metrics, sessions, pool,
                                control, environ={})
        self.assertIs(operations.health.controlSession, control)
        self.assertEqual(operations.health.sessionCount(), 0)
        sessions.open("2025-11-25", None)
        self.assertEqual(operations.health.sessionCount(), 1)
        self.assertEqual(metrics.registry.get_sample_value(
            "gsmcpd_sessions_open"), 1)

    def test_adminRoutesBesideMcp(self):
        operations = operationsOf(Settings())
        mcp = object()
        self.assertIsInstance(operations.root(mcp), AdminBeside)
        self.assertEqual([s.name for s in operations.services(None)],
                         ["operations"])

    def test_adminPortOfItsOwn(self):
        operations = operationsOf(Settings("tcp:0:interface=127.0.0.1"))
        mcp = object()
        self.assertIs(operations.root(mcp), mcp)
        self.assertEqual([s.name for s in operations.services(None)],
                         ["admin", "operations"])

    def test_badAdminPortNamesTheSetting(self):
        error = self.assertRaises(ConfigError, operationsOf,
                                  Settings("tcp:nope"))
        self.assertIn("--admin-port 'tcp:nope'", str(error))

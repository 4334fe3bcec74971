"""
Tests for L{gsmcpd.daemon.operations}: readiness, status and the drain,
on a L{Clock}.
"""

from twisted.internet.defer import Deferred, fail
from twisted.internet.task import Clock
from twisted.logger import capturedLogs
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.admin import AdminBeside, Health
from gsmcpd.daemon.drain import Drain
from gsmcpd.daemon.operations import STATUS_INTERVAL, Operations, OperationsService
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.observe.audit import AuditLog, AuditUnavailable, CallFacts
from gsmcpd.observe.auditfile import AuditFile
from gsmcpd.observe.metrics import Metrics
from gsmcpd.protocol.eras.modern.listen import Listener
from gsmcpd.sessions.listeners import ChangeNotices, Filter, Subscriber
from gsmcpd.sessions.registry import SessionRegistry
from tests.fakes import FakePool
from tests.observe.test_auditfile import Disk


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
        self.refused = []
        self.service = OperationsService(
            self.health, self.notifier, lambda: self.serving,
            Drain(self.health, lambda: self.refused.append(True), 5.0,
                  self.clock), self.clock)

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
        self.assertEqual(self.refused, [True])
        self.assertEqual(self.health.describe()[0], 404)
        self.assertIn(("STOPPING", "draining for 5s, then logging 2 "
                       "sessions out"), self.notifier.sent)
        self.assertNoResult(stopped)
        self.clock.advance(5)
        self.successResultOf(stopped)
        self.clock.advance(STATUS_INTERVAL)
        self.assertNotEqual(self.notifier.sent[-1][0], "STATUS")


class Settings:

    def __init__(self, adminPort=None, drainGrace=0.0, agentPort=None):
        self.adminPort = adminPort
        self.drainGrace = drainGrace
        self.agentPort = agentPort


def operationsOf(settings, sessions=None, pool=None, control=None,
                 audit=None):
    """
    L{Operations} for C{settings}, over an empty registry and pool unless
    given others.
    """
    pool = FakePool() if pool is None else pool
    sessions = SessionRegistry(pool, Clock()) if sessions is None \
        else sessions
    return Operations(settings, Clock(), Metrics("1", False), sessions, pool,
                      control, ChangeNotices(), environ={}, audit=audit)


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
        notices = ChangeNotices()
        operations = Operations(Settings(), Clock(), metrics, sessions, pool,
                                control, notices, environ={})
        self.assertIs(operations.health.controlSession, control)
        self.assertEqual(operations.health.sessionCount(), 0)
        sessions.clients.open("2025-11-25", None)
        self.assertEqual(operations.health.sessionCount(), 1)
        self.assertEqual(metrics.registry.get_sample_value(
            "gsmcpd_sessions_open"), 1)

        def eventStreams():
            [metric] = metrics.eventStreams.collect()
            return metric.samples[0].value

        self.assertEqual(eventStreams(), 0)
        listener = Listener(Filter(), lambda *a: None, 1)
        notices.add(listener)
        notices.add(Subscriber(Filter, lambda *a: None))
        self.assertEqual(eventStreams(), 1)
        notices.remove(listener)
        self.assertEqual(eventStreams(), 0)

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

    def test_agentCheckPort(self):
        """
        With --agent-port the agent check listens beside the admin routes,
        and the daemon serves only once it does.
        """
        operations = operationsOf(
            Settings(agentPort="tcp:0:interface=127.0.0.1"))
        self.assertEqual([s.name for s in operations.services(None)],
                         ["agent-check", "operations"])
        self.assertIsNot(operations.whenListening(_Endpoint()),
                         _Endpoint.whenListening)

    def test_badAgentPortNamesTheSetting(self):
        error = self.assertRaises(ConfigError, operationsOf,
                                  Settings(agentPort="tcp:nope"))
        self.assertIn("--agent-port 'tcp:nope'", str(error))

    def test_badAdminPortNamesTheSetting(self):
        error = self.assertRaises(ConfigError, operationsOf,
                                  Settings("tcp:nope"))
        self.assertIn("--admin-port 'tcp:nope'", str(error))


class _Endpoint:

    def whenListening(self):
        return Deferred()


class _Control:
    unreachable = None


class _Pool:
    maxSessions = 4

    def __len__(self):
        return 1


class _Warm:
    def __init__(self, yielding=0):
        self.yielding = lambda: yielding

    def __len__(self):
        return 0


class _Clients(list):

    def live(self):
        return list(self)


class _Sessions:
    """
    A registry's parts the operations read: no session at all.
    """

    def __init__(self):
        self.work = []
        self.clients = _Clients()
        self.warm = _Warm()


class ObserveTests(TestCase):

    def test_stoneReachable(self):
        """
        The metrics say whether the daemon's own session reaches the
        stone, as /healthz does.
        """
        control = _Control()
        operations = operationsOf(Settings(), _Sessions(), _Pool(), control)
        self.assertIn(b"gsmcpd_stone_reachable 1.0",
                      operations.metrics.render())
        control.unreachable = "the stone is not answering"
        self.assertIn(b"gsmcpd_stone_reachable 0.0",
                      operations.metrics.render())

    def test_agentCountsWarmSlotsAsRoom(self):
        """
        The agent check's weight counts a spare's slot as room: a new
        session would take it.
        """
        sessions = _Sessions()
        sessions.warm = _Warm(yielding=1)
        operations = operationsOf(
            Settings(agentPort="tcp:0:interface=127.0.0.1"), sessions,
            _Pool(), _Control())
        operations.health.serving = True
        agent = operations.services(None)[0]
        self.assertEqual(agent.factory.capacity.line(), b"up ready 100%\n")


class AuditHealthTests(TestCase):
    """
    An audit trail that cannot be written makes the daemon unhealthy
    everywhere an operator or a balancer looks, until a reopen mends it.
    """

    def setUp(self):
        self.disk = Disk()
        self.audit = AuditLog(AuditFile(self.mktemp(), self.disk.open))
        self.addCleanup(self.audit.close)
        self.operations = operationsOf(
            Settings(agentPort="tcp:0:interface=127.0.0.1"), _Sessions(),
            _Pool(), _Control(), self.audit)
        self.operations.health.serving = True

    def observed(self):
        """
        What C{/healthz}, the agent check, systemd's status line and the
        metrics say.
        """
        operations = self.operations
        agent = operations.services(None)[0]
        samples = operations.metrics.registry.get_sample_value
        return (operations.health.describe()[0],
                agent.factory.capacity.line(),
                operations.health.summary(),
                samples("gsmcpd_audit_writable"),
                samples("gsmcpd_audit_lines_unwritten_total"))

    def test_failedAndMended(self):
        self.assertEqual(self.observed(),
                         (200, b"up ready 75%\n", "serving 0 sessions",
                          1.0, 0.0))
        self.disk.full = True
        with capturedLogs():
            self.assertRaises(AuditUnavailable, self.audit.callStarted,
                              CallFacts(tool="status", arguments={}))
        code, agent, status, writable, unwritten = self.observed()
        self.assertEqual((code, agent, writable, unwritten),
                         (503, b"down\n", 0.0, 1.0))
        self.assertIn("audit trail cannot be written", status)
        self.assertIn("ENOSPC", status)
        self.disk.full = False
        with capturedLogs():
            self.audit.reopen()
        self.assertEqual(self.observed()[:4],
                         (200, b"up ready 75%\n", "serving 0 sessions", 1.0))

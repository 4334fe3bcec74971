"""
Tests for L{gsmcpd.daemon.maintenance}: periodic passes on a Clock.
"""

from twisted.application.service import IService
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.daemon.maintenance import Maintenance


class MaintenanceTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.passes = []
        self.logged = []
        globalLogPublisher.addObserver(self.logged.append)
        self.addCleanup(globalLogPublisher.removeObserver, self.logged.append)

    def service(self, work):
        service = Maintenance("reaper", 10.0, work, self.clock)
        service.startService()
        self.addCleanup(service.stopService)
        return service

    def test_isAService(self):
        service = Maintenance("heap", 1.0, lambda: None, self.clock)
        verifyObject(IService, service)
        self.assertEqual(service.name, "heap")

    def test_passesOnTheClock(self):
        self.service(lambda: self.passes.append(self.clock.seconds()))
        self.clock.advance(10)
        self.clock.advance(10)
        self.assertEqual(self.passes, [0, 10, 20])

    def test_failingPassLoggedAndNextRuns(self):
        def work():
            self.passes.append(self.clock.seconds())
            if len(self.passes) == 1:
                raise RuntimeError("one odd session")

        self.service(work)
        self.clock.advance(10)
        self.assertEqual(self.passes, [0, 10])
        [failed] = [event for event in self.logged
                    if "log_failure" in event]
        self.assertEqual(failed["name"], "reaper")
        self.assertTrue(failed["log_failure"].check(RuntimeError))
        self.flushLoggedErrors(RuntimeError)

    def test_failingDeferredLoggedToo(self):
        pending = []

        def work():
            pending.append(Deferred())
            return pending[-1]

        self.service(work)
        pending[0].errback(RuntimeError("the stone hung up"))
        self.clock.advance(10)
        self.assertEqual(len(pending), 2)
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        pending[1].callback(None)

    def test_slowPassWaitedFor(self):
        """
        No second pass starts while the first is still at work.
        """
        pending = []

        def work():
            pending.append(Deferred())
            return pending[-1]

        service = self.service(work)
        self.clock.advance(30)
        self.assertEqual(len(pending), 1)
        pending[0].callback(None)
        self.clock.advance(10)
        self.assertEqual(len(pending), 2)
        pending[1].callback(None)
        self.assertIsNone(self.successResultOf(service.stopService()))

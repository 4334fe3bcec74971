"""
Tests for L{gsmcpd.gci.deliveries}: results put from any thread are fired on
the reactor thread, the reactor woken once for all that arrive before it
runs.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.gci.deliveries import ResultDeliveries


class FromThreads:
    """
    The reactor's C{callFromThread}, run when the test says.
    """

    def __init__(self):
        self.woken = []

    def callFromThread(self, f, *args):
        self.woken.append((f, args))

    def run(self):
        woken, self.woken = self.woken, []
        for f, args in woken:
            f(*args)


class ResultDeliveriesTests(SynchronousTestCase):

    def test_oneWakeForManyResults(self):
        reactor, fired = FromThreads(), []
        deliveries = ResultDeliveries(reactor)
        for n in range(3):
            deliveries.put(fired.append, n)
        self.assertEqual((len(reactor.woken), fired), (1, []))
        reactor.run()
        self.assertEqual(fired, [0, 1, 2])
        deliveries.put(fired.append, 3)
        self.assertEqual(len(reactor.woken), 1)
        reactor.run()
        self.assertEqual(fired, [0, 1, 2, 3])

    def test_aFailingResultDoesNotStopTheRest(self):
        reactor, fired = FromThreads(), []
        deliveries = ResultDeliveries(reactor)
        deliveries.put(lambda: 1 / 0)
        deliveries.put(fired.append, "after")
        reactor.run()
        self.assertEqual(fired, ["after"])
        self.assertEqual(len(self.flushLoggedErrors(ZeroDivisionError)), 1)

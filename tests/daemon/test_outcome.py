"""
Tests for L{gsmcpd.daemon.outcome}.
"""

from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.outcome import Outcome


class OutcomeTests(SynchronousTestCase):

    def test_everyWaiterGetsTheResult(self):
        outcome = Outcome()
        early = outcome.whenKnown()
        self.assertNoResult(early)
        self.assertEqual(outcome.settle(8000), 8000)
        self.assertEqual(self.successResultOf(early), 8000)
        self.assertEqual(self.successResultOf(outcome.whenKnown()), 8000)
        self.assertTrue(outcome.known)
        self.assertFalse(outcome.failed)

    def test_oneWaiterDoesNotChangeAnother(self):
        outcome = Outcome()
        first, second = outcome.whenKnown(), outcome.whenKnown()
        first.addCallback(lambda _: "changed")
        outcome.settle("port")
        self.assertEqual(self.successResultOf(second), "port")

    def test_failureToEveryWaiter(self):
        outcome = Outcome()
        early = outcome.whenKnown()
        outcome.settle(Failure(OSError("address in use")))
        self.assertTrue(outcome.failed)
        for d in (early, outcome.whenKnown()):
            self.failureResultOf(d, OSError)

    def test_unknown(self):
        outcome = Outcome()
        self.assertFalse(outcome.known)
        self.assertIsNone(outcome.result)

"""
Tests for L{gsmcpd.sessions.outbox}: bounded, dropping the oldest, and
saying so.
"""

from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.clipping import CLIPPED_LENGTH
from gsmcpd.sessions.outbox import Outbox


class OutboxTests(SynchronousTestCase):

    def test_firstInFirstOut(self):
        outbox = Outbox("h1")
        outbox.put({"n": 1})
        outbox.put({"n": 2})
        self.assertEqual(len(outbox), 2)
        self.assertEqual([outbox.take(), outbox.take()], [{"n": 1}, {"n": 2}])
        self.assertEqual(len(outbox), 0)

    def test_fullDropsTheOldestAndCountsIt(self):
        """
        A stream that never reads cannot grow the daemon's memory without
        bound: the oldest message goes, and the count admits the gap.
        """
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        outbox = Outbox("h1", limit=2)
        for n in range(4):
            outbox.put(n)
        self.assertEqual(len(outbox), 2)
        self.assertEqual(outbox.dropped, 2)
        self.assertEqual([outbox.take(), outbox.take()], [2, 3])
        drops = [e for e in events if e.get("session") == "h1"]
        self.assertEqual([e["dropped"] for e in drops], [1, 2])

    def test_ownerClipped(self):
        """
        An owner a client named (a listener's request id) is clipped in the
        log line.
        """
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        outbox = Outbox("listener " + "x" * 1_000_000, limit=1)
        outbox.put(1)
        outbox.put(2)
        [event] = [e for e in events
                   if e.get("log_namespace") == Outbox.log.namespace]
        self.assertLess(len(event["session"]), CLIPPED_LENGTH + 50)

    def test_takeFromEmpty(self):
        self.assertRaises(IndexError, Outbox("h1").take)

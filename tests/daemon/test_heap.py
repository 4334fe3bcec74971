"""
Tests for L{gsmcpd.daemon.heap}.  (L{tests.daemon.test_heap_sockets}: bursts of
sessions on a real daemon.)
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.heap import ENDED_SHARE, THAW_EVERY, THAW_GROWTH, FrozenHeap


class RecordingCollector:
    """
    Records what the heap asks of the collector; C{live} objects are
    frozen by C{freeze}, and a collection keeps only them.
    """

    def __init__(self, live=1000):
        self.calls = []
        self.live = live
        self.garbage = 0
        self.frozen = 0
        self.counts = 0

    def freeze(self):
        self.calls.append("freeze")
        self.frozen = self.live + self.garbage

    def unfreeze(self):
        self.calls.append("unfreeze")
        self.frozen = 0

    def collect(self):
        self.calls.append("collect")
        self.garbage = 0

    def get_freeze_count(self):
        self.counts += 1
        return self.frozen


class FrozenHeapTests(SynchronousTestCase):

    def test_freezesAndNowAndThenThaws(self):
        collector = RecordingCollector()
        heap = FrozenHeap(collector)
        for _ in range(THAW_EVERY - 1):
            heap.freeze()
        self.assertEqual(collector.calls, ["freeze"] * (THAW_EVERY - 1))
        heap.freeze()
        self.assertEqual(collector.calls[-4:],
                         ["freeze", "unfreeze", "collect", "freeze"])

    def test_thawedOnceGrown(self):
        """
        A pass that leaves the frozen heap over L{THAW_GROWTH} times what
        it was after the last full collection (sessions that froze while
        alive have ended) thaws, collects and freezes again; growth up to
        that is left frozen.
        """
        collector = RecordingCollector(live=1000)
        heap = FrozenHeap(collector)
        heap.freeze()
        heap.sessionEnded()
        collector.garbage = int(1000 * (THAW_GROWTH - 1))
        heap.freeze()
        self.assertEqual(collector.calls, ["freeze", "freeze"])
        collector.garbage += 1
        heap.freeze()
        self.assertEqual(collector.calls[2:],
                         ["freeze", "unfreeze", "collect", "freeze"])
        self.assertEqual(collector.frozen, 1000)

    def test_growthMeasuredFromTheLastCollection(self):
        """
        A heap that grows for good (more sessions, alive) is thawed once
        per L{THAW_GROWTH}, not at every pass.
        """
        collector = RecordingCollector(live=1000)
        heap = FrozenHeap(collector)
        heap.freeze()
        heap.sessionEnded()
        collector.live = 1300
        heap.freeze()
        self.assertEqual(collector.calls.count("collect"), 1)
        heap.sessionEnded()
        collector.live = 1600
        heap.freeze()
        self.assertEqual(collector.calls.count("collect"), 1)
        collector.live = 1700
        heap.freeze()
        self.assertEqual(collector.calls.count("collect"), 2)

    def test_growthWithoutEndedSessionsLeftFrozen(self):
        """
        A heap that grows while sessions open (or take event streams) and
        none end has nothing to free: it is neither thawed nor even
        counted.  Once L{ENDED_SHARE} of those open have ended, growth
        thaws it.
        """
        collector = RecordingCollector(live=1000)
        open = [0]
        heap = FrozenHeap(collector, sessions=lambda: open[0])
        heap.freeze()
        counted = collector.counts
        for sessions in (10, 100, 1000):
            open[0] = sessions
            collector.live = 1000 + 160 * sessions
            heap.freeze()
        self.assertNotIn("collect", collector.calls)
        self.assertEqual(collector.counts, counted)
        for _ in range(int(1000 * ENDED_SHARE) - 1):
            heap.sessionEnded()
        heap.freeze()
        self.assertNotIn("collect", collector.calls)
        heap.sessionEnded()
        heap.freeze()
        self.assertEqual(collector.calls[-3:],
                         ["unfreeze", "collect", "freeze"])
        heap.sessionEnded()
        collector.live += 1
        heap.freeze()
        self.assertEqual(collector.calls.count("collect"), 1)

"""
Tests for L{gsmcpd.daemon.heap}.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.heap import FREEZE_INTERVAL, THAW_EVERY, FrozenHeap


class RecordingCollector:
    def __init__(self):
        self.calls = []

    def freeze(self):
        self.calls.append("freeze")

    def unfreeze(self):
        self.calls.append("unfreeze")

    def collect(self):
        self.calls.append("collect")


class FrozenHeapTests(SynchronousTestCase):

    def test_freezesAndNowAndThenThaws(self):
        clock, collector = Clock(), RecordingCollector()
        heap = FrozenHeap(clock, collector)
        heap.start()
        self.addCleanup(heap.stop)
        for _ in range(THAW_EVERY - 1):
            clock.advance(FREEZE_INTERVAL)
        self.assertEqual(collector.calls[-3:],
                         ["unfreeze", "collect", "freeze"])
        self.assertEqual(collector.calls.count("freeze"), THAW_EVERY)

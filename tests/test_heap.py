"""
Tests for L{gsmcpd.daemon.heap}.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.heap import THAW_EVERY, FrozenHeap


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
        collector = RecordingCollector()
        heap = FrozenHeap(collector)
        for _ in range(THAW_EVERY - 1):
            heap.freeze()
        self.assertEqual(collector.calls, ["freeze"] * (THAW_EVERY - 1))
        heap.freeze()
        self.assertEqual(collector.calls[-3:],
                         ["unfreeze", "collect", "freeze"])
        self.assertEqual(collector.calls.count("freeze"), THAW_EVERY)

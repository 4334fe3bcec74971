"""
Keeping the garbage collector's full passes off the reactor's latency.

A daemon holding a thousand sessions tracks some 200,000 long-lived objects
(sessions, streams, Deferreds), and CPython's full collection walks them
all: a 120 ms stall for whichever request is waiting.  Freezing the heap
after each maintenance pass moves them out of the collector's way; a thaw
and a full collection now and then reclaims the cycles that froze.
"""

import gc

FREEZE_INTERVAL = 10.0
THAW_EVERY = 60
"""Freezes between two full collections: about ten minutes."""


class FrozenHeap:
    """
    The heap's maintenance: the daemon runs L{freeze} each
    L{FREEZE_INTERVAL}; every L{THAW_EVERY}th pass thaws and collects first.
    """

    def __init__(self, collector=gc):
        self._collector = collector
        self._freezes = 0

    def freeze(self):
        self._freezes += 1
        if self._freezes % THAW_EVERY == 0:
            self._collector.unfreeze()
            self._collector.collect()
        self._collector.freeze()

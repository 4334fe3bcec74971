"""
Keeping the garbage collector's full passes off the reactor's latency.

A daemon holding a thousand sessions tracks some 200,000 long-lived objects
(sessions, streams, Deferreds), and CPython's full collection walks them
all: a 120 ms stall for whichever request is waiting.  Freezing the heap
after each maintenance pass moves them out of the collector's way.

What froze is never collected until it is thawed, and a session's objects
freeze while it lives: once it ends, those in reference cycles (Deferred
chains, failures and their frames) stay.  A burst of 200 sessions left
some 20,000 such objects, 4 to 6 MB, burst after burst.  So the heap is
thawed and fully collected whenever it has grown by a quarter since its
last full collection (the stall then pays for what it frees, and a heap
that grows for good is thawed once per quarter more), and every
L{THAW_EVERY}th pass regardless.
"""

import gc
from types import ModuleType

FREEZE_INTERVAL = 10.0
THAW_EVERY = 60
"""Freezes between two full collections at most: about ten minutes."""
THAW_GROWTH = 1.25
"""How much the frozen heap may grow since its last full collection: the
ratio CPython itself waits for before a full collection."""


class FrozenHeap:
    """
    The heap's maintenance: the daemon runs L{freeze} each
    L{FREEZE_INTERVAL}; every L{THAW_EVERY}th pass, and any pass that
    leaves the frozen heap over L{THAW_GROWTH} times what it was after the
    last full collection, thaws, collects and freezes again.
    """

    def __init__(self, collector: ModuleType = gc) -> None:
        self._collector = collector
        self._freezes = 0
        self._collected: int | None = None

    def freeze(self) -> None:
        self._freezes += 1
        self._collector.freeze()
        frozen = self._collector.get_freeze_count()
        if self._collected is None:
            self._collected = frozen
        elif frozen > self._collected * THAW_GROWTH or \
                self._freezes % THAW_EVERY == 0:
            self._collector.unfreeze()
            self._collector.collect()
            self._collector.freeze()
            self._collected = self._collector.get_freeze_count()

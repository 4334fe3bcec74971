"""
Keeping the garbage collector's full passes off the reactor's latency.

A daemon holding a thousand sessions tracks some 200,000 long-lived objects
(sessions, streams, Deferreds), and CPython's full collection walks them
all: a 120 ms stall for whichever request is waiting.  Freezing the heap
after each maintenance pass moves them out of the collector's way.

What froze is never collected until it is thawed, and a session's objects
freeze while it lives: once it ends, those in reference cycles (Deferred
chains, failures and their frames) stay.  A burst of 200 sessions left
some 20,000 such objects, 4 to 6 MB, burst after burst.  So once sessions
have ended since its last full collection (a quarter as many as are open,
at least one), the heap is counted at each pass, and thawed and fully
collected once it has grown by a quarter since (the stall then pays for
what it frees); and every L{THAW_EVERY}th pass regardless.

Growth alone is not enough: a heap that grows because sessions open, or
take event streams, has nothing to free, and a thousand sessions opening
thawed it at every pass, a stall of 150 to 750 ms for each request then
waiting.  Nor is it counted at each pass: the count walks the whole
frozen heap, 30 ms for 250,000 objects.
"""

import gc
from collections.abc import Callable
from types import ModuleType

FREEZE_INTERVAL = 10.0
THAW_EVERY = 60
"""Freezes between two full collections at most: about ten minutes."""
THAW_GROWTH = 1.25
"""How much the frozen heap may grow since its last full collection: the
ratio CPython itself waits for before a full collection."""
ENDED_SHARE = 0.25
"""How many sessions must have ended since the last full collection, for
each one open, before growth thaws the heap."""


class FrozenHeap:
    """
    The heap's maintenance: the daemon runs L{freeze} each
    L{FREEZE_INTERVAL}, and tells L{sessionEnded} of each session closed.
    Every L{THAW_EVERY}th pass, and any pass that finds the frozen heap
    over L{THAW_GROWTH} times what it was after the last full collection
    once L{ENDED_SHARE} of the sessions open have ended since, thaws,
    collects and freezes again.

    @param sessions: how many sessions are open.
    """

    def __init__(self, collector: ModuleType = gc,
                 sessions: Callable[[], int] = lambda: 0) -> None:
        self._collector = collector
        self._sessions = sessions
        self._freezes = 0
        self._ended = 0
        self._collected: int | None = None

    def sessionEnded(self, session: object = None) -> None:
        """A session closed: what it froze may now be garbage."""
        self._ended += 1

    def freeze(self) -> None:
        self._freezes += 1
        collector = self._collector
        collector.freeze()
        if self._collected is None:
            self._collected = collector.get_freeze_count()
        elif self._freezes % THAW_EVERY == 0 or (
                self._ended and
                self._ended >= self._sessions() * ENDED_SHARE and
                collector.get_freeze_count()
                > self._collected * THAW_GROWTH):
            collector.unfreeze()
            collector.collect()
            collector.freeze()
            self._collected = collector.get_freeze_count()
            self._ended = 0

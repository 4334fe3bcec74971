"""
A session's breaks, sent from a thread of their own.

GciTsBreak is the one GemStone call made while another is in flight, and
on a healthy stone it returns at once; but it writes to the gem's socket
(through the NetLDI when the gem is remote), so a wedged gem or a stalled
network can hold it for as long as TCP lets it.  Were it sent on the
reactor thread, that one gem would freeze the whole daemon: every
session's requests, C{/healthz}, the admin port.  So the reactor only asks
for a break, and a L{Breaker} sends it.
"""

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from twisted.logger import Logger

T = TypeVar("T")


class Breaker(Generic[T]):
    """
    Sends one session's breaks, in order, from a thread that starts with
    its first break and ends when L{stop} is called.

    Each break names its target, the call it is for, so that one sent late
    (after a stuck break) can be dropped if its call is over, never hitting
    the next one.  Breaks for the same target asked for while one is still
    being sent are merged into one (hard if any was hard): when a stuck
    break returns, one break follows, not the burst of those asked for
    meanwhile (a soft and a hard break sent back to back can crash
    libgcits: gci-facts.md section 6).  A break for another target replaces
    a pending one: one call runs at a time, so the older one's is over.
    """

    log = Logger()

    def __init__(self, send: Callable[[T, bool], None], name: str) -> None:
        """
        @param send: called on the breaker's thread with a break's target
            and C{hard}, once for each break sent; it may block, and decides
            whether the target still wants it.
        @param name: how the thread is named.
        """
        self._send = send
        self._name = name
        self._wake = threading.Condition(threading.Lock())
        self._pending: tuple[T, bool] | None = None
        self._stopped = False
        self._thread: threading.Thread | None = None

    def request(self, target: T, hard: bool) -> None:
        """
        Ask for a break of C{target}; never waits for one to be sent (only
        for the breaker's lock, which no break is sent under).  Ignored
        once stopped.
        """
        with self._wake:
            if self._stopped:
                return
            if self._pending is not None and self._pending[0] is target:
                hard = hard or self._pending[1]
            self._pending = (target, hard)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name=f"break {self._name}",
                    daemon=True)
                self._thread.start()
            self._wake.notify()

    def stop(self) -> None:
        """
        Send no break from now on; a break being sent runs to its end.
        """
        with self._wake:
            self._stopped = True
            self._pending = None
            self._wake.notify()

    def _serve(self) -> None:
        while True:
            with self._wake:
                # Stopping drops the pending break: stopped, none is.
                while (pending := self._pending) is None:
                    if self._stopped:
                        return
                    self._wake.wait()
                self._pending = None
            target, hard = pending
            try:
                self._send(target, hard)
            except Exception:
                # One break that failed must not end the next ones.
                self.log.failure("{name}: sending a break", name=self._name)

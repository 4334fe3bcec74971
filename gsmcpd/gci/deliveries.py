"""
Results on their way from the gem threads to the reactor thread.
"""

import collections
from collections.abc import Callable

from twisted.internet.interfaces import IReactorFromThreads
from twisted.logger import Logger


class ResultDeliveries:
    """
    Results on their way from the gem threads to the reactor.  The reactor
    is woken once for every result that arrives before it runs, rather
    than once a result: under load that saves a write, a read and a thread
    switch a call.  The pool shares one among its sessions.
    """

    log = Logger()

    def __init__(self, reactor: IReactorFromThreads) -> None:
        self._reactor = reactor
        self._results: collections.deque = collections.deque()
        self._scheduled = False

    def put(self, fire: Callable[..., object], *args: object) -> None:
        """
        From any thread: call C{fire(*args)} on the reactor thread.
        """
        self._results.append((fire, args))
        if not self._scheduled:
            # Two threads may both get here: the second drain finds
            # nothing, which is harmless.
            self._scheduled = True
            self._reactor.callFromThread(self._drain)

    def _drain(self) -> None:
        # Reset before popping: a result appended from now on either is
        # popped below or schedules a drain of its own.
        self._scheduled = False
        results = self._results
        while results:
            fire, args = results.popleft()
            try:
                fire(*args)
            except Exception:
                self.log.failure("delivering a GemStone call's result")

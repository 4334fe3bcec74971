"""
Periodic maintenance as services of the daemon's tree.

A pass that fails is logged with its traceback, and the next pass still
runs: a reaper that stopped for good on one odd session would leave every
later session to hold its login forever.
"""

from collections.abc import Callable

from twisted.application.internet import TimerService
from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger


class Maintenance(TimerService):
    """
    Run C{work} every C{interval} seconds of C{clock}, the first time as
    the service starts; a pass answering a L{Deferred} is waited for before
    the next is scheduled.
    """

    log = Logger()

    def __init__(self, name: str, interval: float, work: Callable[[], object],
                 clock: IReactorTime) -> None:
        super().__init__(interval, self._onePass)
        self.name = name
        self.clock = clock
        self._work = work

    def _onePass(self) -> Deferred[object]:
        d = maybeDeferred(self._work)
        d.addErrback(lambda failure: self.log.failure(
            "{name}: a maintenance pass failed; the next runs in "
            "{interval:g}s", failure, name=self.name, interval=self.step))
        return d

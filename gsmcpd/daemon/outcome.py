"""
A result that several parties wait for, each with its own L{Deferred}.

A L{Deferred} has one chain: whoever adds a callback changes what the next
one sees.  The daemon's start (did the stone answer, did the port open) is
awaited by the service tree, by tests, and by whatever tells systemd it is
ready, so each gets a Deferred of its own.
"""

from typing import Generic, TypeVar

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

T = TypeVar("T")


class Outcome(Generic[T]):
    """
    A result or a L{Failure}, once known; L{whenKnown} for each who waits.
    """

    def __init__(self) -> None:
        self._result: T | Failure | None = None
        self._known = False
        self._waiting: list[Deferred[T]] = []

    def settle(self, result: T | Failure) -> T | Failure:
        """
        Make C{result} (a value or a L{Failure}) known to every waiter, now
        and later; answers it, for use as a callback.
        """
        self._result, self._known = result, True
        waiting, self._waiting = self._waiting, []
        for d in waiting:
            self._fire(d)
        return result

    @property
    def known(self) -> bool:
        return self._known

    @property
    def failed(self) -> bool:
        return isinstance(self._result, Failure)

    @property
    def result(self) -> T | Failure | None:
        """
        The result, or L{None} before it is known.
        """
        return self._result

    def whenKnown(self) -> Deferred[T]:
        """
        A L{Deferred} of the result, or failing with its failure.
        """
        d: Deferred[T] = Deferred()
        if self._known:
            self._fire(d)
        else:
            self._waiting.append(d)
        return d

    def _fire(self, d: Deferred[T]) -> None:
        if isinstance(self._result, Failure):
            d.errback(self._result)
        else:
            d.callback(self._result)  # type: ignore[arg-type]  # known, so a T

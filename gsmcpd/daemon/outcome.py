"""
A result that several parties wait for, each with its own L{Deferred}.

A L{Deferred} has one chain: whoever adds a callback changes what the next
one sees.  The daemon's start (did the stone answer, did the port open) is
awaited by the service tree, by tests, and by whatever tells systemd it is
ready, so each gets a Deferred of its own.
"""

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure


class Outcome:
    """
    A result or a L{Failure}, once known; L{whenKnown} for each who waits.
    """

    def __init__(self):
        self._result = None
        self._known = False
        self._waiting = []

    def settle(self, result):
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
    def known(self):
        return self._known

    @property
    def failed(self):
        return isinstance(self._result, Failure)

    @property
    def result(self):
        """
        The result, or L{None} before it is known.
        """
        return self._result

    def whenKnown(self):
        """
        A L{Deferred} of the result, or failing with its failure.
        """
        d = Deferred()
        if self._known:
            self._fire(d)
        else:
            self._waiting.append(d)
        return d

    def _fire(self, d):
        if self.failed:
            d.errback(self._result)
        else:
            d.callback(self._result)

"""
The session cap under concurrency and careless clients (issue 11, items 2
and 9): the pool against the simulated stone, which counts its logins.
"""

from twisted.internet import reactor
from twisted.internet.defer import (
    CancelledError,
    gatherResults,
    inlineCallbacks,
    succeed,
)
from twisted.internet.task import deferLater
from twisted.trial.unittest import TestCase

from gsmcpd.gci.pool import GemSessionPool, SessionLimitReached
from tests.gci.test_gci import SimulatedStoneMixin, executeCode


class ConcurrentCapTests(SimulatedStoneMixin, TestCase):

    maxLogins = 6

    def setUp(self):
        self.startStone()

    def loggedIn(self):
        return len(self.control.call({"op": "sessions"})["sessions"])

    @inlineCallbacks
    def assertAdmitsExactly(self, credentials):
        pool = GemSessionPool(self.library, self.login, reactor, 3,
                              credentials)
        self.addCleanup(pool.closeAll)
        opening = [pool.open(name) for name in "abc"]
        self.assertRaises(SessionLimitReached, pool.open, "d")
        yield gatherResults(opening)
        self.assertEqual((len(pool), self.loggedIn()), (3, 3))

    def test_simultaneousOpensAdmitTheCap(self):
        """
        N simultaneous opens with a cap of N admit exactly N: a session
        still logging in is counted once.
        """
        return self.assertAdmitsExactly(None)

    def test_simultaneousOpensWithSlowCredentials(self):
        """
        So they do while their credentials are still being found (a worker
        user's one-time password).
        """
        return self.assertAdmitsExactly(lambda user=None: succeed(self.login))

    @inlineCallbacks
    def test_slotFreeOnlyOnceLoggedOut(self):
        """
        A close whose caller stops waiting (a DELETE whose client gave up)
        keeps the slot until the logout, queued behind a running call, has
        happened.
        """
        pool = GemSessionPool(self.library, self.login, reactor, 1)
        self.addCleanup(pool.closeAll)
        gem = yield pool.open("a")
        running = gem.execute(executeCode("(Delay forSeconds: 1) wait"), 4096)
        closing = pool.close(gem)
        closing.cancel()
        yield self.assertFailure(closing, CancelledError)
        self.assertEqual(len(pool), 1)
        self.assertRaises(SessionLimitReached, pool.open, "b")
        yield running
        while len(pool):
            yield self.wait(0.05)
        self.assertEqual(self.loggedIn(), 0)

    @inlineCallbacks
    def test_busyUntilTheGemAnswers(self):
        """
        A caller that stops waiting for a running call does not make the
        session idle: it is busy until the gem answers.
        """
        pool = GemSessionPool(self.library, self.login, reactor, 1)
        self.addCleanup(pool.closeAll)
        gem = yield pool.open("a")
        running = gem.execute(executeCode("(Delay forSeconds: 1) wait"), 4096)
        queued = gem.execute(executeCode("1"), 4096)
        yield self.wait(0.2)
        running.cancel()
        queued.cancel()
        yield self.assertFailure(running, CancelledError)
        yield self.assertFailure(queued, CancelledError)
        self.assertTrue(gem.busy)
        while gem.busy:
            yield self.wait(0.05)
        answer = yield gem.execute(executeCode("2 + 2"), 4096)
        self.assertIn(b"4", answer)

    def wait(self, seconds):
        return deferLater(reactor, seconds, lambda: None)

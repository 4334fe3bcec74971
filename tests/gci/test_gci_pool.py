"""
Tests for L{gsmcpd.gci.pool}, in memory: the cap is enforced before any
login, a slot comes back however a session ends, and closing every session
breaks the ones still running.  (L{tests.gci.test_gci} runs the pool against
the simulated stone.)
"""

from twisted.internet.defer import CancelledError, Deferred, succeed
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.gci import pool as poolModule
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import ISessionPool
from gsmcpd.gci.pool import GemSessionPool, SessionLimitReached
from gsmcpd.gci.session import LoginParameters

LOGIN = LoginParameters(stoneNrs="gs64stone", gemNrs=None,
                        user="DataCurator", password="swordfish")


class LoginGem:
    """
    A L{GemSession} as the pool drives it: each login and logout waits
    until the test fires it.
    """

    made = []

    def __init__(self, library, parameters, reactor, name, deliveries=None):
        self.parameters = parameters
        self.name = name
        self.loggingIn = Deferred()
        self.loggingOut = Deferred()
        self.loggedOut = False
        self.abandoned = None
        self.busy = False
        self.interrupts = []
        self.made.append(self)

    def login(self):
        return self.loggingIn

    def logout(self):
        self.loggedOut = True
        return self.loggingOut

    def abandon(self, reason):
        self.abandoned = reason

    def interrupt(self, hard):
        self.interrupts.append(hard)


class PoolFixture(SynchronousTestCase):

    def setUp(self):
        self.made = []
        self.patch(LoginGem, "made", self.made)
        self.patch(poolModule, "GemSession", LoginGem)
        self.clock = Clock()
        self.pool = GemSessionPool(object(), LOGIN, self.clock, 2)

    def opened(self, name):
        d = self.pool.open(name)
        self.made[-1].loggingIn.callback(None)
        return self.successResultOf(d)


class PoolTests(PoolFixture):

    def test_provides(self):
        self.assertTrue(verifyObject(ISessionPool, self.pool))

    def test_openLogsIn(self):
        gem = self.opened("a")
        self.assertEqual((gem.name, gem.parameters), ("a", LOGIN))
        self.assertEqual(len(self.pool), 1)

    def test_capRefusesBeforeAnyLogin(self):
        """
        The login that exhausts a stone fails for every gem on it, so the
        pool refuses past its cap without trying; a login under way counts.
        """
        self.opened("a")
        self.pool.open("b")
        error = self.assertRaises(SessionLimitReached, self.pool.open, "c")
        self.assertEqual(error.limit, 2)
        self.assertIn("maximum of 2 GemStone sessions", str(error))
        self.assertEqual(len(self.made), 2)

    def test_loginUnderWayCountsOnce(self):
        """
        A session logging in holds one slot, not two: with a cap of two, a
        second client can still log in while the first one does.
        """
        self.pool.open("a")
        self.assertEqual(len(self.pool), 1)
        self.pool.open("b")
        self.assertEqual(len(self.pool), 2)

    def test_credentialsBeingMintedHoldASlot(self):
        minting = Deferred()
        pool = GemSessionPool(object(), LOGIN, self.clock, 1,
                              lambda user: minting)
        d = pool.open("a")
        self.assertEqual(len(pool), 1)
        self.assertRaises(SessionLimitReached, pool.open, "b")
        minting.errback(GciError(2000, "cannot mint"))
        self.failureResultOf(d, GciError)
        self.assertEqual(len(pool), 0)

    def test_noCap(self):
        pool = GemSessionPool(object(), LOGIN, self.clock, None)
        for n in range(5):
            pool.open(str(n))
        self.assertEqual(len(pool), 5)

    def test_aLoginThatSucceededIsNews(self):
        """
        Each login that succeeds, and only those, tells C{answered} that
        the stone answers.
        """
        news = []
        pool = GemSessionPool(object(), LOGIN, self.clock, None,
                              answered=lambda: news.append("answered"))
        failed = pool.open("a")
        self.assertEqual(news, [])
        self.made[-1].loggingIn.errback(GciError(4051, "login failed"))
        self.made[-1].loggingOut.callback(None)
        self.failureResultOf(failed, GciError)
        d = pool.open("b")
        self.made[-1].loggingIn.callback(None)
        self.successResultOf(d)
        self.assertEqual(news, ["answered"])

    def test_failedLoginGivesTheSlotBackOnceLoggedOut(self):
        d = self.pool.open("a")
        gem = self.made[-1]
        gem.loggingIn.errback(GciError(4051, "login failed"))
        self.assertNoResult(d)
        self.assertTrue(gem.loggedOut)
        self.assertEqual(len(self.pool), 1)
        gem.loggingOut.callback(None)
        self.failureResultOf(d, GciError)
        self.assertEqual(len(self.pool), 0)

    def test_cancelledLoginHoldsItsSlotUntilLoggedOut(self):
        """
        A caller that stops waiting for a login (a client that hangs up)
        does not free its slot while the stone may still hold the login:
        --max-sessions is never exceeded.
        """
        d = self.pool.open("a")
        gem = self.made[-1]
        d.cancel()
        d.cancel()
        self.assertTrue(gem.loggedOut)
        self.pool.open("b")
        self.assertRaises(SessionLimitReached, self.pool.open, "c")
        gem.loggingOut.callback(None)
        self.failureResultOf(d, CancelledError)
        self.assertEqual(len(self.pool), 1)

    def test_freshCredentialsForEachLogin(self):
        """
        Each login asks for its credentials, for the user it is opened as
        (a bearer token's), or L{None} for the default.
        """
        passwords = iter(["one", "two"])

        def credentials(user):
            return succeed(LoginParameters(
                stoneNrs="s", gemNrs=None, user=user or "Worker",
                password=next(passwords)))

        pool = GemSessionPool(object(), LOGIN, self.clock, 2, credentials)
        pool.open("a")
        pool.open("b", user="Alice")
        self.assertEqual([(g.parameters.user, g.parameters.password)
                          for g in self.made],
                         [("Worker", "one"), ("Alice", "two")])

    def test_slotComesBackWhenTheLogoutDoes(self):
        gem = self.opened("a")
        self.opened("b")
        closing = self.pool.close(gem)
        self.assertEqual(len(self.pool), 2)
        self.assertRaises(SessionLimitReached, self.pool.open, "c")
        gem.loggingOut.callback(None)
        self.successResultOf(closing)
        self.assertEqual(len(self.pool), 1)

    def test_closeTwiceLogsOutOnce(self):
        gem = self.opened("a")
        self.pool.close(gem)
        gem.loggedOut = False
        self.successResultOf(self.pool.close(gem))
        self.assertFalse(gem.loggedOut)

    def test_closeUnknownGem(self):
        self.successResultOf(self.pool.close(LoginGem(None, None, None, "x")))

    def test_replaceAbandonsAndKeepsTheSlot(self):
        gem = self.opened("a")
        self.opened("b")
        d = self.pool.replace(gem, "a")
        self.assertIsNotNone(gem.abandoned)
        fresh = self.made[-1]
        fresh.loggingIn.callback(None)
        self.assertIs(self.successResultOf(d), fresh)
        self.assertEqual(len(self.pool), 2)


class CloseAllTests(PoolFixture):

    def setUp(self):
        super().setUp()
        self.idle = self.opened("idle")
        self.busy = self.opened("busy")
        self.busy.busy = True

    def test_busySessionIsBrokenUntilItLogsOut(self):
        """
        A break sent before a queued call starts is lost, so a busy session
        is hard-broken again each interval until its logout lands.
        """
        done = self.pool.closeAll()
        self.assertEqual(self.busy.interrupts, [True])
        self.assertEqual(self.idle.interrupts, [])
        self.clock.advance(self.pool.breakInterval)
        self.assertEqual(self.busy.interrupts, [True, True])
        self.idle.loggingOut.callback(None)
        self.busy.loggingOut.callback(None)
        self.successResultOf(done)
        self.clock.advance(self.pool.breakInterval * 3)
        self.assertEqual(self.busy.interrupts, [True, True])
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.assertEqual(len(self.pool), 0)

    def test_sessionAlreadyClosingLeftToItsCloser(self):
        """
        A busy session some other close is already logging out (breaking
        it softly first) gets no hard break from closeAll on top.
        """
        self.pool.close(self.busy)
        self.pool.closeAll()
        self.assertEqual(self.busy.interrupts, [])
        self.clock.advance(self.pool.breakInterval)
        self.assertEqual(self.busy.interrupts, [])

    def test_failedLogoutDoesNotFailCloseAll(self):
        done = self.pool.closeAll()
        self.idle.loggingOut.errback(GciError(4100, "gone", fatal=True))
        self.busy.loggingOut.callback(None)
        self.successResultOf(done)
        self.assertEqual(len(self.pool), 0)

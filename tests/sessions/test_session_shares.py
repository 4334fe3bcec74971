"""
Tests for L{gsmcpd.sessions.shares}: what each identity holds, counted by
the registry, against the fair shares.
"""

from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.observe.metrics import Metrics
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.lifetime import LifetimePolicy, Reaper
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.shares import (
    CALLS_PER_IDENTITY,
    CALLS_PER_SESSION,
    SESSIONS_PER_IDENTITY,
    FairShares,
    RequestInFlight,
    ShareExhausted,
    identityOf,
)
from tests.fakes import FakePool

ADA = Principal("ada", "Ada", frozenset(), 0.0)
BOB = Principal("bob", "Bob", frozenset(), 0.0)


class SharesTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool(maxSessions=10)
        self.metrics = Metrics("test")
        self.registry = SessionRegistry(
            self.pool, self.clock, metrics=self.metrics, warmReads=2,
            shares=FairShares(callsPerSession=2, callsPerIdentity=3,
                              sessionsPerIdentity=2))
        self.shares = self.registry.shares

    def opened(self, principal, throwaway=False):
        return self.successResultOf(self.registry.opener.open(principal,
                                                       throwaway=throwaway))

    def refused(self, cap, f, *args):
        error = self.assertRaises(ShareExhausted, f, *args)
        self.assertEqual(error.cap, cap)
        return error

    def call(self, session, requestId):
        run = RunningCall(session, requestId, self.registry, self.clock)
        self.shares.admitCall(session, session.principal)
        session.admit(run)
        return run

    def test_requestInFlightFirst(self):
        """
        A call whose request id runs in its work session is refused as
        such before its share is asked; another id is not.
        """
        session = self.opened(ADA)
        self.call(session, 1)
        self.call(session, 2)
        self.assertRaises(RequestInFlight, self.shares.admitCall, session,
                          ADA, 1)
        self.refused(CALLS_PER_SESSION, self.shares.admitCall, session, ADA,
                     3)

    def test_sessionShare(self):
        """
        An identity past its share of sessions is refused before any
        login; another identity is not, and one whose session closed has
        room again.
        """
        first = self.opened(ADA)
        self.opened(ADA)
        error = self.refused(SESSIONS_PER_IDENTITY, self.registry.opener.open,
                             ADA)
        self.assertEqual(error.limit, 2)
        self.assertEqual(len(self.pool.opened), 2)
        self.opened(BOB)
        self.registry.close(first.handle, "done")
        self.opened(ADA)
        self.assertEqual(self.shares.held(ADA), 2)

    def test_closedSessionHeldUntilLoggedOut(self):
        """
        A session closed while its call is being broken still counts in
        its identity's share until its login is given back: closing busy
        sessions does not let an identity hold more than its share.
        """
        busy = self.opened(ADA)
        self.opened(ADA)
        loggedOut = Deferred()
        self.pool.close = lambda gem: loggedOut
        self.registry.close(busy.handle, "its client left")
        self.refused(SESSIONS_PER_IDENTITY, self.registry.opener.open, ADA)
        loggedOut.callback(None)
        self.assertEqual(self.shares.held(ADA), 1)
        self.opened(ADA)

    def test_loginsUnderWayCount(self):
        """
        A login still under way holds its place in the share, and gives it
        back whether it succeeds or fails.
        """
        self.pool.loginDelay = Deferred()
        self.registry.opener.open(ADA)
        self.registry.opener.open(ADA)
        self.refused(SESSIONS_PER_IDENTITY, self.registry.opener.open, ADA)
        self.pool.loginDelay.callback(None)
        self.assertEqual(self.shares.held(ADA), 2)
        self.pool.loginDelay = None
        self.pool.loginError = RuntimeError("no")
        self.assertEqual(self.shares.held(BOB), 0)
        self.failureResultOf(self.registry.opener.open(BOB), RuntimeError)
        self.assertEqual(self.shares.held(BOB), 0)

    def test_throwawayCountsWhileLent(self):
        """
        A throwaway session counts for its identity while a call holds it,
        not once it is given back; nor does the spare logged in in its
        place, idle in the warm pool (it is the server's).
        """
        lent = self.opened(ADA, throwaway=True)
        self.assertEqual(self.shares.held(ADA), 1)
        self.successResultOf(self.registry.warm.giveBack(lent, "done"))
        self.assertEqual(len(self.registry.warm), 1)
        self.assertEqual(self.shares.held(ADA), 0)
        self.opened(ADA)
        self.opened(ADA)

    def test_callShares(self):
        """
        Calls in flight are capped per work session and per identity; a
        finished one gives its place back.
        """
        one, two = self.opened(ADA), self.opened(ADA)
        first = self.call(one, 1)
        self.call(one, 2)
        self.refused(CALLS_PER_SESSION, self.call, one, 3)
        self.call(two, 4)
        error = self.refused(CALLS_PER_IDENTITY, self.call, two, 5)
        self.assertEqual(error.limit, 3)
        self.assertEqual(self.shares.inFlight(ADA), 3)
        self.call(self.opened(BOB), 6)
        one.release(first)
        self.call(two, 7)

    def test_withoutAuthentication(self):
        """
        Without authentication there is no identity to share among: only
        the per-session cap applies.
        """
        sessions = [self.opened(None) for _ in range(5)]
        self.assertIsNone(identityOf(None))
        for n in range(2):
            self.call(sessions[0], n)
        self.refused(CALLS_PER_SESSION, self.call, sessions[0], 9)
        for n, session in enumerate(sessions[1:]):
            self.call(session, n)

    def test_handleIdlesOutAndFreesTheShare(self):
        """
        A handle idles out on --handle-idle-timeout however often it was
        touched before: a touch renews it up to the timeout, no further;
        its identity's share is then free.
        """
        session = self.opened(ADA)
        self.opened(ADA)
        policy = LifetimePolicy(handleIdleTimeout=300)
        reaper = Reaper(self.registry, None, policy, self.clock)
        for _ in range(100):
            self.clock.advance(1)
            self.registry.work.touch(session)
        self.clock.advance(299)
        reaper.maintain()
        self.assertIs(self.registry.work.get(session.handle), session)
        self.clock.advance(1)
        reaper.maintain()
        self.assertIsNone(self.registry.work.get(session.handle))
        self.opened(ADA)

"""
Tests for L{gsmcpd.sessions.lending}: the throwaway work session a 2026-era
call without a handle runs in, lent once the call is admitted, its refusals
this layer's own.
"""

from twisted.internet.defer import CancelledError, Deferred
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.gci.pool import SessionLimitReached
from gsmcpd.sessions.lending import Lender, NotAdmitted
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.shares import CALLS_PER_IDENTITY, FairShares
from tests.fakes import FakePool

ALICE = Principal("alice", "DataCurator", frozenset({"gemstone:read"}), 0)


class LenderTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool(2)
        self.registry = SessionRegistry(self.pool, self.clock)
        self.lender = Lender(self.registry)

    def test_admittedBeforeAThrowawayIsLent(self):
        """
        A call without a handle is admitted before a throwaway session is
        lent for it, so a refused call costs no login.
        """
        registry = SessionRegistry(self.pool, self.clock,
                                   shares=FairShares(callsPerIdentity=0))
        refused = self.assertRaises(NotAdmitted, Lender(registry).forCall,
                                    ALICE, None, 1, "x")
        self.assertEqual(refused.error.cap, CALLS_PER_IDENTITY)
        self.assertEqual(self.pool.opened, [])

    def test_full(self):
        """
        With every slot taken, the pool's refusal is raised as it is (the
        era words it); the call's own refusals are raised at once too.
        """
        for _ in range(2):
            self.successResultOf(self.registry.opener.open())
        self.assertRaises(SessionLimitReached, self.lender.forCall,
                          None, None, 1, "x")

    def test_borrowerThatStopsWaitingKeepsTheLoginCounted(self):
        """
        A client that hangs up during the login of its borrowed session
        does not cut the login short: its slot stays counted until the
        session it opened for nobody is closed.
        """
        self.pool.loginDelay = Deferred()
        borrowing = self.lender.borrowed(None, None, "x")
        borrowing.cancel()
        self.failureResultOf(borrowing, CancelledError)
        self.assertEqual(len(self.pool.open_), 1)
        self.pool.loginDelay.callback(None)
        self.assertEqual(len(self.registry.work), 0)
        self.assertTrue(self.pool.opened[0].loggedOut)
        self.assertEqual(len(self.pool.open_), 0)


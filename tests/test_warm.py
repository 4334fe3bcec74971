"""
Tests for L{gsmcpd.sessions.warm}: idle read sessions kept per GemStone
user, with a fake pool and a Clock.
"""

from twisted.internet.defer import Deferred, fail
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.pool import SessionLimitReached
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.warm import IDLE_LIMIT
from tests.fakes import FakePool

ALICE = Principal("a", "Alice", frozenset(), 0.0)
BOB = Principal("b", "Bob", frozenset(), 0.0)


class WarmSessionsTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool(3)
        self.registry = SessionRegistry(self.pool, self.clock, warmReads=2)
        self.warm = self.registry.warm

    def read(self, principal=None):
        """
        A session opened for a read that ended cleanly, kept.
        """
        session = self.successResultOf(
            self.registry.open(principal))
        self.successResultOf(self.warm.keep(session, "read done"))
        return session

    def test_keptSessionTakenWithItsViewMoved(self):
        """
        A kept session stays registered and logged in; taking it aborts
        first (the newest commit, nothing to lose) and forgets its reads.
        """
        session = self.read()
        session.ledger.viewMoved = lambda: setattr(self, "moved", True)
        self.assertIs(self.registry.get(session.handle), session)
        self.assertFalse(session.gem.loggedOut)
        self.assertIs(self.successResultOf(self.warm.take(None)), session)
        self.assertEqual(session.gem.calls, [("abort", {})])
        self.assertTrue(self.moved)
        self.assertIsNone(self.warm.take(None))

    def test_neverAnotherUsers(self):
        self.read(ALICE)
        self.assertIsNone(self.warm.take(BOB))
        self.assertIsNone(self.warm.take(None))
        self.assertEqual(self.successResultOf(
            self.warm.take(ALICE)).principal, ALICE)

    def test_countsInItsBorrowersShare(self):
        """
        Two identities may log in as one GemStone user: a kept session
        taken by the other counts in the taker's share, not in the share
        of the identity it was opened for.
        """
        other = Principal("a2", "Alice", frozenset(), 0.0)
        session = self.read(ALICE)
        shares = self.registry.shares
        self.assertEqual((shares.held(ALICE), shares.held(other)), (0, 0))
        self.assertIs(self.successResultOf(self.warm.take(other)), session)
        self.assertIs(session.principal, other)
        self.assertEqual((shares.held(ALICE), shares.held(other)), (0, 1))

    def test_endedCallClosedNotKept(self):
        """
        A session one of whose calls the server ended (a break, a
        cancellation, a deadline) is closed, even if its gem is idle now.
        """
        session = self.successResultOf(self.registry.open())
        session.calls.ended = True
        self.successResultOf(self.warm.keep(session, "read done"))
        self.assertIsNone(self.registry.get(session.handle))
        self.assertTrue(session.gem.loggedOut)
        self.assertIsNone(self.warm.take(None))

    def test_busyOrGoneClosedNotKept(self):
        busy = self.successResultOf(self.registry.open())
        busy.gem.pending.append(None)
        self.warm.keep(busy, "read done")
        gone = self.successResultOf(self.registry.open())
        self.registry.close(gone.handle, "its gem died")
        self.successResultOf(self.warm.keep(gone, "read done"))
        self.assertIsNone(self.registry.get(busy.handle))
        self.assertEqual(len(self.warm), 0)

    def test_failedAbortClosesIt(self):
        """
        A session whose view cannot be moved is closed; the taker is told
        to log in instead.
        """
        session = self.read()

        def broken(arguments):
            raise GciError(4100, "the gem is gone", fatal=True)
        session.gem.results["abort"] = broken
        self.assertIsNone(self.successResultOf(self.warm.take(None)))
        self.assertIsNone(self.registry.get(session.handle))
        self.assertTrue(session.gem.loggedOut)

    def test_unexpectedAbortFailureClosesIt(self):
        """
        A bug moving the view is logged, and the session is closed all the
        same rather than left registered and unused.
        """
        session = self.read()
        session.gem.execute = lambda source, maxBytes: fail(
            RuntimeError("a bug"))
        self.assertIsNone(self.successResultOf(self.warm.take(None)))
        self.assertIsNone(self.registry.get(session.handle))
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)

    def test_changedWorkAbortedAtOnce(self):
        """
        The session of a call that could change something is aborted as the
        call ends, before any later call takes it; and once more when one
        does, to move its view.
        """
        session = self.successResultOf(self.registry.open())
        session.journal.record("compiled", "Account>>x", "Account")
        self.successResultOf(self.warm.keep(session, "call done", True))
        self.assertEqual(session.gem.calls, [("abort", {})])
        self.assertEqual(len(session.journal), 0)
        self.assertEqual(len(self.warm), 1)
        self.assertIs(self.successResultOf(self.warm.take(None)), session)
        self.assertEqual(session.gem.calls, [("abort", {})] * 2)

    def test_changedWorkNotAbortedIsClosed(self):
        """
        A session whose work cannot be aborted is logged out (which
        discards it) rather than left idle for the next call.
        """
        session = self.successResultOf(self.registry.open())

        def broken(arguments):
            raise GciError(4100, "the gem is gone", fatal=True)
        session.gem.results["abort"] = broken
        self.warm.keep(session, "call done", True)
        self.assertIsNone(self.registry.get(session.handle))
        self.assertTrue(session.gem.loggedOut)
        self.assertIsNone(self.warm.take(None))

    def test_idleExpiry(self):
        session = self.read()
        self.clock.advance(IDLE_LIMIT - 1)
        self.assertIs(self.registry.get(session.handle), session)
        self.clock.advance(1)
        self.assertIsNone(self.registry.get(session.handle))
        self.assertTrue(session.gem.loggedOut)
        self.assertIsNone(self.warm.take(None))

    def test_takenSessionDoesNotExpire(self):
        session = self.read()
        self.successResultOf(self.warm.take(None))
        self.clock.advance(IDLE_LIMIT * 2)
        self.assertIs(self.registry.get(session.handle), session)

    def test_perUserCap(self):
        """
        At most C{perUser} idle per GemStone user: the longest idle goes.
        """
        first = self.read()
        self.clock.advance(1)
        second, third = self.read(), self.read()
        self.assertIsNone(self.registry.get(first.handle))
        self.assertEqual(len(self.warm), 2)
        self.assertEqual({self.successResultOf(self.warm.take(None)),
                          self.successResultOf(self.warm.take(None))},
                         {second, third})

    def test_off(self):
        """
        0 keeps none: the read's session is closed, as without the pool.
        """
        self.warm.perUser = 0
        session = self.successResultOf(self.registry.open())
        self.successResultOf(self.warm.keep(session, "read done"))
        self.assertIsNone(self.registry.get(session.handle))
        self.assertTrue(session.gem.loggedOut)

    def test_closeAllClosesIdle(self):
        session = self.read()
        self.successResultOf(self.registry.closeAll("stopping"))
        self.assertTrue(session.gem.loggedOut)
        self.assertEqual(len(self.warm), 0)
        self.assertEqual(self.clock.getDelayedCalls(), [])


class EvictionTests(SynchronousTestCase):
    """
    Idle sessions hold their slots, but give them up to new sessions: the
    cap stays exact.
    """

    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool(2)
        self.registry = SessionRegistry(self.pool, self.clock, warmReads=2)

    def kept(self):
        session = self.successResultOf(self.registry.open())
        self.successResultOf(self.registry.warm.keep(session, "read done"))
        return session

    def test_newSessionWaitsForTheIdleOnesLogout(self):
        """
        With the cap reached by an idle session, a new session closes it
        and logs in once its logout is done: never more logins than the
        cap, and not refused.
        """
        self.successResultOf(self.registry.open())
        idle = self.kept()
        logout = Deferred()
        idle.gem.logout = lambda: logout
        opening = self.registry.open()
        self.assertIsNone(self.registry.get(idle.handle))
        self.assertNoResult(opening)
        self.assertEqual(len(self.pool.opened), 2)
        logout.callback(None)
        self.assertEqual(len(self.pool.opened), 3)
        self.assertEqual(len(self.pool.open_), 2)
        self.successResultOf(opening)

    def test_onlyAsManyAsAreIdle(self):
        """
        Two new sessions and one idle session: one is admitted, the other
        refused at once, as without the pool.
        """
        self.successResultOf(self.registry.open())
        self.kept()
        self.successResultOf(self.registry.open())
        self.assertRaises(SessionLimitReached, self.registry.open)
        self.assertEqual(len(self.pool.open_), 2)

    def test_longestIdleEvictedFirst(self):
        older = self.kept()
        self.clock.advance(1)
        newer = self.kept()
        self.successResultOf(self.registry.open())
        self.assertIsNone(self.registry.get(older.handle))
        self.assertIs(self.registry.get(newer.handle), newer)

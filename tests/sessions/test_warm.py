"""
Tests for L{gsmcpd.sessions.warm}: a throwaway session logged out after its
call, and spares never used for a call logged in ahead per GemStone user,
with a fake pool and a Clock.
"""

from twisted.internet.defer import Deferred, fail
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.pool import SessionLimitReached
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.warm import IDLE_LIMIT, THROWAWAY_REASON
from tests.fakes import FakePool

ALICE = Principal("a", "Alice", frozenset(), 0.0)
BOB = Principal("b", "Bob", frozenset(), 0.0)
LOCK = ("disable_commits", {"reason": THROWAWAY_REASON})


def idle(registry):
    """
    The sessions idle in C{registry}'s warm pool.
    """
    return [session for session in registry.work
            if registry.warm._timers.get(session.handle)]


class WarmSessionsTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool(3)
        self.registry = SessionRegistry(self.pool, self.clock, warmReads=2)
        self.warm = self.registry.warm

    def called(self, principal=None):
        """
        A session opened for a call that ended cleanly, given back; the
        spare logged in for the next call in its place.
        """
        used = self.successResultOf(self.registry.opener.open(principal))
        self.successResultOf(self.warm.giveBack(used, "call done"))
        spare, = [session for session in idle(self.registry)
                  if session.principal is principal
                  and session.gem is self.pool.opened[-1]]
        return spare

    def test_usedSessionLoggedOutSpareIdles(self):
        """
        A session given back after its call is logged out, whatever the
        call did (GemStone cannot reset a session's state from outside); a
        spare never used for a call, commit-locked, idles in its place.
        """
        used = self.successResultOf(self.registry.opener.open(ALICE))
        self.successResultOf(self.warm.giveBack(used, "call done"))
        self.assertIsNone(self.registry.work.get(used.handle))
        self.assertTrue(used.gem.loggedOut)
        spare, = idle(self.registry)
        self.assertIsNot(spare, used)
        self.assertEqual((spare.principal, spare.throwaway, spare.gem.user),
                         (ALICE, True, "Alice"))
        self.assertEqual(spare.gem.calls, [LOCK])

    def test_spareWaitsForTheLogout(self):
        """
        The spare logs in once the used session's slot is free: the two
        never hold two slots at once.
        """
        used = self.successResultOf(self.registry.opener.open())
        logout = Deferred()
        used.gem.logout = lambda: logout
        self.warm.giveBack(used, "call done")
        self.assertEqual(len(self.pool.opened), 1)
        logout.callback(None)
        self.assertEqual(len(self.pool.opened), 2)
        self.assertEqual(len(self.warm), 1)

    def test_spareTakenWithItsViewMoved(self):
        """
        Taking a spare aborts first (the newest commit, nothing to lose)
        and forgets its reads; taken, it idles no more.
        """
        session = self.called()
        session.ledger.viewMoved = lambda: setattr(self, "moved", True)
        self.assertIs(self.successResultOf(self.warm.take(None)), session)
        self.assertEqual(session.gem.calls, [LOCK, ("abort", {})])
        self.assertTrue(self.moved)
        self.assertIsNone(self.warm.take(None))

    def test_neverAnotherUsers(self):
        self.called(ALICE)
        self.assertIsNone(self.warm.take(BOB))
        self.assertIsNone(self.warm.take(None))
        self.assertEqual(self.successResultOf(
            self.warm.take(ALICE)).principal, ALICE)

    def test_countsInItsBorrowersShare(self):
        """
        Two identities may log in as one GemStone user: a spare taken by
        the other counts in the taker's share; idle, in nobody's.
        """
        other = Principal("a2", "Alice", frozenset(), 0.0)
        session = self.called(ALICE)
        shares = self.registry.shares
        self.assertEqual((shares.held(ALICE), shares.held(other)), (0, 0))
        self.assertIs(self.successResultOf(self.warm.take(other)), session)
        self.assertIs(session.principal, other)
        self.assertEqual((shares.held(ALICE), shares.held(other)), (0, 1))

    def test_spareLoginCountsInNoShare(self):
        """
        A spare's login under way is the server's: it counts in no
        identity's share of sessions.
        """
        used = self.successResultOf(self.registry.opener.open(ALICE))
        self.pool.loginDelay = Deferred()
        self.warm.giveBack(used, "call done")
        self.assertEqual(self.registry.shares.held(ALICE), 0)
        self.pool.loginDelay.callback(None)
        self.assertEqual(len(self.warm), 1)

    def test_endedCallNoSpare(self):
        """
        A session one of whose calls the server ended (a break, a
        cancellation, a deadline) is logged out with no spare: something
        may be wrong with the stone.
        """
        session = self.successResultOf(self.registry.opener.open())
        session.calls.ended = True
        self.successResultOf(self.warm.giveBack(session, "call done"))
        self.assertIsNone(self.registry.work.get(session.handle))
        self.assertTrue(session.gem.loggedOut)
        self.assertEqual(len(self.pool.opened), 1)
        self.assertIsNone(self.warm.take(None))

    def test_busyOrGoneNoSpare(self):
        busy = self.successResultOf(self.registry.opener.open())
        busy.gem.pending.append(None)
        self.warm.giveBack(busy, "call done")
        gone = self.successResultOf(self.registry.opener.open())
        self.registry.close(gone.handle, "its gem died")
        self.successResultOf(self.warm.giveBack(gone, "call done"))
        self.assertIsNone(self.registry.work.get(busy.handle))
        self.assertEqual(len(self.pool.opened), 2)
        self.assertEqual(len(self.warm), 0)

    def test_sparesUpToPerUser(self):
        """
        At most C{perUser} spares per GemStone user: a third call given
        back logs none in, and another user has spares of its own.
        """
        for principal in (ALICE, ALICE, ALICE, BOB):
            used = self.successResultOf(self.registry.opener.open(principal))
            self.successResultOf(self.warm.giveBack(used, "call done"))
        self.assertEqual(len(self.pool.opened), 4 + 3)
        self.assertEqual(sorted(s.principal.user for s in idle(
            self.registry)), ["Alice", "Alice", "Bob"])

    def test_loginsUnderWayCount(self):
        """
        A spare still logging in counts against C{perUser}: a call given
        back meanwhile logs no second one in.
        """
        self.warm.perUser = 1
        first, second = [self.successResultOf(self.registry.opener.open())
                         for _ in range(2)]
        self.pool.loginDelay = Deferred()
        self.warm.giveBack(first, "call done")
        self.warm.giveBack(second, "call done")
        self.assertEqual(len(self.pool.opened), 3)
        self.pool.loginDelay.callback(None)
        self.assertEqual(len(self.warm), 1)

    def test_failedSpareLogin(self):
        """
        A spare whose login fails is not waited for: the next call logs in
        itself, and a later spare may be tried again.
        """
        used = self.successResultOf(self.registry.opener.open())
        self.pool.loginError = GciError(4051, "login denied", fatal=True)
        self.successResultOf(self.warm.giveBack(used, "call done"))
        self.assertEqual(len(self.warm), 0)
        self.pool.loginError = None
        used = self.successResultOf(self.registry.opener.open())
        self.successResultOf(self.warm.giveBack(used, "call done"))
        self.assertEqual(len(self.warm), 1)

    def test_unexpectedSpareLoginFailureLogged(self):
        """
        A bug logging a spare in is logged, though no call waits for it.
        """
        used = self.successResultOf(self.registry.opener.open())
        self.pool.loginError = RuntimeError("a bug")
        self.successResultOf(self.warm.giveBack(used, "call done"))
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        self.assertEqual(len(self.warm), 0)

    def test_noSlotOrStoppingNoSpare(self):
        """
        No spare takes a slot another opener took first, nor logs in
        while the daemon drains; the used session is logged out all the
        same.
        """
        used = self.successResultOf(self.registry.opener.open())
        logout = Deferred()
        used.gem.logout = lambda: logout
        self.warm.giveBack(used, "call done")
        self.pool.maxSessions = 0
        logout.callback(None)
        self.pool.maxSessions = 3
        used = self.successResultOf(self.registry.opener.open())
        self.pool.refuseNew()
        self.successResultOf(self.warm.giveBack(used, "call done"))
        self.assertTrue(used.gem.loggedOut)
        self.assertEqual((len(self.pool.opened), len(self.warm)), (2, 0))

    def test_failedAbortClosesIt(self):
        """
        A spare whose view cannot be moved is closed; the taker is told
        to log in instead.
        """
        session = self.called()

        def broken(arguments):
            raise GciError(4100, "the gem is gone", fatal=True)
        session.gem.results["abort"] = broken
        self.assertIsNone(self.successResultOf(self.warm.take(None)))
        self.assertIsNone(self.registry.work.get(session.handle))
        self.assertTrue(session.gem.loggedOut)

    def test_unexpectedAbortFailureClosesIt(self):
        """
        A bug moving the view is logged, and the session is closed all the
        same rather than left registered and unused.
        """
        session = self.called()
        session.gem.execute = lambda source, maxBytes: fail(
            RuntimeError("a bug"))
        self.assertIsNone(self.successResultOf(self.warm.take(None)))
        self.assertIsNone(self.registry.work.get(session.handle))
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)

    def test_idleExpiry(self):
        session = self.called()
        self.clock.advance(IDLE_LIMIT - 1)
        self.assertIs(self.registry.work.get(session.handle), session)
        self.clock.advance(1)
        self.assertIsNone(self.registry.work.get(session.handle))
        self.assertTrue(session.gem.loggedOut)
        self.assertIsNone(self.warm.take(None))

    def test_takenSessionDoesNotExpire(self):
        session = self.called()
        self.successResultOf(self.warm.take(None))
        self.clock.advance(IDLE_LIMIT * 2)
        self.assertIs(self.registry.work.get(session.handle), session)

    def test_off(self):
        """
        0 keeps none: the call's session is logged out and no spare logs
        in, as without the pool.
        """
        self.warm.perUser = 0
        session = self.successResultOf(self.registry.opener.open())
        self.successResultOf(self.warm.giveBack(session, "call done"))
        self.assertIsNone(self.registry.work.get(session.handle))
        self.assertTrue(session.gem.loggedOut)
        self.assertEqual(len(self.pool.opened), 1)

    def test_closeAllClosesIdle(self):
        session = self.called()
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
        """
        A call's session given back: the spare that replaced it.
        """
        session = self.successResultOf(self.registry.opener.open())
        self.successResultOf(self.registry.warm.giveBack(session, "call done"))
        spare, = [s for s in idle(self.registry)
                  if s.gem is self.pool.opened[-1]]
        return spare

    def test_newSessionWaitsForTheIdleOnesLogout(self):
        """
        With the cap reached by an idle session, a new session closes it
        and logs in once its logout is done: never more logins than the
        cap, and not refused.
        """
        self.successResultOf(self.registry.opener.open())
        spare = self.kept()
        logout = Deferred()
        spare.gem.logout = lambda: logout
        opening = self.registry.opener.open()
        self.assertIsNone(self.registry.work.get(spare.handle))
        self.assertNoResult(opening)
        self.assertEqual(len(self.pool.opened), 3)
        logout.callback(None)
        self.assertEqual(len(self.pool.opened), 4)
        self.assertEqual(len(self.pool.open_), 2)
        self.successResultOf(opening)

    def test_onlyAsManyAsAreIdle(self):
        """
        Two new sessions and one idle session: one is admitted, the other
        refused at once, as without the pool.
        """
        self.successResultOf(self.registry.opener.open())
        self.kept()
        self.successResultOf(self.registry.opener.open())
        self.assertRaises(SessionLimitReached, self.registry.opener.open)
        self.assertEqual(len(self.pool.open_), 2)

    def test_longestIdleEvictedFirst(self):
        older = self.kept()
        self.clock.advance(1)
        newer = self.kept()
        self.successResultOf(self.registry.opener.open())
        self.assertIsNone(self.registry.work.get(older.handle))
        self.assertIs(self.registry.work.get(newer.handle), newer)

    def comingSpare(self):
        """
        A call's session given back with the pool full: its spare's login
        is under way, and fires the L{Deferred} returned.
        """
        session = self.successResultOf(self.registry.opener.open())
        self.pool.loginDelay = Deferred()
        self.successResultOf(self.registry.warm.giveBack(session, "call done"))
        delay, self.pool.loginDelay = self.pool.loginDelay, None
        return delay

    def test_newSessionWaitsForAComingSparesLogin(self):
        """
        A spare still logging in gives its slot up too: a new session waits
        for its login to be over, has it logged out, then logs in; never
        refused because of a spare, and never more logins than the cap.
        """
        self.pool.maxSessions = 1
        login = self.comingSpare()
        opening = self.registry.opener.open()
        self.assertNoResult(opening)
        spareGem = self.pool.opened[-1]
        login.callback(None)
        self.assertTrue(spareGem.loggedOut)
        session = self.successResultOf(opening)
        self.assertIs(session.gem, self.pool.opened[-1])
        self.assertEqual(list(self.pool.open_), [session.gem])
        self.assertEqual(len(self.registry.warm), 0)

    def test_comingSpareFailedLogin(self):
        """
        A new session waiting for a spare's slot logs in when the spare's
        login fails instead.
        """
        self.pool.maxSessions = 1
        login = self.comingSpare()
        opening = self.registry.opener.open()
        spareGem = self.pool.opened[-1]
        self.pool.open_.discard(spareGem)
        login.errback(GciError(4051, "login denied", fatal=True))
        session = self.successResultOf(opening)
        self.assertEqual(list(self.pool.open_), [session.gem])

    def test_yielding(self):
        """
        The slots spares would give up count a spare logging in until a
        new session claims it, and an idle one.
        """
        warm = self.registry.warm
        login = self.comingSpare()
        self.assertEqual(warm.yielding(), 1)
        self.pool.maxSessions = 1
        opening = self.registry.opener.open()
        self.assertEqual(warm.yielding(), 0)
        login.callback(None)
        session = self.successResultOf(opening)
        self.assertEqual(warm.yielding(), 0)
        self.successResultOf(warm.giveBack(session, "call done"))
        self.assertEqual((len(warm), warm.yielding()), (1, 1))

    def test_oneNewSessionPerComingSpare(self):
        """
        Two new sessions and one spare logging in: one waits for its slot,
        the other is refused at once, as without the pool.
        """
        self.pool.maxSessions = 1
        login = self.comingSpare()
        opening = self.registry.opener.open()
        self.assertRaises(SessionLimitReached, self.registry.opener.open)
        login.callback(None)
        self.successResultOf(opening)
        self.assertEqual(len(self.pool.open_), 1)

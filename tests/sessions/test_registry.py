"""
Tests for L{gsmcpd.sessions.registry}, with a fake pool and a Clock.
"""

from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from twisted.logger import Logger
from twisted.trial.unittest import TestCase

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.pool import SessionLimitReached
from gsmcpd.observe.metrics import Metrics
from gsmcpd.sessions.breaks import HARD_BREAK_DELAY, REPLACE_DELAY, RunningCall
from gsmcpd.sessions.logins import LoginNotAnswered
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.warm import THROWAWAY_REASON
from gsmcpd.tools.templates.outcomes import ToolError
from tests.fakes import FakePool, SmalltalkRaised


class FakeStream:
    """
    What the registry needs of an event stream.
    """

    def __init__(self, generation, onLost):
        self.generation = generation
        self.onLost = onLost
        self.sequence = type("Sequence", (), {"key": f"g{generation}"})()
        self.ended = None
        self.endedBy = None

    def end(self, reason="server"):
        self.ended = reason


class RegistryTests(TestCase):

    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool()
        self.stopped = []
        self.refusePreparation = False
        self.registry = SessionRegistry(self.pool, self.clock,
                                        streamLossGrace=10,
                                        prepare=self.prepareSession,
                                        stopGem=self.stopped.append)
        self.clock.advance(100)
        self.client = self.successResultOf(self.registry.clients.open(
            "2025-11-25", {"name": "test"}))
        self.session = self.client.work

    def test_loginsCountedByOutcome(self):
        """
        Every login is counted once, in whichever era it was asked for.
        """
        metrics = Metrics("1", processMetrics=False)
        pool = FakePool(1)
        registry = SessionRegistry(pool, self.clock, metrics=metrics)
        logged = []
        registry.logins.log = Logger(observer=logged.append)
        pool.loginError = GciError(4051, "login denied", reason="on host9")
        self.failureResultOf(registry.opener.open(), GciError)
        pool.loginError = None
        self.successResultOf(registry.opener.open())
        self.assertRaises(SessionLimitReached, registry.opener.open)
        self.assertEqual(
            {outcome: metrics.registry.get_sample_value(
                "gsmcpd_logins_total", {"outcome": outcome})
             for outcome in ("ok", "failed", "refused")},
            {"ok": 1, "failed": 1, "refused": 1})
        [event] = [e for e in logged
                   if "GemStone login failed" in e["log_format"]]
        self.assertEqual(event["reason"], "on host9")

    def test_loginPastItsDeadline(self):
        """
        A login the stone does not answer within C{loginDeadline} fails
        with L{LoginNotAnswered}; its slot stays taken until the login
        ends (the cap holds), and the session it then opens is logged out
        and its slot given back.
        """
        pool = FakePool(1)
        registry = SessionRegistry(pool, self.clock, loginDeadline=10)
        logged = []
        registry.opener.log = Logger(observer=logged.append)
        pool.loginDelay = Deferred()
        opening = registry.opener.open()
        self.clock.advance(9.9)
        self.assertNoResult(opening)
        self.clock.advance(0.1)
        failure = self.failureResultOf(opening, LoginNotAnswered)
        self.assertEqual(failure.value.deadline, 10)
        self.assertIn("has not answered a login for 10s",
                      logged[-1]["log_format"].format(**logged[-1]))
        self.assertRaises(SessionLimitReached, registry.opener.open)
        pool.loginDelay.callback(None)
        self.assertEqual(len(registry.work), 0)
        self.assertEqual(pool.open_, set())
        self.assertTrue(pool.opened[0].loggedOut)
        pool.loginDelay = None
        self.successResultOf(registry.opener.open())

    def test_loginWithinItsDeadline(self):
        """
        A login that answers in time is served, and its failure is
        answered as it was; no timer is left behind.
        """
        pool = FakePool(2)
        registry = SessionRegistry(pool, self.clock, loginDeadline=10)
        session = self.successResultOf(registry.opener.open())
        self.assertIs(registry.work.get(session.handle), session)
        pool.loginError = GciError(4051, "login denied")
        self.failureResultOf(registry.opener.open(), GciError)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_openedSessionStartsLive(self):
        self.assertIs(self.registry.work.get(self.session.handle),
                      self.session)
        self.assertEqual(len(self.session.handle), 32)
        liveness = self.session.liveness
        self.assertEqual((liveness.createdAt, liveness.lastActivity),
                         (100, 100))

    def test_touchIsActivity(self):
        self.clock.advance(5)
        self.registry.work.touch(self.session)
        self.assertEqual(self.session.liveness.lastActivity, 105)

    def test_activeRetractsTheGrace(self):
        """
        A request for a 2025 client's work session is activity, and
        retracts the verdict pending on its client's lost stream.
        """
        stream = self.registry.clients.openStream(self.client, FakeStream)
        stream.onLost(stream)
        self.clock.advance(5)
        self.registry.active(self.session)
        self.assertEqual(self.session.liveness.lastActivity, 105)
        self.clock.advance(10)
        self.assertIs(self.registry.work.get(self.session.handle),
                      self.session)

    def test_throwawayNotActive(self):
        """A throwaway session is kept for nobody: no request touches it."""
        throwaway = self.successResultOf(self.registry.opener.open(
            None, throwaway=True))
        self.clock.advance(5)
        self.registry.active(throwaway)
        self.assertEqual(throwaway.liveness.lastActivity, 100)

    def test_replacedWaits(self):
        """
        A request for a session whose gem is being replaced counts as
        activity, and waits until the replacement is over.
        """
        self.session.replacementBegan()
        self.clock.advance(5)
        waiting = self.registry.replaced(self.session)
        self.assertEqual(self.session.liveness.lastActivity, 105)
        self.assertNoResult(waiting)
        self.session.replacementOver()
        self.successResultOf(waiting)

    def test_newestStreamWins(self):
        first = self.registry.clients.openStream(self.client, FakeStream)
        second = self.registry.clients.openStream(self.client, FakeStream)
        self.assertEqual((first.ended, second.generation), ("superseded", 2))
        self.assertEqual(set(self.client.sequences), {"g1", "g2"})

    def test_lostStreamClosesAfterGrace(self):
        stream = self.registry.clients.openStream(self.client, FakeStream)
        stream.onLost(stream)
        self.clock.advance(9)
        self.assertIsNotNone(self.registry.work.get(self.session.handle))
        self.clock.advance(1)
        self.assertIsNone(self.registry.work.get(self.session.handle))
        self.assertTrue(self.pool.opened[0].loggedOut)

    def test_replacementMakesTheNextRequestWait(self):
        self.pool.replacementDelay = Deferred()
        old = self.session.gem
        old.pending.append((Deferred(), "execute_code", {}))
        self.registry.replacement.replace(self.session, "a runaway call")
        waiting = self.session.calls.replacing
        self.assertNoResult(waiting)
        self.pool.replacementDelay.callback(None)
        self.successResultOf(waiting)
        self.assertIsNone(self.session.calls.replacing)
        self.assertIsNot(self.session.gem, old)

    def prepareSession(self, session):
        """
        The daemon's preparation of a new session: none, or refused.
        """
        if self.refusePreparation:
            raise RuntimeError("no commit lock")

    def busyWithACall(self, session):
        """
        A call on C{session}'s gem that takes no break, and its
        L{RunningCall}: C{(call, running)}.
        """
        gem = session.gem
        gem.held, gem.ignores = True, {"soft", "hard"}
        call = gem.execute('"gsmcp:status"\n1', 100)
        running = RunningCall(session, 7, self.registry.replacement,
                              self.clock)
        running.track(call)
        session.admit(running)
        session.view.stoneSession = 12
        return call, running

    def test_closedSessionIsNotReplaced(self):
        """
        A session closed while its call was being ended gets no new
        GemStone session (nobody would log it out): its gem is stopped, so
        its logout can run.
        """
        stopped = self.stopped
        self.busyWithACall(self.session)
        self.registry.close(self.session.handle, "its client left")
        opened = len(self.pool.opened)
        self.successResultOf(self.registry.replacement.replace(
            self.session, "runaway"))
        self.assertEqual(len(self.pool.opened), opened)
        self.assertIn(12, stopped)

    def test_closeLeavesAnEndingCallItsOwnBreaks(self):
        """
        Closing a session whose call is already being ended sends no break
        of its own (two at once have crashed GemStone's client library):
        the call's escalation ends in its gem stopped, and no login is
        left behind.
        """
        stopped = self.stopped
        call, running = self.busyWithACall(self.session)
        running.end("cancelled")
        self.registry.close(self.session.handle, "its client left")
        gem = self.session.gem
        self.assertEqual(gem.interrupts, [False])
        self.clock.advance(HARD_BREAK_DELAY)
        self.assertEqual(gem.interrupts, [False, True])
        opened = len(self.pool.opened)
        self.clock.advance(REPLACE_DELAY)
        self.assertEqual((len(self.pool.opened), stopped), (opened, [12]))
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_unpreparedReplacementClosesTheSession(self):
        """
        A replacement its preparation refuses (no commit lock under
        --read-only, say) is never served: the session closes, and the
        failure is logged once.
        """
        self.refusePreparation = True
        self.session.gem.pending.append((Deferred(), "execute_code", {}))
        replacing = self.registry.replacement.replace(self.session,
                                                      "a runaway call")
        self.successResultOf(replacing)
        self.assertIsNone(self.registry.work.get(self.session.handle))
        self.assertIsNone(self.session.calls.replacing)
        replacement = self.pool.opened[-1]
        self.assertIs(self.session.gem, replacement)
        self.assertTrue(replacement.loggedOut)
        [logged] = self.flushLoggedErrors(RuntimeError)
        self.assertEqual(str(logged.value), "no commit lock")

    def test_failedReplacementLoginClosesTheSession(self):
        self.pool.replacementDelay = Deferred()
        self.session.gem.pending.append((Deferred(), "execute_code", {}))
        replacing = self.registry.replacement.replace(self.session,
                                                      "a runaway call")
        self.pool.replacementDelay.errback(ConnectionRefusedError())
        self.successResultOf(replacing)
        self.assertIsNone(self.registry.work.get(self.session.handle))
        self.assertEqual(len(self.flushLoggedErrors(ConnectionRefusedError)),
                         1)

    def test_throwawayLockedAtLoginAndReplacement(self):
        """
        A throwaway session's commits are locked before it serves, and
        again on its replacement GemStone session; another's are not.
        """
        lock = ("disable_commits", {"reason": THROWAWAY_REASON})
        self.assertEqual(self.session.gem.calls, [])
        session = self.successResultOf(
            self.registry.opener.open(throwaway=True))
        self.assertEqual(session.gem.calls, [lock])
        old = session.gem
        old.pending.append((Deferred(), "execute_code", {}))
        self.successResultOf(
            self.registry.replacement.replace(session, "runaway"))
        self.assertIsNot(session.gem, old)
        self.assertEqual(session.gem.calls, [lock])

    def test_unlockedThrowawayNeverServed(self):
        """
        A throwaway session whose commits cannot be locked is never
        served: its GemStone session goes back.
        """
        def refuse(arguments):
            raise SmalltalkRaised(2012, "Error", "no lock here")

        self.pool.configure = lambda gem: gem.results.update(
            disable_commits=refuse)
        self.failureResultOf(self.registry.opener.open(throwaway=True),
                             ToolError)
        self.assertTrue(self.pool.opened[-1].loggedOut)
        self.assertEqual(len(self.registry.work), 1)

    def test_closeAll(self):
        self.successResultOf(self.registry.closeAll("stopping"))
        self.assertEqual(len(self.registry.work), 0)

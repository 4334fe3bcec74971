"""
View hygiene and gem names, on a Clock over fake GemStone sessions.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.gci.errors import GciError
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.hygiene import (
    CACHE_NAME_LIMIT,
    GemPreparation,
    ViewHygiene,
    gemName,
)
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.tools.ledger import methodKey
from tests.fakes import FakeGem, FakePool, SmalltalkRaised


class GemNameTests(SynchronousTestCase):

    def test_shape(self):
        self.assertEqual(gemName("8000", "978ec559aabbccdd"),
                         "gsmcp:8000:978ec559")

    def test_identifyingFieldsKeptWhole(self):
        name = gemName("8443", "978ec559aabbccdd", prefix="x" * 40)
        self.assertEqual(len(name), CACHE_NAME_LIMIT)
        self.assertTrue(name.endswith(":8443:978ec559"))


class HygieneTestCase(TestCase):

    maxCommitsBehind = 20

    @inlineCallbacks
    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool()
        self.registry = SessionRegistry(
            self.pool, self.clock, prepare=GemPreparation(lambda: "8000"))
        self.control = FakeGem("control")
        self.hygiene = ViewHygiene(self.registry, self.clock,
                                   self.maxCommitsBehind, stuckViewGrace=300,
                                   pinnedViewGrace=120, control=self.control)
        self.state = {"commitsBehind": 0, "signalAbortBacklog": None,
                      "session": 7}
        self.backlog = {"backlog": 0, "oldestPinnedBy": []}
        self.control.results["backlog_state"] = lambda args: self.backlog
        self.control.results["continue_transaction"] = lambda args: {
            "continued": True}
        self.pool.configure = self.configure
        self.session = yield self.open()
        self.gem = self.session.gem

    def configure(self, gem):
        gem.results["open_session"] = lambda args: dict(self.state, name=args["name"])
        gem.results["session_state"] = lambda args: dict(self.state)
        gem.results["continue_transaction"] = lambda args: {"continued": True}

    def open(self):
        return self.registry.opener.open(clientInfo={"name": "test"})

    def tags(self):
        return [tag for tag, _ in self.gem.calls]


class PrepareTests(HygieneTestCase):

    def test_namesTheGem(self):
        self.assertEqual(self.gem.calls[0],
                         ("open_session", {"name": gemName(
                             "8000", self.session.handle)}))
        self.assertEqual(self.session.view.stoneSession, 7)

    @inlineCallbacks
    def test_stoneLimitLowers(self):
        self.state["signalAbortBacklog"] = 5
        session = yield self.open()
        self.assertEqual(self.hygiene.limitFor(session), 5)
        self.assertEqual(self.hygiene.limitFor(self.session), 20)


class RefreshTests(HygieneTestCase):

    def test_closeEnoughLeftAlone(self):
        self.state["commitsBehind"] = 19
        self.hygiene.maintain()
        self.assertNotIn("continue_transaction", self.tags())

    def test_farBehindRefreshedAndTold(self):
        self.session.ledger.recordRead(methodKey("Account", "deposit:"), "x")
        self.state["commitsBehind"] = 25
        self.hygiene.maintain()
        self.assertEqual(self.tags()[-1], "continue_transaction")
        [notice] = self.session.view.notices
        self.assertIn("25 commits behind", notice)
        self.assertIn("uncommitted changes are kept", notice)
        self.assertIn("Account>>deposit:", notice)
        self.assertIsNone(self.session.ledger.lastRead(
            methodKey("Account", "deposit:")))

    def test_writesThatCannotCommitSaid(self):
        """
        When continueTransaction answers false, the notice says the
        uncommitted changes can no longer commit.
        """
        self.gem.results["continue_transaction"] = lambda args: {"continued": False}
        self.state["commitsBehind"] = 25
        self.hygiene.maintain()
        [notice] = self.session.view.notices
        self.assertIn("can no longer commit", notice)

    def test_neverWithACallInFlight(self):
        self.state["commitsBehind"] = 25
        self.gem.held = True
        self.gem.execute('"gsmcp:execute_code"\n| code limit |\n'
                         "code := '1'. limit := 1. 1", 100)
        self.hygiene.maintain()
        self.assertNotIn("session_state", self.tags())

    def test_disabled(self):
        self.hygiene.maxCommitsBehind = None
        self.state["commitsBehind"] = 1000
        self.hygiene.maintain()
        self.assertEqual(self.tags(), ["open_session"])


class StuckViewTests(HygieneTestCase):

    def setUp(self):
        d = super().setUp()

        def jam(_):
            def refused(args):
                raise SmalltalkRaised(2409, "TransactionError",
                                      "commit failed; abort first")
            self.gem.results["continue_transaction"] = refused
        return d.addCallback(jam)

    def test_releasedOnlyAfterGraceUnderPressure(self):
        self.state["commitsBehind"] = 30
        self.hygiene.maintain()
        self.clock.advance(200)
        self.hygiene.maintain()
        self.assertIsNotNone(self.registry.work.get(self.session.handle))
        self.clock.advance(100)
        self.hygiene.maintain()
        self.assertIsNone(self.registry.work.get(self.session.handle))

    def test_quietStoneNeverReaps(self):
        self.state["commitsBehind"] = 30
        self.hygiene.maintain()
        self.state["commitsBehind"] = 3
        self.clock.advance(1000)
        self.hygiene.maintain()
        self.state["commitsBehind"] = 30
        self.hygiene.maintain()
        self.assertIsNotNone(self.registry.work.get(self.session.handle))


class PinnedViewTests(HygieneTestCase):

    def setUp(self):
        d = super().setUp()

        def running(_):
            self.gem.held = True
            self.run = RunningCall(self.session, 5, self.registry, self.clock)
            self.session.calls.running[5] = self.run
            self.run.current = self.gem.execute(
                '"gsmcp:execute_code"\n| code limit |\n'
                "code := '1'. limit := 1. 1", 100)
            # Ending the call breaks it; nothing else waits on its result.
            self.run.current.addErrback(lambda f: f.trap(GciError))
        return d.addCallback(running)

    def test_pinningCallEndedAfterGrace(self):
        self.backlog.update(backlog=50, oldestPinnedBy=[7])
        self.hygiene.maintain()
        self.clock.advance(60)
        self.hygiene.maintain()
        self.assertIsNone(self.run.why)
        self.clock.advance(60)
        self.hygiene.maintain()
        self.assertEqual(self.run.why, "pinned")
        self.assertIn("oldest commit record",
                      self.run.endedMessage())

    def test_quietRepositoryNeverEndsACall(self):
        self.backlog.update(backlog=3, oldestPinnedBy=[7])
        for _ in range(10):
            self.clock.advance(60)
            self.hygiene.maintain()
        self.assertIsNone(self.run.why)

    def test_runMustBeConsecutive(self):
        self.backlog.update(backlog=50, oldestPinnedBy=[7])
        self.hygiene.maintain()
        self.clock.advance(100)
        self.backlog.update(oldestPinnedBy=[8])
        self.hygiene.maintain()
        self.backlog.update(oldestPinnedBy=[7])
        self.clock.advance(60)
        self.hygiene.maintain()
        self.assertIsNone(self.run.why)

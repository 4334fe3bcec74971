"""
Tests for L{gsmcpd.sessions.work}: one work session, whoever uses it, and
the handles it is held by.
"""

from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.auth.tokens import Principal
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.work import WorkSession, couldBeHandle, newHandle, userOf
from tests.fakes import FakeGem


class Run:
    """
    A call in flight, as a work session keeps it: by its request id.
    """

    def __init__(self, requestId):
        self.requestId = requestId


class WorkSessionTests(SynchronousTestCase):

    def setUp(self):
        self.committed = []
        self.session = WorkSession("0123456789abcdef" * 2, FakeGem(),
                                   now=100.0,
                                   onCommit=[self.committed.append])

    def test_provides(self):
        self.assertTrue(verifyObject(IWorkSession, self.session))

    def test_handlesAreUnguessable(self):
        handles = {newHandle() for _ in range(100)}
        self.assertEqual(len(handles), 100)
        self.assertTrue(all(len(h) == 32 and int(h, 16) >= 0
                            for h in handles))

    def test_labelIsAPrefix(self):
        self.assertEqual(self.session.label, "01234567")

    def test_startsLive(self):
        liveness = self.session.liveness
        self.assertEqual((liveness.createdAt, liveness.lastActivity,
                          liveness.answeredProbeAt), (100.0, 100.0, 100.0))
        self.assertFalse(self.session.throwaway)
        self.assertIsNone(self.session.principal)

    def test_busyIsTheGems(self):
        self.assertFalse(self.session.busy)
        self.session.gem.held = True
        self.session.gem.execute("\"gsmcp:status\"\n1", 10)
        self.assertTrue(self.session.busy)

    def test_noticesToldOnce(self):
        self.session.view.notices.append("[view] refreshed")
        self.assertEqual(self.session.takeNotices(), ["[view] refreshed"])
        self.assertEqual(self.session.takeNotices(), [])

    def test_callsInFlightByRequestId(self):
        """
        A call admitted answers to its request id until it is released; a
        call released under an id another took since leaves that one.
        """
        first, second = Run(5), Run(5)
        self.session.admit(first)
        self.assertIs(self.session.callFor(5), first)
        self.session.admit(second)
        self.session.release(first)
        self.assertEqual(self.session.inFlight(), [second])
        self.session.release(second)
        self.assertIsNone(self.session.callFor(5))

    def test_awaitReplacement(self):
        """
        While its gem is replaced, each waiter gets a Deferred of its own
        (cancelling one stops no other) firing once the replacement is
        over.
        """
        self.assertIsNone(self.session.awaitReplacement())
        self.session.replacementBegan()
        first = self.session.awaitReplacement()
        second = self.session.awaitReplacement()
        first.cancel()
        self.failureResultOf(first)
        self.assertNoResult(second)
        self.assertTrue(self.session.replacing)
        self.session.replacementOver()
        self.assertIsNone(self.successResultOf(second))
        self.assertFalse(self.session.replacing)
        self.assertIsNone(self.session.awaitReplacement())

    def test_lentAndActive(self):
        principal = Principal("ada", "Ada", frozenset(), 0.0)
        self.session.lendTo(principal)
        self.session.active(130.0)
        self.session.notify("[session] moved")
        self.assertIs(self.session.principal, principal)
        self.assertEqual(self.session.liveness.lastActivity, 130.0)
        self.assertEqual(self.session.takeNotices(), ["[session] moved"])

    def test_commitsTellTheObservers(self):
        self.session.journal.record("compiled", "A>>b", "A")
        self.session.journal.committed()
        self.assertEqual(self.committed, [[
            "gemstone://class/A/definition", "gemstone://class/A/source"]])

    def test_transactionEnded(self):
        """
        However a transaction ended, one call forgets the reads and empties
        the journal, code's unlisted changes included.
        """
        self.session.ledger.recordRead(("class", "A"), "A")
        self.session.journal.record("compiled", "A>>b", "A")
        self.session.journal.unlisted.append("execute_code")
        self.session.transactionEnded()
        self.assertIsNone(self.session.ledger.lastRead(("class", "A")))
        self.assertEqual((len(self.session.journal),
                          self.session.journal.unlisted), (0, []))
        self.assertEqual(self.committed, [])

    def test_commitEndedIsTheLastCommit(self):
        self.assertIsNone(self.session.lastCommit)
        self.session.commitEnded("conflict", 120.0, ["compiled A>>b"])
        last = self.session.lastCommit
        self.assertEqual((last.outcome, last.at, last.changes),
                         ("conflict", 120.0, ("compiled A>>b",)))

    def test_replacedGemMovesTheView(self):
        """
        A replaced GemStone session's view is the newest commit: what was
        read in the old one is stale, and what it changed is gone.
        """
        self.session.ledger.recordRead(("A", False, "b"), "text")
        self.session.journal.record("compiled", "A>>b", "A")
        fresh = FakeGem()
        self.session.gemReplaced(fresh)
        self.assertIs(self.session.gem, fresh)
        self.assertIsNone(self.session.ledger.lastRead(("A", False, "b")))
        self.assertEqual(len(self.session.journal), 0)

    def test_userOf(self):
        self.assertIsNone(userOf(None))
        self.assertEqual(userOf(Principal("a", "Alice", frozenset(), 0.0)),
                         "Alice")


class HandleShapeTests(SynchronousTestCase):

    def test_mintedHandlesHaveTheShape(self):
        for _ in range(20):
            self.assertTrue(couldBeHandle(newHandle()))

    def test_othersDoNot(self):
        for text in ("", "Hello", "g" * 32, "A" * 32, "0" * 33):
            self.assertFalse(couldBeHandle(text))

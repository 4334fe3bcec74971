"""
Tests for L{gsmcpd.tools.ledger}: the blind-write guardrail remembers only
what this session read in its present view.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.ledger import ReadLedger, classKey, describeKey, methodKey


class KeyTests(SynchronousTestCase):

    def test_instanceAndClassSideDiffer(self):
        """
        C{Account>>new} and C{Account class>>new} are different methods; a
        read of one never licenses a write of the other.
        """
        self.assertNotEqual(methodKey("Account", "new"),
                            methodKey("Account", "new", meta=True))

    def test_metaIsNormalised(self):
        self.assertEqual(methodKey("Account", "new", meta=1),
                         methodKey("Account", "new", meta=True))

    def test_methodAndClassKeysDiffer(self):
        self.assertNotEqual(classKey("Account"),
                            methodKey("Account", "Account"))

    def test_describe(self):
        self.assertEqual(
            [describeKey(methodKey("Account", "deposit:")),
             describeKey(methodKey("Account", "new", True)),
             describeKey(classKey("Account"))],
            ["Account>>deposit:", "Account class>>new", "the class Account"])


class ReadLedgerTests(SynchronousTestCase):

    def setUp(self):
        self.ledger = ReadLedger()
        self.key = methodKey("Account", "deposit:")

    def test_unreadIsNone(self):
        self.assertIsNone(self.ledger.lastRead(self.key))

    def test_lastReadWins(self):
        self.ledger.recordRead(self.key, "old")
        self.ledger.recordRead(self.key, "new")
        self.assertEqual(self.ledger.lastRead(self.key), "new")

    def test_forget(self):
        self.ledger.recordRead(self.key, "text")
        self.ledger.forget(self.key)
        self.ledger.forget(self.key)
        self.assertIsNone(self.ledger.lastRead(self.key))

    def test_viewMovedForgetsEverythingAndSaysWhat(self):
        """
        A read made before the view moved may be of text that has changed
        since: none counts, and the caller learns which went stale.
        """
        other = classKey("Account")
        self.ledger.recordRead(self.key, "a")
        self.ledger.recordRead(other, "b")
        self.assertEqual(self.ledger.viewMoved(), sorted([self.key, other]))
        self.assertIsNone(self.ledger.lastRead(self.key))
        self.assertEqual(self.ledger.viewMoved(), [])

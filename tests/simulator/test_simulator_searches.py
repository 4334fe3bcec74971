"""
Tests for the simulated stone's cross-reference index
(L{gsmcpd.testing.simulator.searches}): what each session's searches see,
and when an index is shared or built again.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import searches
from gsmcpd.testing.simulator.model import CodeModel
from gsmcpd.testing.simulator.stone import Stone


def selectors(methods):
    return [(m.className, m.meta, m.selector) for m in methods]


class IndexTests(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()
        self.sessions = [self.stone.login("DataCurator", "swordfish") for _ in range(2)]
        self.first, self.second = (CodeModel(each) for each in self.sessions)

    def test_searches(self):
        """
        Implementors by selector, senders by sent selector, references by
        the global a method names where nothing local hides it; each in
        scan order.
        """
        index = searches.indexOf(self.first)
        self.assertEqual(selectors(index.implementors["balance"]),
                         [("Account", False, "balance")])
        self.assertEqual(selectors(index.senders["owner:"]),
                         [("AccountTest", False, "setUp")])
        self.assertEqual(selectors(index.references["Account"]),
                         [("AccountTest", False, "setUp")])
        self.assertEqual(selectors(index.references["AppName"]),
                         [("Greeter", False, "greet")])
        self.assertNotIn("amount", index.references)
        self.assertNotIn("balance", index.references)

    def test_sharedAtOneView(self):
        """
        Sessions at the same commit with nothing written share one index.
        """
        self.assertIs(searches.indexOf(self.first), searches.indexOf(self.second))

    def test_uncommittedWritesArePrivate(self):
        """
        A session's uncommitted method is in its own searches, not in
        another's; the other sees it once committed and its view moves on.
        """
        self.first.compileMethod("Greeter", "wave\n\t^Account new", "demo")
        self.assertIn(("Greeter", False, "wave"),
                      selectors(searches.indexOf(self.first).references["Account"]))
        self.assertNotIn("wave", searches.indexOf(self.second).implementors)
        self.assertTrue(self.sessions[0].transaction.commit())
        self.assertNotIn("wave", searches.indexOf(self.second).implementors)
        self.sessions[1].transaction.abort()
        self.assertIn("wave", searches.indexOf(self.second).implementors)

    def test_writeForgetsThePrivateIndex(self):
        """
        Each write builds the writing session's index again.
        """
        self.first.compileMethod("Greeter", "wave\n\t^1", "demo")
        before = searches.indexOf(self.first)
        self.first.removeMethod("Greeter", "wave")
        self.assertNotIn("wave", searches.indexOf(self.first).implementors)
        self.assertIn("wave", before.implementors)

    def test_anotherRepository(self):
        """
        A repository's index is never answered for another one, even at the
        same commit number.
        """
        searches.indexOf(self.first)
        other = Stone()
        session = other.login("DataCurator", "swordfish")
        code = CodeModel(session)
        code.compileMethod("Greeter", "wave\n\t^1", "demo")
        self.assertTrue(session.transaction.commit())
        self.assertIn("wave", searches.indexOf(CodeModel(other.login(
            "DataCurator", "swordfish"))).implementors)
        self.assertNotIn("wave", searches.indexOf(self.second).implementors)

"""
A session's journal of uncommitted changes.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.journal import Change, ChangeJournal, LastCommit


class ChangeJournalTests(SynchronousTestCase):

    def setUp(self):
        self.journal = ChangeJournal()
        self.journal.record("compiled", "Account>>withdraw:", "Account")
        self.journal.record("deleted", "class Foo", "Foo")
        self.journal.record("compiled", "Account>>deposit:", "Account")
        self.journal.record("added", "dictionary Scratch")

    def test_summary(self):
        self.assertEqual(self.journal.summary(), [
            "compiled Account>>withdraw:", "deleted class Foo",
            "compiled Account>>deposit:", "added dictionary Scratch"])
        self.assertEqual(self.journal.summary(limit=2), [
            "compiled Account>>withdraw:", "deleted class Foo",
            "and 2 more"])

    def test_changedResources(self):
        """
        Each changed class once, with both resources that show it.
        """
        self.assertEqual(self.journal.changedClasses(), ["Account", "Foo"])
        self.assertEqual(self.journal.changedResources(), [
            "gemstone://class/Account/definition",
            "gemstone://class/Account/source",
            "gemstone://class/Foo/definition",
            "gemstone://class/Foo/source"])

    def test_ended(self):
        changes = self.journal.ended()
        self.assertEqual(changes[0], Change("compiled", "Account>>withdraw:",
                                            "Account"))
        self.assertEqual((len(changes), len(self.journal)), (4, 0))
        self.assertEqual(self.journal.changedResources(), [])


class LastCommitTests(SynchronousTestCase):

    def test_described(self):
        """
        As C{status} answers it: the time in ISO 8601, in UTC.
        """
        self.assertEqual(
            LastCommit("committed", 1_800_000_000.5,
                       ("compiled A>>b",)).described(),
            {"outcome": "committed", "at": "2027-01-15T08:00:00+00:00",
             "changes": ["compiled A>>b"]})

"""
A session's journal of uncommitted changes.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.base import Tool, annotations
from gsmcpd.tools.journal import (
    SUMMARY_LINES,
    Change,
    ChangeJournal,
    LastCommit,
)
from gsmcpd.tools.ledger import methodKey


def tool(name, readOnly=False, listsChanges=False):
    return Tool(name, name, "", {}, annotations(readOnly), None,
                listsChanges=listsChanges)


class ChangeJournalTests(SynchronousTestCase):

    def setUp(self):
        self.journal = ChangeJournal()
        self.journal.record("compiled", "Account>>withdraw:", "Account")
        self.journal.record("deleted", "class Foo", "Foo")
        self.journal.record("compiled", "Account>>deposit:", "Account")
        self.journal.record("added", "dictionary Scratch")

    def test_summary(self):
        """
        The summary names each change, up to L{SUMMARY_LINES} of them,
        then how many more; it follows the changes as they are recorded,
        reverted and ended.
        """
        self.assertEqual(self.journal.summary, (
            "compiled Account>>withdraw:", "deleted class Foo",
            "compiled Account>>deposit:", "added dictionary Scratch"))
        for n in range(SUMMARY_LINES):
            self.journal.record("compiled", f"Account>>m{n}", "Account")
        self.assertEqual(len(self.journal.summary), SUMMARY_LINES + 1)
        self.assertEqual(self.journal.summary[-2:], (
            f"compiled Account>>m{SUMMARY_LINES - 5}", "and 4 more"))
        self.journal.ended()
        self.assertEqual(self.journal.summary, ())
        key = ("method", "Account", False, "m")
        self.journal.record("compiled", "Account>>m", "Account", method=key)
        self.journal.reverted(key, "Account>>m", "Account")
        self.assertEqual(self.journal.summary, ("reverted Account>>m",))

    def test_viewMoved(self):
        """
        A move that committed, or may have and left nothing held, tells
        the observers; an abort (nothing held) drops the changes silently;
        a continue that kept them, or one that may have committed and left
        some held, keeps them.
        """
        told = []
        self.journal.observers = (told.append,)
        for committed in (False, None):
            self.journal.viewMoved(committed, needsCommit=True)
        self.assertEqual((len(self.journal), told), (4, []))
        self.journal.viewMoved(None, needsCommit=False)
        self.assertEqual((len(self.journal), len(told)), (0, 1))
        self.journal.record("added", "dictionary Scratch")
        self.journal.viewMoved(False, needsCommit=False)
        self.assertEqual((len(self.journal), len(told)), (0, 1))
        self.journal.record("added", "dictionary Scratch")
        self.journal.viewMoved(True, needsCommit=True)
        self.assertEqual((len(self.journal), len(told)), (0, 2))

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


class RevertingTests(SynchronousTestCase):

    def setUp(self):
        self.journal = ChangeJournal()
        self.key = methodKey("Account", "withdraw:")

    def test_firstChangeOf(self):
        """
        The first change of a method holds the source the view has.
        """
        self.journal.record("compiled", "Account>>withdraw:", "Account",
                            method=self.key, previous="view")
        self.journal.record("compiled", "Account>>withdraw:", "Account",
                            method=self.key, previous="mine")
        self.assertEqual(self.journal.firstChangeOf(self.key).previous,
                         "view")
        self.assertIsNone(self.journal.firstChangeOf(
            methodKey("Account", "deposit:")))

    def test_reverted(self):
        self.journal.record("compiled", "Account>>withdraw:", "Account",
                            method=self.key, previous="view")
        self.journal.record("deleted", "class Foo", "Foo")
        self.journal.reverted(self.key, "Account>>withdraw:", "Account")
        self.assertEqual(list(self.journal), [
            Change("deleted", "class Foo", "Foo"),
            Change("reverted", "Account>>withdraw:", "Account")])
        self.assertIsNone(self.journal.firstChangeOf(self.key))


class UnlistedTests(SynchronousTestCase):
    """
    Which calls leave changes the journal cannot itemise.
    """

    def setUp(self):
        self.journal = ChangeJournal()

    def test_codeThatLeavesChanges(self):
        self.journal.callEnded(tool("execute_code"), False)
        self.assertEqual(self.journal.unlisted, [])
        self.journal.callEnded(tool("execute_code"), True)
        self.journal.callEnded(tool("execute_code"), True)
        self.assertEqual(self.journal.unlisted, ["execute_code"])

    def test_listingTools(self):
        self.journal.callEnded(tool("compile_method", listsChanges=True),
                               True)
        self.assertEqual(self.journal.unlisted, [])

    def test_readOnly(self):
        """
        A read-only tool counts only when the changes appeared with it: it
        may still run code (inspect's expression).
        """
        self.journal.callEnded(tool("compile_method", listsChanges=True),
                               True)
        self.journal.callEnded(tool("inspect", readOnly=True), True)
        self.assertEqual(self.journal.unlisted, [])
        self.journal.ended()
        self.journal.callEnded(tool("inspect", readOnly=True), True)
        self.assertEqual(self.journal.unlisted, ["inspect"])

    def test_unknown(self):
        self.journal.callEnded(tool("execute_code"), None)
        self.assertEqual(self.journal.unlisted, [])

    def test_broken(self):
        """
        A call broken off before it answered may have changed anything,
        even through a tool whose changes are listed; unless it is
        declared read-only.
        """
        self.journal.callEnded(tool("get_method_source", readOnly=True),
                               None, broken=True)
        self.assertEqual(self.journal.unlisted, [])
        self.journal.callEnded(tool("compile_method", listsChanges=True),
                               None, broken=True)
        self.assertEqual(self.journal.unlisted, ["compile_method"])

    def test_ended(self):
        self.journal.callEnded(tool("execute_code"), True)
        self.journal.ended()
        self.assertEqual(self.journal.unlisted, [])


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

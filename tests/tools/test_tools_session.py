"""
Tests for L{gsmcpd.tools.session}: only the client moves its transaction,
and every move of the view forgets what the blind-write guardrail had
recorded.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.protocol.jsonrpc import Message
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.ledger import methodKey
from tests.builders import clientSession, legacyEra
from tests.fakes import FakeGem
from tests.toolharness import ToolHarness

GLOBAL = "UserGlobals at: #SessionToolsetProbe"
KEY = methodKey("Account", "deposit:")


class TransactionTests(TestCase):
    """
    Against the in-process simulated stone: two clients, two views.
    """

    def setUp(self):
        self.first = ToolHarness(("execution", "session"))
        self.second = self.first.newClient()

    def seen(self, client):
        return client.text("execute_code",
                           code=f"{GLOBAL} ifAbsent: [0]")

    @inlineCallbacks
    def test_commitPublishes(self):
        yield self.first.text("execute_code", code=f"{GLOBAL} put: 1")
        self.assertEqual((yield self.first.text("commit")), "Committed.")
        yield self.second.text("refresh")
        self.assertEqual((yield self.seen(self.second)), "1")

    @inlineCallbacks
    def test_othersSeeNothingUntilTheyRefresh(self):
        """
        No tool moves a view as a side effect: a committed change reaches
        another client's view only when it refreshes.
        """
        self.assertEqual((yield self.seen(self.second)), "0")
        yield self.first.text("execute_code", code=f"{GLOBAL} put: 2")
        yield self.first.text("commit")
        self.assertEqual((yield self.seen(self.second)), "0")
        yield self.second.text("refresh")
        self.assertEqual((yield self.seen(self.second)), "2")

    @inlineCallbacks
    def test_abortDiscards(self):
        yield self.first.text("execute_code", code=f"{GLOBAL} put: 3")
        result = yield self.first.call("abort")
        self.assertEqual(result["structuredContent"], {"aborted": True})
        self.assertEqual((yield self.seen(self.first)), "0")

    @inlineCallbacks
    def test_statusSaysWhetherChangesAreUncommitted(self):
        clean = yield self.first.call("status")
        self.assertFalse(clean["structuredContent"]["uncommittedChanges"])
        yield self.first.text("execute_code", code=f"{GLOBAL} put: 4")
        dirty = yield self.first.call("status")
        self.assertTrue(dirty["structuredContent"]["uncommittedChanges"])
        self.assertIn("uncommitted changes: yes", dirty["content"][0]["text"])
        self.assertIn("server restart", dirty["content"][0]["text"])

    @inlineCallbacks
    def test_statusTellsTheLastCommit(self):
        """
        C{status} tells how the session's last commit ended, or null
        before one: what a client that lost a commit's answer asks.
        """
        first = yield self.first.call("status")
        self.assertIsNone(first["structuredContent"]["lastCommit"])
        self.assertIn("last commit: none", first["content"][0]["text"])
        self.first.session.commitEnded("conflict", 0.0, ["compiled A>>b"])
        status = yield self.first.call("status")
        self.assertEqual(status["structuredContent"]["lastCommit"], {
            "outcome": "conflict", "at": "1970-01-01T00:00:00+00:00",
            "changes": ["compiled A>>b"]})
        self.assertIn("last commit: conflict at 1970-01-01T00:00:00+00:00 "
                      "(compiled A>>b)", status["content"][0]["text"])
        self.first.session.commitEnded("unknown", 0.0, ["compiled A>>b"])
        status = yield self.first.call("status")
        self.assertIn("(compiled A>>b): the stone did not say whether it "
                      "committed",
                      status["content"][0]["text"])

    @inlineCallbacks
    def test_eachCommitIsTheLastCommit(self):
        """
        Each commit's answer is its session's last commit: committed, or
        refused by another session's conflicting commit.
        """
        for client, value in ((self.first, 5), (self.second, 6)):
            yield client.text("execute_code", code=f"{GLOBAL} put: {value}")
        yield self.first.text("commit")
        yield self.second.call("commit")
        outcomes = []
        for client in (self.first, self.second):
            status = yield client.call("status")
            last = status["structuredContent"]["lastCommit"]
            outcomes.append((last["outcome"], last["changes"]))
        self.assertEqual(outcomes, [("committed", []), ("conflict", [])])
        self.assertRegex(status["content"][0]["text"],
                         r"last commit: conflict at \d{4}-\d\d-\d\dT")

    @inlineCallbacks
    def test_commitToldOnce(self):
        """
        A commit empties the journal and tells its observers what it
        changed once, whichever saw the view move (the envelope, or the
        tool, where the envelope saw none): never a second, empty time.
        """
        told = []
        journal = self.first.session.journal
        journal.observers = (told.append,)
        journal.record("compiled", "Account>>withdraw:", "Account")
        yield self.first.text("execute_code", code=f"{GLOBAL} put: 7")
        yield self.first.text("commit")
        journal.record("compiled", "Account>>withdraw:", "Account")
        yield self.first.text("commit")
        self.assertEqual([len(uris) > 0 for uris in told], [True, True])
        self.assertEqual(len(journal), 0)

    @inlineCallbacks
    def test_everyMoveOfTheViewForgetsReads(self):
        """
        A read made before the view moved may be stale: it licenses no
        write after a commit, an abort or a refresh.
        """
        for tool in ("commit", "abort", "refresh"):
            self.first.session.ledger.recordRead(KEY, "text")
            yield self.first.text(tool)
            self.assertIsNone(self.first.session.ledger.lastRead(KEY), tool)


class ClassGrainTests(TestCase):
    """
    GemStone's conflicts are per class: two clients changing one class take
    turns, whichever methods they change.
    """

    def setUp(self):
        self.first = ToolHarness(("mutation", "session"))
        self.second = self.first.newClient()

    @inlineCallbacks
    def compileBoth(self, firstClass, secondClass):
        for client, className, source in ((self.first, firstClass, "one\n\t^1"),
                                          (self.second, secondClass, "two\n\t^2")):
            result = yield client.call("compile_method", className=className, source=source)
            self.assertFalse(result.get("isError"), result)
        self.assertEqual((yield self.first.text("commit")), "Committed.")

    @inlineCallbacks
    def test_differentMethodsOfOneClassCannotBothCommit(self):
        yield self.compileBoth("Account", "Account")
        result = yield self.second.call("commit")
        error = result["structuredContent"]["error"]
        self.assertEqual(error["kind"], "refused")
        self.assertEqual(error["conflicts"],
                         {"Write-Write": {"count": 2, "names": ["Account"]}})
        message = result["content"][0]["text"]
        self.assertIn("(Write-Write: 2 objects (Account))", message)
        self.assertIn("two people editing one class must take turns", message)

    @inlineCallbacks
    def test_differentClassesBothCommit(self):
        yield self.compileBoth("Account", "SavingsAccount")
        self.assertEqual((yield self.second.text("commit")), "Committed.")


class ConflictTests(SynchronousTestCase):

    def test_conflictIsRefusedAndNamesTheObjects(self):
        gem = FakeGem()
        gem.results["commit"] = lambda arguments: {
            "committed": False,
            "conflicts": {"Write-Write": {"count": 2, "names": ["A>>b"]},
                          "Rc-Write": {"count": 1, "names": []}}}
        client = clientSession(gem, "h1", "2025-11-25")
        session = client.work
        session.ledger.recordRead(KEY, "text")
        answer = self.successResultOf(legacyEra(ToolCatalog.named(
            ["session"])).answer(client, Message(
                "request", "tools/call", 1, {"name": "commit"},
                {})))["result"]
        self.assertTrue(answer["isError"])
        error = answer["structuredContent"]["error"]
        self.assertEqual(error["kind"], "refused")
        self.assertEqual(error["conflicts"],
                         {"Write-Write": {"count": 2, "names": ["A>>b"]},
                          "Rc-Write": {"count": 1, "names": []}})
        self.assertIn("(Rc-Write: 1 object; Write-Write: 2 objects (A>>b))",
                      error["message"])
        self.assertIn("still uncommitted", error["message"])
        self.assertEqual(session.ledger.lastRead(KEY), "text")

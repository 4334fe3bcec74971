"""
Tests for L{gsmcpd.tools.changes}: C{list_changes} and C{revert_method}
on a simulated stone seeded with the C{Banking} code, through the
dispatcher.
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.base import OWN_SESSION
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.ledger import methodKey
from tests.toolharness import ToolHarness
from tests.tools.test_tools_mutation import (
    GUARDED_WITHDRAW,
    TOOLSETS,
    WITHDRAW,
    MutationTestCase,
)

IS_EMPTY = "isEmpty\n\t^balance = 0"


class ChangesTestCase(MutationTestCase):
    """
    A client of a freshly seeded stone, served the changes toolset too.
    """

    def setUp(self):
        self.harness = ToolHarness((*TOOLSETS, "changes"))


class ListChangesTests(ChangesTestCase):

    def test_needAHandle(self):
        """
        In the 2026 era both need a session of one's own (a handle): a
        throwaway session has nothing to list or revert.
        """
        for name in ("list_changes", "revert_method"):
            self.assertEqual(self.harness.tools.get(name).runsOn,
                             OWN_SESSION)

    @inlineCallbacks
    def changes(self):
        result = yield self.succeed("list_changes")
        return result["structuredContent"], result["content"][0]["text"]

    @inlineCallbacks
    def test_none(self):
        structured, text = yield self.changes()
        self.assertEqual(structured,
                         {"changes": [], "notListed": []})
        self.assertEqual(text, "0 changes since your last commit or abort.")

    @inlineCallbacks
    def test_eachChangeWithThePreviousSource(self):
        """
        Every change the mutation tools made, in order; a replaced or
        deleted method with its source before the change, a new one with
        none.
        """
        yield self.succeed("get_method_source", className="Account",
                           selector="withdraw:")
        yield self.succeed("compile_method", className="Account",
                           source=GUARDED_WITHDRAW)
        yield self.succeed("compile_method", className="Account",
                           source=IS_EMPTY)
        yield self.succeed("get_method_source", className="Account",
                           selector="balance")
        balance = self.code().method("Account", "balance").source
        yield self.succeed("delete_method", className="Account",
                           selector="balance")
        yield self.succeed("set_class_comment", className="Account",
                           comment="money")
        yield self.succeed("add_dictionary", dictionaryName="Scratch")
        structured, text = yield self.changes()
        self.assertEqual(structured["changes"], [
            {"what": "compiled", "subject": "Account>>withdraw:",
             "previous": WITHDRAW},
            {"what": "compiled", "subject": "Account>>isEmpty",
             "previous": None},
            {"what": "deleted", "subject": "Account>>balance",
             "previous": balance},
            {"what": "commented", "subject": "class Account",
             "previous": None},
            {"what": "added", "subject": "dictionary Scratch",
             "previous": None}])
        self.assertEqual(structured["notListed"], [])
        self.assertEqual(text.splitlines()[:3], [
            "5 changes since your last commit or abort:",
            "compiled Account>>withdraw: (revert_method restores its "
            "previous source)",
            "compiled Account>>isEmpty (new: revert_method removes it)"])

    @inlineCallbacks
    def test_commitAndAbortEmptyIt(self):
        for end in ("commit", "abort"):
            yield self.succeed("compile_method", className="Account",
                               source=f"{end}Probe\n\t^1")
            yield self.succeed(end)
            structured, _ = yield self.changes()
            self.assertEqual(structured["changes"], [])

    @inlineCallbacks
    def test_codeIsNotItemised(self):
        """
        Code run through execute_code that leaves changes makes the list
        incomplete, and the answer says so; an abort starts afresh.
        """
        yield self.succeed("execute_code",
                           code="UserGlobals at: #Probe put: 1")
        structured, text = yield self.changes()
        self.assertNotEqual(structured["notListed"], [])
        self.assertEqual(structured["notListed"],
                         ["what execute_code changed, if anything"])
        self.assertIn("not listed: what execute_code changed", text)
        yield self.succeed("abort")
        structured, _ = yield self.changes()
        self.assertEqual(structured["notListed"], [])

    @inlineCallbacks
    def test_codeAfterListedChanges(self):
        """
        Code run while listed changes are uncommitted may have changed more:
        the list says so even if it changed nothing; a read-only tool does
        not, nor does code that changes nothing with none uncommitted.
        """
        yield self.succeed("execute_code", code="3 + 4")
        yield self.succeed("compile_method", className="Account",
                           source=IS_EMPTY)
        yield self.succeed("get_method_source", className="Account",
                           selector="isEmpty")
        structured, _ = yield self.changes()
        self.assertEqual(structured["notListed"], [])
        yield self.succeed("execute_code", code="3 + 4")
        structured, _ = yield self.changes()
        self.assertNotEqual(structured["notListed"], [])

    @inlineCallbacks
    def test_codeThatAborts(self):
        """
        Code that aborts what the session held empties the list (the
        envelope tells the daemon the view moved).
        """
        yield self.succeed("compile_method", className="Account",
                           source=IS_EMPTY)
        yield self.succeed("execute_code", code="System abortTransaction")
        structured, _ = yield self.changes()
        self.assertEqual(structured, {"changes": [], "notListed": []})

    @inlineCallbacks
    def test_changesTheStoneNoLongerHolds(self):
        """
        Changes listed while the stone holds none (a move of the view the
        daemon did not hear of): the answer says so rather than look
        complete.
        """
        self.harness.session.journal.record("compiled", "Account>>isEmpty",
                                            "Account")
        structured, _ = yield self.changes()
        self.assertEqual(len(structured["changes"]), 1)
        self.assertIn("holds no uncommitted change",
                      structured["notListed"][0])

    @inlineCallbacks
    def test_statusNamesTheCount(self):
        yield self.succeed("compile_method", className="Account",
                           source=IS_EMPTY)
        result = yield self.succeed("status")
        self.assertEqual(result["structuredContent"]["listedChanges"], 1)
        self.assertIn("changes listed: 1",
                      result["content"][0]["text"])


class RevertMethodTests(ChangesTestCase):

    @inlineCallbacks
    def replaceWithdraw(self, category=None):
        yield self.succeed("get_method_source", className="Account",
                           selector="withdraw:")
        arguments = {} if category is None else {"category": category}
        yield self.succeed("compile_method", className="Account",
                           source=GUARDED_WITHDRAW, **arguments)

    @inlineCallbacks
    def test_replacedComesBack(self):
        """
        The source the view held comes back, in its category; the list
        then says the method was reverted, with nothing left to revert.
        """
        yield self.replaceWithdraw()
        result = yield self.succeed("revert_method", className="Account",
                                    selector="withdraw:")
        self.assertEqual(result["structuredContent"], {"removed": False})
        method = self.code().method("Account", "withdraw:")
        self.assertEqual((method.source, method.category),
                         (WITHDRAW, "operations"))
        listed = yield self.succeed("list_changes")
        self.assertEqual(listed["structuredContent"]["changes"], [
            {"what": "reverted", "subject": "Account>>withdraw:",
             "previous": None}])
        yield self.refused("revert_method", className="Account",
                           selector="withdraw:")

    @inlineCallbacks
    def test_theViewsSourceAfterSeveralEdits(self):
        yield self.replaceWithdraw()
        yield self.succeed("compile_method", className="Account",
                           source=GUARDED_WITHDRAW + ".\n\t^self")
        yield self.succeed("revert_method", className="Account",
                           selector="withdraw:")
        self.assertEqual(self.code().method("Account", "withdraw:").source,
                         WITHDRAW)

    @inlineCallbacks
    def test_newIsRemoved(self):
        yield self.succeed("compile_method", className="Account",
                           source=IS_EMPTY)
        result = yield self.succeed("revert_method", className="Account",
                                    selector="isEmpty")
        self.assertIs(result["structuredContent"]["removed"], True)
        self.assertIn("removed (it was new)", result["content"][0]["text"])
        self.assertIsNone(self.code().method("Account", "isEmpty"))
        self.assertIsNone(self.harness.session.ledger.lastRead(
            methodKey("Account", "isEmpty")))

    @inlineCallbacks
    def test_newThenDeletedStaysAbsent(self):
        yield self.succeed("compile_method", className="Account",
                           source=IS_EMPTY)
        yield self.succeed("delete_method", className="Account",
                           selector="isEmpty")
        yield self.succeed("revert_method", className="Account",
                           selector="isEmpty")
        self.assertIsNone(self.code().method("Account", "isEmpty"))

    @inlineCallbacks
    def test_deletedComesBack(self):
        yield self.succeed("get_method_source", className="Account",
                           selector="balance", meta=False)
        before = self.code().method("Account", "balance")
        yield self.succeed("delete_method", className="Account",
                           selector="balance")
        yield self.succeed("revert_method", className="Account",
                           selector="balance")
        after = self.code().method("Account", "balance")
        self.assertEqual((after.source, after.category),
                         (before.source, before.category))

    @inlineCallbacks
    def test_classSide(self):
        yield self.succeed("compile_method", className="Account", meta=True,
                           source="example\n\t^self new")
        yield self.succeed("revert_method", className="Account",
                           selector="example", meta=True)
        self.assertIsNone(self.code().method("Account", "example",
                                             meta=True))

    @inlineCallbacks
    def test_unchangedRefused(self):
        message = yield self.refused("revert_method", className="Account",
                                     selector="withdraw:")
        self.assertIn("has not changed Account>>withdraw:", message)
        self.assertEqual(self.code().method("Account", "withdraw:").source,
                         WITHDRAW)

    @inlineCallbacks
    def test_blindWriteGuard(self):
        """
        After the view moved, reverting needs a read of the method as it is
        now, as compile_method does; then it reverts.
        """
        yield self.replaceWithdraw()
        yield self.succeed("refresh")
        message = yield self.refused("revert_method", className="Account",
                                     selector="withdraw:")
        self.assertIn("get_method_source", message)
        self.assertEqual(self.code().method("Account", "withdraw:").source,
                         GUARDED_WITHDRAW)
        yield self.succeed("get_method_source", className="Account",
                           selector="withdraw:")
        yield self.succeed("revert_method", className="Account",
                           selector="withdraw:")
        self.assertEqual(self.code().method("Account", "withdraw:").source,
                         WITHDRAW)

    @inlineCallbacks
    def test_staleRefused(self):
        """
        The stone refuses the revert when the method is no longer what this
        session last read or wrote of it (changed another way, by code).
        """
        yield self.replaceWithdraw()
        self.harness.session.ledger.recordRead(
            methodKey("Account", "withdraw:"), IS_EMPTY)
        message = yield self.refused("revert_method", className="Account",
                                     selector="withdraw:")
        self.assertIn("changed since this session read it", message)
        self.assertEqual(self.code().method("Account", "withdraw:").source,
                         GUARDED_WITHDRAW)


class DroppedMethodTests(ChangesTestCase):

    @inlineCallbacks
    def test_droppedByARedefinition(self):
        """
        A method a new class version dropped is listed with its source, and
        revert_method compiles it in the new version.
        """
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("get_method_source", className="Greeter",
                           selector="greet")
        before = self.code().method("Greeter", "greet").source
        yield self.succeed("compile_class_definition", className="Greeter",
                           instVarNames=["name"], recompileMethods=False)
        listed = yield self.succeed("list_changes")
        self.assertEqual(listed["structuredContent"]["changes"], [
            {"what": "defined", "subject": "class Greeter",
             "previous": None},
            {"what": "dropped", "subject": "Greeter>>greet",
             "previous": before}])
        yield self.succeed("revert_method", className="Greeter",
                           selector="greet")
        self.assertEqual(self.code().method("Greeter", "greet").source,
                         before)

    @inlineCallbacks
    def test_failedToRecompile(self):
        """
        A method that failed to recompile is listed as dropped; reverting it
        answers the compiler's errors.
        """
        yield self.succeed("get_class_definition", className="AccountTest")
        for selector in ("setUp", "testBroken", "testDeposit",
                         "testWithdrawTooMuch"):
            yield self.succeed("get_method_source", className="AccountTest",
                               selector=selector)
        setUp = self.code().method("AccountTest", "setUp").source
        yield self.succeed(
            "compile_class_definition", className="AccountTest",
            superclassName="TestCase", instVarNames=["other"],
            dictionary="Banking")
        listed = yield self.succeed("list_changes")
        dropped = {each["subject"]: each["previous"]
                   for each in listed["structuredContent"]["changes"]
                   if each["what"] == "dropped"}
        self.assertEqual(dropped["AccountTest>>setUp"], setUp)
        self.assertEqual(len(dropped), 4)
        kind, message = yield self.harness.error(
            "revert_method", className="AccountTest", selector="setUp")
        self.assertEqual(kind, "compileError")
        self.assertIn("no longer compiles", message)


class KernelClassTests(MutationTestCase):

    def harnessWith(self, options):
        names = (*TOOLSETS, "changes")
        return ToolHarness(names, tools=ToolCatalog.named(names, options))

    @inlineCallbacks
    def test_ownOption(self):
        """
        Reverting a kernel class's method needs the changes toolset's own
        kernelClasses option, as compiling it needs mutation's.
        """
        mutation = {"mutation": {"kernelClasses": True}}
        for options, refused in ((mutation, True), (dict(
                mutation, changes={"kernelClasses": True}), False)):
            harness = self.harnessWith(options)
            yield self.succeed("compile_method", harness=harness,
                               className="Object", source="probe\n\t^1")
            result = yield harness.call("revert_method", className="Object",
                                        selector="probe")
            self.assertIs(result["isError"], refused, result)
            if refused:
                self.assertIn("is a kernel class",
                              result["content"][0]["text"])
            self.assertEqual(
                self.code(harness).method("Object", "probe") is None,
                not refused)

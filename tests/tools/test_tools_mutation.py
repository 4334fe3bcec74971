"""
Tests for L{gsmcpd.tools.mutation}: the tools that change code, run through
the dispatcher on a simulated stone seeded with the C{Banking} code.
"""

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.smalltalk import Assignment, Literal, parse_expression
from gsmcpd.testing.simulator.model import CodeModel
from gsmcpd.testing.simulator.repository import ABSENT
from gsmcpd.tools.compiling import locatedErrors
from gsmcpd.tools.ledger import classKey, methodKey
from gsmcpd.tools.mutation import MutationToolset
from gsmcpd.tools.templates.render import Template
from tests.toolharness import ToolHarness, effectiveHints

TOOLSETS = ("browsing", "listing", "mutation", "session", "execution",
            "testing")

WITHDRAW = ("withdraw: amount\n\t\"Overdrafts are not checked: "
            "AccountTest>>testWithdrawTooMuch says they should be.\"\n"
            "\tbalance := balance - amount")
GUARDED_WITHDRAW = ("withdraw: amount\n\tamount > balance ifTrue: [^self].\n"
                    "\tbalance := balance - amount")

TOOL_NAMES = ("add_dictionary", "compile_class_definition", "compile_method",
              "delete_class", "delete_method", "remove_dictionary",
              "set_class_comment")


class MutationTestCase(TestCase):
    """
    A client of a freshly seeded stone, and ways to look at the stone.
    """

    def setUp(self):
        self.harness = ToolHarness(TOOLSETS)

    def code(self, harness=None):
        """
        The repository as C{harness}'s session sees it now.
        """
        return CodeModel((harness or self.harness).gem.session)

    @inlineCallbacks
    def succeed(self, name, harness=None, **arguments):
        """
        The result of a successful call, its structured result checked
        against the tool's output schema (by the harness).
        """
        harness = harness or self.harness
        result = yield harness.call(name, **arguments)
        if result.get("isError"):
            self.fail(f"{name} failed: {result['content'][0]['text']}")
        return result

    @inlineCallbacks
    def refused(self, name, kind="refused", harness=None, **arguments):
        """
        The message of a call that fails with C{kind}.
        """
        found, message = yield (harness or self.harness).error(
            name, **arguments)
        self.assertEqual(found, kind, message)
        return message

    def moveViewBehindTheLedger(self, harness=None):
        """
        Move the session's view without telling its ledger, as code run
        through execute_code could: only the stone's check is left.
        """
        self.assertTrue(
            (harness or self.harness).gem.session.transaction
            .continueTransaction())


class DescriptorTests(SynchronousTestCase):

    def test_tools(self):
        """
        Every tool has a title, a closed input schema, a valid output
        schema and annotations; the toolset's paragraph of the instructions
        says, once for all of them, that nothing they do is committed.
        """
        self.assertIn("Changes stay uncommitted",
                      MutationToolset.instructions)
        tools = {tool.name: tool for tool in MutationToolset().tools()}
        self.assertEqual(sorted(tools), list(TOOL_NAMES))
        for tool in tools.values():
            self.assertTrue(tool.title)
            self.assertIs(tool.inputSchema["additionalProperties"], False)
            jsonschema.Draft202012Validator.check_schema(tool.inputSchema)
            jsonschema.Draft202012Validator.check_schema(tool.outputSchema)
            self.assertIs(
                effectiveHints(tool.annotations)["readOnlyHint"], False)
            self.assertIs(
                effectiveHints(tool.annotations)["openWorldHint"], False)
        for name in ("remove_dictionary", "compile_method", "delete_method",
                     "delete_class", "compile_class_definition"):
            hints = effectiveHints(tools[name].annotations)
            self.assertIs(hints["destructiveHint"], True)

    def test_locatedErrors(self):
        """
        A 1-based source offset becomes a line and a column.
        """
        self.assertEqual(
            locatedErrors("ab\ncd\n", [{"offset": 5, "number": 1001,
                                        "message": "m"}]),
            [{"line": 2, "column": 2, "offset": 5, "number": 1001,
              "message": "m"}])


class DictionaryTests(MutationTestCase):

    @inlineCallbacks
    def test_add(self):
        result = yield self.succeed("add_dictionary", dictionaryName="Tools")
        self.assertEqual(result["structuredContent"],
                         {"dictionaryName": "Tools", "position": 5})
        self.assertIn("Added dictionary Tools",
                      result["content"][0]["text"])
        self.assertEqual(self.code().symbolList()[-1], "Tools")

    @inlineCallbacks
    def test_addTaken(self):
        """
        A name already in the symbol list is refused: a dictionary's or a
        global's.
        """
        for name in ("Banking", "AppName", "Object"):
            message = yield self.refused("add_dictionary", dictionaryName=name)
            self.assertIn(f"{name} is taken", message)
        self.assertNotIn("AppName", self.code().symbolList())

    @inlineCallbacks
    def test_addInvalidName(self):
        yield self.refused("add_dictionary", "invalidParams",
                           dictionaryName="two words")
        yield self.refused("add_dictionary", "invalidParams")

    @inlineCallbacks
    def test_remove(self):
        yield self.succeed("list_classes", dictionaryName="Banking")
        result = yield self.succeed("remove_dictionary",
                                    dictionaryName="Banking")
        self.assertEqual(result["structuredContent"]["dictionaryName"],
                         "Banking")
        self.assertGreater(result["structuredContent"]["entries"], 3)
        self.assertNotIn("Banking", self.code().symbolList())
        self.assertIsNone(self.code().classNamed("Account"))

    @inlineCallbacks
    def test_removeNotFound(self):
        message = yield self.refused("remove_dictionary", "notFound",
                                     dictionaryName="Nowhere")
        self.assertIn("No dictionary named Nowhere", message)

    @inlineCallbacks
    def test_removeKernelRefused(self):
        for name in ("Globals", "UserGlobals", "Published"):
            message = yield self.refused("remove_dictionary",
                                         dictionaryName=name)
            self.assertIn("kernel's own", message)
            self.assertIn(name, self.code().symbolList())

    @inlineCallbacks
    def test_abortUndoes(self):
        """
        abort takes back both a dictionary added and one removed.
        """
        before = self.code().symbolList()
        yield self.succeed("add_dictionary", dictionaryName="Tools")
        yield self.succeed("list_classes", dictionaryName="Banking")
        yield self.succeed("remove_dictionary", dictionaryName="Banking")
        yield self.succeed("abort")
        self.assertEqual(self.code().symbolList(), before)
        self.assertIsNotNone(self.code().classNamed("Account"))

    @inlineCallbacks
    def test_commitKeeps(self):
        yield self.succeed("add_dictionary", dictionaryName="Tools")
        other = self.harness.newClient()
        self.assertNotIn("Tools", self.code(other).symbolList())
        yield self.succeed("commit")
        yield self.succeed("refresh", harness=other)
        self.assertIn("Tools", self.code(other).symbolList())


class CompileMethodTests(MutationTestCase):

    @inlineCallbacks
    def test_newMethodNeedsNoRead(self):
        result = yield self.succeed(
            "compile_method", className="Account",
            source="isEmpty\n\t^balance = 0")
        self.assertEqual(result["structuredContent"], {
            "className": "Account", "meta": False, "selector": "isEmpty",
            "category": "as yet unclassified", "created": True, "warnings": []})
        self.assertEqual(
            self.code().method("Account", "isEmpty").source,
            "isEmpty\n\t^balance = 0")

    @inlineCallbacks
    def test_categoryAndMeta(self):
        result = yield self.succeed(
            "compile_method", className="Account", meta=True,
            category="examples", source="example\n\t^self owner: 'bob'")
        self.assertEqual(result["structuredContent"]["category"], "examples")
        info = self.code().method("Account", "example", meta=True)
        self.assertEqual(info.category, "examples")
        self.assertIn("Account class>>example",
                      result["content"][0]["text"])

    @inlineCallbacks
    def test_renameKeepsCategory(self):
        """
        A method compiled under a new selector in place of another (a
        rename) keeps that one's category when replaces names it; a
        category given still wins; replaces must name a method there.
        """
        result = yield self.succeed(
            "compile_method", className="Account", replaces="withdraw:",
            source="take: amount\n\tbalance := balance - amount")
        self.assertEqual(result["structuredContent"]["category"], "operations")
        self.assertEqual(self.code().method("Account", "take:").category, "operations")
        self.assertIsNotNone(self.code().method("Account", "withdraw:"))
        result = yield self.succeed(
            "compile_method", className="Account", replaces="withdraw:",
            category="moving", source="move: amount\n\tbalance := amount")
        self.assertEqual(result["structuredContent"]["category"], "moving")
        kind, message = yield self.harness.error(
            "compile_method", className="Account", replaces="withdrew:",
            source="give: amount\n\tbalance := balance + amount")
        self.assertEqual(kind, "notFound")
        self.assertTrue(message.startswith("Method not found: Account>>withdrew: "),
                        message)
        self.assertTrue(message.endswith(" Nearest: withdraw:."), message)
        self.assertIsNone(self.code().method("Account", "give:"))

    @inlineCallbacks
    def test_unreadOverwriteRefused(self):
        """
        Replacing a method this session has not read is refused, naming the
        read to make, and changes nothing; after get_method_source it
        succeeds, keeping the method's category.
        """
        message = yield self.refused("compile_method", className="Account",
                                     source=GUARDED_WITHDRAW)
        self.assertIn("Account>>withdraw:", message)
        self.assertIn("get_method_source", message)
        self.assertEqual(self.code().method("Account", "withdraw:").source,
                         WITHDRAW)
        yield self.succeed("get_method_source", className="Account",
                           selector="withdraw:")
        result = yield self.succeed("compile_method", className="Account",
                                    source=GUARDED_WITHDRAW)
        self.assertEqual(result["structuredContent"]["category"],
                         "operations")
        self.assertIs(result["structuredContent"]["created"], False)
        self.assertEqual(self.code().method("Account", "withdraw:").source,
                         GUARDED_WITHDRAW)

    @inlineCallbacks
    def test_recordedReadSuffices(self):
        """
        What the guardrail checks is the ledger: a read recorded there (by
        any read tool) licenses the write.
        """
        self.harness.session.ledger.recordRead(
            methodKey("Account", "withdraw:"), WITHDRAW)
        yield self.succeed("compile_method", className="Account",
                           source=GUARDED_WITHDRAW)

    @inlineCallbacks
    def test_writeIsRecorded(self):
        """
        A successful compile records the new source, so the client can keep
        editing without reading again.
        """
        yield self.succeed("compile_method", className="Account",
                           source="isEmpty\n\t^balance = 0")
        self.assertEqual(
            self.harness.session.ledger.lastRead(
                methodKey("Account", "isEmpty")),
            "isEmpty\n\t^balance = 0")
        yield self.succeed("compile_method", className="Account",
                           source="isEmpty\n\t^balance <= 0")

    @inlineCallbacks
    def test_readBeforeViewMovedDoesNotCount(self):
        """
        A read made before refresh, abort or commit moved the view does not
        license a write after it.
        """
        for mover in ("refresh", "abort", "commit"):
            yield self.succeed("get_method_source", className="Account",
                               selector="withdraw:")
            yield self.succeed(mover)
            message = yield self.refused(
                "compile_method", className="Account",
                source=GUARDED_WITHDRAW)
            self.assertIn("has not read it", message)

    @inlineCallbacks
    def test_staleReadRefusedInTheStone(self):
        """
        A read that went stale because another session committed a change
        to the method is refused by the stone's comparison when the view has
        moved without the ledger knowing, and the other session's version
        stays.
        """
        yield self.succeed("get_method_source", className="Account",
                           selector="withdraw:")
        other = self.harness.newClient()
        yield self.succeed("get_method_source", harness=other,
                           className="Account", selector="withdraw:")
        yield self.succeed("compile_method", harness=other,
                           className="Account", source=GUARDED_WITHDRAW)
        yield self.succeed("commit", harness=other)
        self.moveViewBehindTheLedger()
        message = yield self.refused(
            "compile_method", className="Account",
            source="withdraw: amount\n\tbalance := balance - amount - 1")
        self.assertIn("changed since this session read it", message)
        self.assertIn("get_method_source", message)
        self.assertEqual(self.code().method("Account", "withdraw:").source,
                         GUARDED_WITHDRAW)

    @inlineCallbacks
    def test_staleReadCaughtAtCommit(self):
        """
        With the view where the read was made, the write goes ahead and the
        stone's write-write check refuses the commit instead: either way
        nothing is silently overwritten.
        """
        yield self.succeed("get_method_source", className="Account",
                           selector="withdraw:")
        other = self.harness.newClient()
        yield self.succeed("get_method_source", harness=other,
                           className="Account", selector="withdraw:")
        yield self.succeed("compile_method", harness=other,
                           className="Account", source=GUARDED_WITHDRAW)
        yield self.succeed("commit", harness=other)
        yield self.succeed(
            "compile_method", className="Account",
            source="withdraw: amount\n\tbalance := balance - amount - 1")
        message = yield self.refused("commit")
        self.assertIn("Commit failed", message)

    @inlineCallbacks
    def test_compileError(self):
        """
        A method the compiler rejects is a compileError naming the line and
        column and what the compiler said; nothing is installed.
        """
        source = "bad\n\t| x |\n\tx := zork + 1.\n\t^x"
        result = yield self.harness.call("compile_method",
                                         className="Account", source=source)
        self.assertTrue(result["isError"])
        error = result["structuredContent"]["error"]
        self.assertEqual(error["kind"], "compileError")
        self.assertEqual(error["selector"], "bad")
        [located] = error["errors"]
        self.assertEqual((located["line"], located["column"]), (3, 7))
        self.assertIn("zork", located["message"])
        self.assertIn("line 3, column 7", result["content"][0]["text"])
        self.assertIsNone(self.code().method("Account", "bad"))

    @inlineCallbacks
    def test_syntaxError(self):
        """
        Source that does not parse is a compileError with its line before
        anything runs in the stone.
        """
        sent = len(self.harness.gem.sources)
        result = yield self.harness.call(
            "compile_method", className="Account",
            source="broken\n\t^(1 +")
        error = result["structuredContent"]["error"]
        self.assertEqual(error["kind"], "compileError")
        self.assertEqual(error["errors"][0]["line"], 2)
        self.assertEqual(len(self.harness.gem.sources), sent)

    @inlineCallbacks
    def test_classNotFound(self):
        message = yield self.refused("compile_method", "notFound",
                                     className="Nowhere", source="x\n\t^1")
        self.assertIn("No class named Nowhere", message)

    @inlineCallbacks
    def test_missingArguments(self):
        yield self.refused("compile_method", "invalidParams",
                           className="Account")
        yield self.refused("compile_method", "invalidParams",
                           className="Account", source="x ^1", extra=1)

    @inlineCallbacks
    def test_kernelClassesRefused(self):
        """
        A class Globals holds under its name is the kernel's: the template
        refuses to change it, as GemTalk's server does, though this user
        could.
        """
        message = yield self.refused("compile_method", className="Object",
                                     source="mutationProbe\n\t^42")
        self.assertIn("kernel class", message)
        self.assertIsNone(self.code().method("Object", "mutationProbe"))


class DeleteMethodTests(MutationTestCase):

    @inlineCallbacks
    def test_delete(self):
        yield self.succeed("get_method_source", className="Account",
                           selector="balance")
        result = yield self.succeed("delete_method", className="Account",
                                    selector="balance")
        self.assertEqual(result["structuredContent"], {
            "className": "Account", "meta": False, "selector": "balance",
            "category": "accessing"})
        self.assertIsNone(self.code().method("Account", "balance"))
        self.assertIsNone(self.harness.session.ledger.lastRead(
            methodKey("Account", "balance")))

    @inlineCallbacks
    def test_deleteMeta(self):
        yield self.succeed("get_method_source", className="Account",
                           selector="new", meta=True)
        yield self.succeed("delete_method", className="Account",
                           selector="new", meta=True)
        self.assertIsNone(self.code().method("Account", "new", meta=True))

    @inlineCallbacks
    def test_unreadRefused(self):
        message = yield self.refused("delete_method", className="Account",
                                     selector="balance")
        self.assertIn("get_method_source", message)
        self.assertIsNotNone(self.code().method("Account", "balance"))

    @inlineCallbacks
    def test_staleRefused(self):
        self.harness.session.ledger.recordRead(
            methodKey("Account", "balance"), "balance\n\t^0")
        message = yield self.refused("delete_method", className="Account",
                                     selector="balance")
        self.assertIn("changed since", message)
        self.assertIsNotNone(self.code().method("Account", "balance"))

    @inlineCallbacks
    def test_notFound(self):
        for arguments in ({"className": "Account", "selector": "zork"},
                          {"className": "Nowhere", "selector": "balance"},
                          {"className": "Account", "selector": "balance",
                           "meta": True}):
            yield self.refused("delete_method", "notFound", **arguments)


class DeleteClassTests(MutationTestCase):

    @inlineCallbacks
    def test_delete(self):
        yield self.succeed("get_class_definition", className="Greeter")
        result = yield self.succeed("delete_class", className="Greeter")
        self.assertEqual(result["structuredContent"], {
            "className": "Greeter", "dictionary": "UserGlobals",
            "methods": 1})
        self.assertIsNone(self.code().classNamed("Greeter"))
        self.assertIsNone(
            self.harness.session.ledger.lastRead(classKey("Greeter")))

    @inlineCallbacks
    def test_unreadRefused(self):
        message = yield self.refused("delete_class", className="Greeter")
        self.assertIn("get_class_definition", message)
        self.assertIsNotNone(self.code().classNamed("Greeter"))

    @inlineCallbacks
    def test_staleRefused(self):
        self.harness.session.ledger.recordRead(
            classKey("Greeter"), "Object subclass: 'Greeter'")
        message = yield self.refused("delete_class", className="Greeter")
        self.assertIn("changed since", message)

    @inlineCallbacks
    def test_subclassesRefused(self):
        yield self.succeed("get_class_definition", className="Account")
        message = yield self.refused("delete_class", className="Account")
        self.assertIn("SavingsAccount", message)
        self.assertIsNotNone(self.code().classNamed("Account"))

    @inlineCallbacks
    def test_notFound(self):
        yield self.refused("delete_class", "notFound", className="Nowhere")
        yield self.refused("delete_class", "notFound", className="AppName")

    @inlineCallbacks
    def test_abortUndoes(self):
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("delete_class", className="Greeter")
        yield self.succeed("abort")
        self.assertIsNotNone(self.code().method("Greeter", "greet"))


class SetClassCommentTests(MutationTestCase):

    @inlineCallbacks
    def test_set(self):
        result = yield self.succeed("set_class_comment", className="Account",
                                    comment="Money, it's a gas.")
        self.assertEqual(result["structuredContent"], {
            "className": "Account", "comment": "Money, it's a gas."})
        self.assertEqual(self.code().classNamed("Account").comment,
                         "Money, it's a gas.")

    @inlineCallbacks
    def test_notFound(self):
        yield self.refused("set_class_comment", "notFound",
                           className="Nowhere", comment="x")


class ClassDefinitionTests(MutationTestCase):

    @inlineCallbacks
    def test_defineDefaults(self):
        """
        A new class: superclass Object, in UserGlobals, no variables; its
        definition is recorded as read.
        """
        result = yield self.succeed("compile_class_definition",
                                    className="Widget")
        structured = result["structuredContent"]
        self.assertEqual(
            (structured["created"], structured["newVersion"],
             structured["dictionary"]), (True, False, "UserGlobals"))
        info = self.code().classNamed("Widget")
        self.assertEqual((info.superclassName, info.instVarNames),
                         ("Object", ()))
        self.assertEqual(
            self.harness.session.ledger.lastRead(classKey("Widget")),
            structured["definition"])
        self.assertIn("Defined class Widget", result["content"][0]["text"])

    @inlineCallbacks
    def test_defineFromParts(self):
        yield self.succeed(
            "compile_class_definition", className="Checking",
            superclassName="Account", instVarNames=["limit"],
            classVars=["Fees"], classInstVars=["count"],
            dictionary="Banking", options=[])
        info = self.code().classNamed("Checking")
        self.assertEqual(
            (info.superclassName, info.instVarNames, info.classVars,
             info.classInstVars, info.dictionary),
            ("Account", ("limit",), ("Fees",), ("count",), "Banking"))

    @inlineCallbacks
    def test_category(self):
        """
        The class category given is set, as GemStone's file-out sets it
        (category: after the definition); a redefinition keeps it unless
        one is given, and a new one alone is a change.
        """
        yield self.succeed("compile_class_definition", className="Widget",
                           category="Gadgets")
        self.assertEqual(self.code().classNamed("Widget").category, "Gadgets")
        yield self.succeed("compile_class_definition", className="Widget",
                           instVarNames=["size"])
        self.assertEqual(self.code().classNamed("Widget").category, "Gadgets")
        result = yield self.succeed("compile_class_definition", className="Widget",
                                    instVarNames=["size"], category="Parts")
        self.assertEqual((result["structuredContent"]["changed"],
                          self.code().classNamed("Widget").category), (True, "Parts"))
        result = yield self.succeed("compile_class_definition", className="Widget",
                                    instVarNames=["size"], category="Parts")
        self.assertIs(result["structuredContent"]["changed"], False)
        described = yield self.succeed("describe_class", className="Widget")
        self.assertEqual(described["structuredContent"]["category"], "Parts")

    @inlineCallbacks
    def test_invalidIdentifiers(self):
        for arguments in ({"className": "Two words"},
                          {"className": "X", "instVarNames": ["a b"]},
                          {"className": "X", "classVars": ["1x"]},
                          {"className": "X'; System commitTransaction"},
                          {"className": "X", "recompileMethods": "yes"}):
            yield self.refused("compile_class_definition", "invalidParams",
                               **arguments)
        self.assertIsNone(self.code().classNamed("X"))

    @inlineCallbacks
    def test_namesNotFound(self):
        for arguments, named in (
                ({"superclassName": "Nowhere"}, "Nowhere"),
                ({"dictionary": "Nowhere"}, "dictionary named Nowhere"),
                ({"poolDictionaries": ["NoPool"]}, "NoPool")):
            message = yield self.refused("compile_class_definition",
                                         "notFound", className="Widget",
                                         **arguments)
            self.assertIn(named, message)
        self.assertIsNone(self.code().classNamed("Widget"))

    @inlineCallbacks
    def test_notAClassRefused(self):
        message = yield self.refused("compile_class_definition",
                                     className="AppName")
        self.assertIn("not a class", message)

    @inlineCallbacks
    def test_redefineUnreadRefused(self):
        message = yield self.refused("compile_class_definition",
                                     className="Greeter",
                                     instVarNames=["name"])
        self.assertIn("get_class_definition", message)
        self.assertEqual(self.code().classNamed("Greeter").instVarNames, ())

    @inlineCallbacks
    def test_redefineStaleRefused(self):
        yield self.succeed("get_class_definition", className="Greeter")
        other = self.harness.newClient()
        yield self.succeed("get_class_definition", harness=other,
                           className="Greeter")
        yield self.succeed("compile_class_definition", harness=other,
                           className="Greeter", instVarNames=["other"])
        yield self.succeed("commit", harness=other)
        self.moveViewBehindTheLedger()
        message = yield self.refused("compile_class_definition",
                                     className="Greeter",
                                     instVarNames=["name"])
        self.assertIn("changed since", message)
        self.assertEqual(self.code().classNamed("Greeter").instVarNames,
                         ("other",))

    @inlineCallbacks
    def test_aliasInAnEarlierDictionaryKeepsTheHome(self):
        """
        SavingsAccount lives in Banking, and UserGlobals (earlier in the
        symbol list) binds it as Saver.  Redefining it keeps it in
        Banking, with one version bound under its name; the alias still
        holds the old version, as in GemStone.  (dictionaryAndSymbolOf:
        matches by value: it answers the alias, so the new version went to
        UserGlobals and Banking kept the old one under the same name.)
        """
        yield self.succeed("execute_code",
                           code="UserGlobals at: #Saver put: SavingsAccount")
        yield self.succeed("get_class_definition", className="SavingsAccount")
        result = yield self.succeed(
            "compile_class_definition", className="SavingsAccount",
            superclassName="Account", instVarNames=["rate", "fee"])
        self.assertEqual(result["structuredContent"]["dictionary"], "Banking")
        transaction = self.harness.gem.session.transaction
        bound = {(dictionary, name): transaction.read(("global", dictionary, name)).version
                 for dictionary in self.code().symbolList()
                 for name in ("SavingsAccount", "Saver")
                 if transaction.read(("global", dictionary, name)) is not ABSENT}
        self.assertEqual(bound, {("Banking", "SavingsAccount"): 2,
                                 ("UserGlobals", "Saver"): 1})

    @inlineCallbacks
    def test_subclassesRefused(self):
        yield self.succeed("get_class_definition", className="Account")
        message = yield self.refused("compile_class_definition",
                                     className="Account",
                                     instVarNames=["balance"])
        self.assertIn("SavingsAccount", message)

    @inlineCallbacks
    def test_unchanged(self):
        yield self.succeed("get_class_definition", className="Greeter")
        result = yield self.succeed("compile_class_definition",
                                    className="Greeter")
        structured = result["structuredContent"]
        self.assertEqual((structured["changed"], structured["newVersion"]),
                         (False, False))
        self.assertIn("unchanged", result["content"][0]["text"])

    @inlineCallbacks
    def test_sameShapeInPlace(self):
        """
        A change that keeps the shape (here the options) redefines the
        class in place: no new version, methods untouched.
        """
        yield self.succeed("get_class_definition", className="Greeter")
        result = yield self.succeed("compile_class_definition",
                                    className="Greeter",
                                    options=["subclassesDisallowed"])
        structured = result["structuredContent"]
        self.assertEqual((structured["changed"], structured["newVersion"]),
                         (True, False))
        self.assertEqual(len(self.code().classHistory("Greeter")), 1)
        self.assertIsNotNone(self.code().method("Greeter", "greet"))

    @inlineCallbacks
    def test_shapeChangeRecompiles(self):
        """
        A new version gets the old one's methods, both sides, in their
        categories; a method that no longer compiles is reported with its
        line and the compiler's message.
        """
        yield self.succeed("get_class_definition", className="AccountTest")
        for selector in ("setUp", "testBroken", "testDeposit",
                         "testWithdrawTooMuch"):
            yield self.succeed("get_method_source", className="AccountTest",
                               selector=selector)
        result = yield self.succeed(
            "compile_class_definition", className="AccountTest",
            superclassName="TestCase", instVarNames=["other"],
            dictionary="Banking")
        structured = result["structuredContent"]
        self.assertIs(structured["newVersion"], True)
        self.assertEqual(len(self.code().classHistory("AccountTest")), 2)
        failed = {f["selector"]: f for f in structured["failures"]}
        self.assertEqual(sorted(failed), ["setUp", "testBroken",
                                          "testDeposit",
                                          "testWithdrawTooMuch"])
        self.assertEqual(failed["setUp"]["errors"][0]["line"], 2)
        self.assertIn("account", failed["setUp"]["errors"][0]["message"])
        self.assertIn("failed: AccountTest>>setUp: line 2",
                      result["content"][0]["text"])

    @inlineCallbacks
    def test_shapeChangeKeepsWhatCompiles(self):
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("compile_method", className="Greeter", meta=True,
                           category="instance creation",
                           source="make\n\t^self new")
        result = yield self.succeed("compile_class_definition",
                                    className="Greeter",
                                    instVarNames=["name"])
        structured = result["structuredContent"]
        self.assertEqual((structured["recompiled"], structured["failures"]),
                         (2, []))
        self.assertEqual(self.code().method("Greeter", "make", True).category,
                         "instance creation")
        self.assertEqual(self.code().method("Greeter", "greet").category,
                         "greeting")

    @inlineCallbacks
    def test_shapeChangeWithoutRecompile(self):
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("get_method_source", className="Greeter",
                           selector="greet")
        result = yield self.succeed("compile_class_definition",
                                    className="Greeter",
                                    instVarNames=["name"],
                                    recompileMethods=False)
        structured = result["structuredContent"]
        self.assertEqual(structured["dropped"],
                         [{"selector": "greet", "meta": False}])
        self.assertIn("dropped: Greeter>>greet", result["content"][0]["text"])
        self.assertIsNone(self.code().method("Greeter", "greet"))

    @inlineCallbacks
    def test_abortUndoesRedefinition(self):
        """
        abort brings back the old version and its methods, and the class
        history shrinks back.
        """
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("get_method_source", className="Greeter",
                           selector="greet")
        yield self.succeed("compile_class_definition", className="Greeter",
                           instVarNames=["name"], recompileMethods=False)
        yield self.succeed("abort")
        self.assertEqual(len(self.code().classHistory("Greeter")), 1)
        self.assertEqual(self.code().classNamed("Greeter").instVarNames, ())
        self.assertIsNotNone(self.code().method("Greeter", "greet"))

    @inlineCallbacks
    def test_definitionIsRecorded(self):
        """
        After a redefinition the client can redefine again without reading.
        """
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("compile_class_definition", className="Greeter",
                           instVarNames=["name"])
        yield self.succeed("compile_class_definition", className="Greeter",
                           instVarNames=["name", "place"])
        self.assertEqual(self.code().classNamed("Greeter").instVarNames,
                         ("name", "place"))


class NearestTests(MutationTestCase):
    """
    A misspelt class, selector or dictionary given to a mutation names the
    nearest ones, and changes nothing.
    """

    @inlineCallbacks
    def test_nearest(self):
        for name, arguments, nearest in (
                ("compile_method", {"className": "Acount", "source": "x ^1"},
                 "Account"),
                ("delete_method", {"className": "Acount", "selector": "balance"},
                 "Account"),
                ("delete_method", {"className": "Account", "selector": "balanse"},
                 "balance"),
                ("delete_class", {"className": "Acount"}, "Account"),
                ("set_class_comment", {"className": "Acount", "comment": "x"},
                 "Account"),
                ("compile_class_definition",
                 {"className": "Checking", "superclassName": "Acount"}, "Account"),
                ("compile_class_definition",
                 {"className": "Checking", "dictionary": "Bankng"}, "Banking"),
                ("compile_class_definition",
                 {"className": "Checking", "poolDictionaries": ["Bankng"]}, "Banking"),
                ("remove_dictionary", {"dictionaryName": "Bankng"}, "Banking")):
            message = yield self.refused(name, "notFound", **arguments)
            self.assertTrue(message.endswith(f" Nearest: {nearest}."), (name, message))
        self.assertIsNone(self.code().classNamed("Checking"))


class RoundTripTests(MutationTestCase):

    @inlineCallbacks
    def test_fixTheFailingTest(self):
        """
        Browse, fix Account>>withdraw:, run AccountTest against the fix,
        commit: another client then sees the fix.
        """
        before = yield self.succeed("run_test_class", className="AccountTest")
        self.assertEqual(before["structuredContent"]["failures"], 1)
        text = yield self.harness.text("get_method_source",
                                       className="Account",
                                       selector="withdraw:")
        self.assertIn("Overdrafts are not checked", text)
        yield self.succeed("compile_method", className="Account",
                           source=GUARDED_WITHDRAW)
        after = yield self.succeed("run_test_class", className="AccountTest")
        self.assertEqual(after["structuredContent"]["failures"], 0)
        self.assertEqual(after["structuredContent"]["errors"], 1)
        yield self.succeed("commit")
        other = self.harness.newClient()
        self.assertEqual(
            self.code(other).method("Account", "withdraw:").source,
            GUARDED_WITHDRAW)


def _templateArguments(fuzz):
    """
    Each template with arguments as its tool passes them, C{fuzz} in every
    text argument a client supplies.
    """
    return {
        "add_dictionary": {"dictionaryName": fuzz},
        "remove_dictionary": {"dictionaryName": fuzz},
        "set_class_comment": {"className": fuzz, "comment": fuzz},
        "compile_method": {"className": fuzz, "meta": False,
                           "selector": fuzz, "source": fuzz,
                           "category": fuzz, "replaces": fuzz, "expected": fuzz},
        "delete_method": {"className": fuzz, "meta": True,
                          "selector": fuzz, "expected": fuzz},
        "delete_class": {"className": fuzz, "expected": fuzz},
        "compile_class_definition": {
            "className": fuzz, "superclassName": fuzz,
            "instVarNames": [fuzz], "classVars": [], "classInstVars": [fuzz],
            "poolDictionaries": [fuzz, fuzz], "dictionaryName": fuzz,
            "options": [fuzz], "category": fuzz, "recompileMethods": True,
            "expected": fuzz, "classType": fuzz},
    }


class TemplateInjectionTests(SynchronousTestCase):

    @settings(max_examples=60)
    @given(st.text())
    def test_argumentsStayLiterals(self, text):
        """
        Arbitrary text passed as a class name, selector, source, comment or
        any other argument changes nothing of a mutation template's
        Smalltalk but that argument's literal.
        """
        fuzzed, blank = _templateArguments(text), _templateArguments("")
        for name in TOOL_NAMES:
            template = Template.named(name)
            parsed = parse_expression(template.render(fuzzed[name], 1000))
            expected = parse_expression(template.render(blank[name], 1000))
            self.assertEqual(len(parsed.statements),
                             len(expected.statements))
            for got, want in zip(parsed.statements, expected.statements,
                                 strict=True):
                if isinstance(want, Assignment) and want.name in fuzzed[name]:
                    self.assertEqual(got.name, want.name)
                    self.assertEqual(got.value,
                                     _literal(fuzzed[name][want.name]))
                else:
                    self.assertEqual(got, want)


def _literal(value):
    """
    The parsed literal a template argument should become.
    """
    if isinstance(value, str):
        return Literal(value, "string")
    if isinstance(value, list):
        return Literal(tuple(_literal(each) for each in value), "array")
    return Literal(value, "true" if value else "false")

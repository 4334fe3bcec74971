"""
The template fixes of issue 9, each checked by running the template on the
simulated stone, whose kernel model follows GemStone 3.7 where the old
templates went wrong (each test fails with the template it replaced).
"""

import json

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.smalltalk import parse_method, sent_selectors
from gsmcpd.testing.simulator import errors, gem
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.catalog import ToolCatalog, buildToolsets
from gsmcpd.tools.templates.render import Template
from tests.toolharness import ToolHarness

MAX_RESULT = 1 << 20


class TemplateTestCase(SynchronousTestCase):
    """
    A seeded stone and a session on it.
    """

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login("DataCurator", "swordfish")

    def outcome(self, template, session=None, maxBytes=MAX_RESULT, **arguments):
        source = Template.named(template).render(arguments, maxBytes)
        return json.loads(gem.answer(session or self.session, source))

    def result(self, template, session=None, **arguments):
        outcome = self.outcome(template, session, **arguments)
        self.assertNotIn("error", outcome)
        return outcome["result"]

    def doit(self, code, session=None):
        """
        What C{code} prints as, run by execute_code.
        """
        return self.result("execute_code", session, code=code, limit=10_000)["text"]


class ContinueTransactionTests(TemplateTestCase):

    def test_falseWhenTheWritesCannotCommit(self):
        """
        continueTransaction's false (the view moved over a commit that
        changed what this session changed) reaches the daemon.
        """
        other = self.stone.login("DataCurator", "swordfish")
        self.doit("UserGlobals at: #Shared put: 1")
        self.doit("UserGlobals at: #Shared put: 2", other)
        self.assertTrue(self.result("commit", other)["committed"])
        self.assertEqual(self.result("continue_transaction"), {"continued": False})
        self.assertFalse(self.result("commit")["committed"])

    def test_trueOtherwise(self):
        self.stone.commitFromOutside(("global", "Published", "Elsewhere"), 1)
        self.doit("UserGlobals at: #Mine put: 1")
        self.assertEqual(self.result("continue_transaction"), {"continued": True})


class CommitTests(TemplateTestCase):

    def test_conflictsCountedAndNamed(self):
        """
        A failed commit reports each kind of conflict with its count and
        the classes it can name (GemStone answers a method's class's
        method dictionary and SymbolSet, not the method), never
        #commitResult as a kind nor a conflicting object's printString.
        """
        other = self.stone.login("DataCurator", "swordfish")
        for session, body in ((self.session, "^1"), (other, "^2")):
            self.doit(f"Account compileMethod: 'owner {body}' dictionaries: "
                      "System myUserProfile symbolList category: 'x'", session)
        self.assertTrue(self.result("commit")["committed"])
        self.assertEqual(self.result("commit", other), {
            "committed": False,
            "conflicts": {"Write-Write": {"count": 2, "names": ["Account"]}}})


class EnvelopeTests(TemplateTestCase):

    def test_noBlockTemporaryShadowsAnArgument(self):
        """
        The envelope's block temporaries are gsmcp-prefixed: execute_code's
        argument is code, which a block temporary of that name would
        shadow (a compile warning that ends a doit).
        """
        self.assertEqual(self.result("execute_code", code="3 + 4", limit=10),
                         {"total": 1, "text": "7"})

    def test_haltIsAnswered(self):
        """
        A Halt is the call's error, answered by the envelope rather than
        left suspended on the stone.
        """
        error = self.outcome("execute_code", code="self halt", limit=10)["error"]
        self.assertEqual(error["class"], "Halt")

    def test_warningResumesAsANote(self):
        """
        A Warning nothing handles does not end the call: the envelope notes
        its description and resumes it with nil, as GemStone and SUnit do.
        """
        outcome = self.outcome("execute_code", limit=100, code=(
            "| answer | answer := Warning signal: 'careful'. "
            "Warning new signal: 'twice'. answer isNil"))
        self.assertEqual(outcome["result"]["text"], "true")
        self.assertEqual(outcome["notes"], ["careful", "twice"])
        self.assertNotIn("notes", self.outcome("execute_code", code="3", limit=10))

    def test_unhandledNotificationResumesNil(self):
        self.assertEqual(self.doit("(Notification signal: 'fyi') printString"), "'nil'")

    def test_descriptionThatFails(self):
        """
        An exception whose description itself fails is still answered, by
        its messageText or its class name.
        """
        self.doit("Error subclass: 'Fussy' instVarNames: #() classVars: #() classInstVars: #()"
                  " poolDictionaries: #() inDictionary: UserGlobals options: #()")
        self.doit("Fussy compileMethod: 'description ^nil foo' dictionaries: "
                  "System myUserProfile symbolList category: 'x'")
        error = self.outcome("execute_code", code="Fussy new signal", limit=10)["error"]
        self.assertEqual((error["class"], error["message"]), ("Fussy", "Fussy"))


class SUnitTests(TemplateTestCase):

    def define(self, name, superclass, *methods, meta=()):
        self.doit(f"{superclass} subclass: '{name}' instVarNames: #() classVars: #() "
                  "classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals "
                  "options: #()")
        for side, sources in ((name, methods), (f"{name} class", meta)):
            for source in sources:
                self.doit(f"{side} compileMethod: '{source}' dictionaries: "
                          "System myUserProfile symbolList category: 'tests'")

    def statuses(self, className):
        found = self.result("run_test_class", classNames=[className], selector=None,
                            listOnly=False, failingOnly=False)
        return {each["selector"]: each["status"] for each in found["tests"]}

    def test_expectedFailures(self):
        """
        A test named in expectedFailures that fails counts as passed, as
        SUnit's TestResult counts it.
        """
        self.define("ExpectingTest", "TestCase", "expectedFailures ^#(#testKnownBug)",
                    "testKnownBug self assert: false", "testFine self assert: true")
        self.assertEqual(self.statuses("ExpectingTest"),
                         {"testKnownBug": "passed", "testFine": "passed"})

    def test_resumableFailureGoesOn(self):
        """
        A resumable assertion failure fails the test, which SUnit resumes:
        what follows it runs.
        """
        self.define("ResumingTest", "TestCase",
                    "testGoesOn self assert: false description: ''no'' resumable: true. "
                    "UserGlobals at: #WentOn put: true")
        self.assertEqual(self.statuses("ResumingTest"), {"testGoesOn": "failed"})
        self.assertEqual(self.doit("UserGlobals at: #WentOn ifAbsent: [false]"), "true")

    def test_resourcesSetUpAndReset(self):
        """
        A test class's TestResources are set up before its tests and torn
        down after them.
        """
        self.define("Shared", "TestResource",
                    "setUp UserGlobals at: #SharedUp put: true",
                    "tearDown UserGlobals at: #SharedUp put: false")
        self.define("SharingTest", "TestCase",
                    "testSeesIt self assert: (UserGlobals at: #SharedUp)",
                    meta=["resources ^Array with: Shared"])
        self.assertEqual(self.statuses("SharingTest"), {"testSeesIt": "passed"})
        self.assertEqual(self.doit("UserGlobals at: #SharedUp"), "false")


class NameComparisonTests(TemplateTestCase):

    def test_unicodeDictionaryName(self):
        """
        A dictionary name that is a Unicode string is compared as a Symbol:
        not found, rather than an ArgumentError from = between String and
        Unicode16.
        """
        found = self.result("list_classes", dictionaryName="\u03a9mega")
        self.assertIn("Dictionary not found", found["gsmcpNotFound"])

    def test_unicodeStaleCheck(self):
        """
        A stale check between a String source and a Unicode expected text
        answers stale rather than raising.
        """
        found = self.result("compile_method", className="Account", meta=False,
                            selector="balance", source="balance ^'\u03a9'",
                            category=None, replaces=None, expected="balance ^'\u03a9'",
                            kernelClasses=False)
        self.assertEqual(found, {"stale": True})


class ExportTests(TemplateTestCase):

    def test_largeClassStaysUnderTheCap(self):
        """
        A class larger than a result may be is exported cut, not refused
        for its size.
        """
        self.doit("Object subclass: 'Huge' instVarNames: #() classVars: #() classInstVars: #()"
                  " poolDictionaries: #() inDictionary: UserGlobals options: #()")
        code = self.session.transaction
        model = Evaluator(self.session).code
        for n in range(40):
            model.compileMethod("Huge", f"m{n}\n\t^'{'x' * 3000}'")
        self.assertTrue(code.needsCommit)
        outcome = self.outcome("export_class_source", maxBytes=200_000, className="Huge")
        self.assertNotIn("error", outcome)
        self.assertEqual(len(outcome["result"]["fileOut"]), 60_000)
        self.assertLess(len(outcome["result"]["methods"]), 40)


class KernelClassTests(TemplateTestCase):

    def test_mutationsRefuseKernelClasses(self):
        cases = {
            "compile_method": dict(className="Object", meta=False, selector="probe",
                                   source="probe ^1", category=None, replaces=None, expected=None,
                                   kernelClasses=False),
            "delete_method": dict(className="Object", meta=False, selector="==",
                                  expected=None, kernelClasses=False),
            "set_class_comment": dict(className="Object", comment="mine",
                                      kernelClasses=False),
            "delete_class": dict(className="Object", expected=None, kernelClasses=False),
            "remove_dictionary": dict(dictionaryName="Globals", expected=None,
                                      expectedCount=None),
        }
        for name, arguments in cases.items():
            self.assertIn("gsmcpRefused", self.result(name, **arguments), name)

    def test_redefinitionRefused(self):
        found = self.result(
            "compile_class_definition", className="Object", superclassName="Object",
            instVarNames=[], classVars=[], classInstVars=[], poolDictionaries=[],
            dictionaryName=None, options=[], category=None, expected=None,
            recompileMethods=True, classType=None,
            readMethods=" ", kernelClasses=False)
        self.assertIn("gsmcpRefused", found)

    def test_optionAllows(self):
        """
        With the mutation toolset's kernelClasses option, the templates
        leave the decision to the stone.
        """
        found = self.result("compile_method", className="Object", meta=False,
                            selector="probe", source="probe ^1", category=None, replaces=None,
                            expected=None, kernelClasses=True)
        self.assertEqual(found["selector"], "probe")


class CompileTests(TemplateTestCase):

    def test_warningsReturned(self):
        found = self.result("compile_method", className="Account", meta=False,
                            selector="probe", source="probe\n\t| unused |\n\t^1",
                            category=None, replaces=None, expected=None, kernelClasses=False)
        [warning] = found["warnings"]
        self.assertIn("unused temporary unused", warning)

    def test_selectorIsTheStones(self):
        found = self.result("compile_method", className="Account", meta=False,
                            selector="misread", source="probe ^1", category=None, replaces=None,
                            expected=None, kernelClasses=False)
        self.assertEqual(found["selector"], "probe")


class EnvironmentSendTests(TestCase):
    """
    The daemon's parser reads GemStone's environment sends, so a method
    using one compiles rather than being refused before the stone sees it.
    """

    def test_parsed(self):
        method = parse_method("probe\n\t^Object @env0:new @env0:printString , (3 @env0:+ 4)")
        self.assertEqual((method.selector, sorted(sent_selectors(method))),
                         ("probe", ["+", ",", "new", "printString"]))

    @inlineCallbacks
    def test_compiled(self):
        harness = ToolHarness(("mutation",))
        result = yield harness.call("compile_method", className="Account",
                                    source="probe\n\t^Object @env0:new")
        self.assertFalse(result.get("isError"), result)
        self.assertEqual(result["structuredContent"]["selector"], "probe")


class RemovalTests(TemplateTestCase):

    def test_removeDictionarySweepsStrayBindings(self):
        self.result("add_dictionary", dictionaryName="Extra")
        self.doit("UserGlobals at: #Extra put: (System myUserProfile objectNamed: #Extra)")
        self.assertEqual(self.result("remove_dictionary", dictionaryName="Extra",
                                     expected=None, expectedCount=None),
                         {"dictionaryName": "Extra", "entries": 1})
        self.assertEqual(self.doit("UserGlobals includesKey: #Extra"), "false")

    def test_deleteClassRemovesItsOwnBinding(self):
        """
        An alias earlier in the symbol list is not the class's home: the
        binding under its own name goes.
        """
        self.doit("UserGlobals at: #Acct put: Account")
        definition = self.doit("Account definition")[1:-1].replace("''", "'")
        found = self.result("delete_class", className="Account", expected=definition,
                            kernelClasses=False)
        self.assertEqual(found, {"subclasses": ["SavingsAccount"]})
        self.result("delete_class", className="SavingsAccount", expected=self.doit(
            "SavingsAccount definition")[1:-1].replace("''", "'"), kernelClasses=False)
        found = self.result("delete_class", className="Account", expected=definition,
                            kernelClasses=False)
        self.assertEqual(found["dictionary"], "Banking")
        self.assertEqual(self.doit("(System myUserProfile symbolList objectNamed: #Account) "
                                   "== nil"), "true")


class NameGemTests(TemplateTestCase):

    def test_readsTheNameBack(self):
        self.assertEqual(self.result("open_session", name="worker-1")["name"], "worker-1")

    def test_commitResultNoLongerSuccess(self):
        """
        A prepared session's last commit result is #readOnly, not #success:
        the first commit its code sends is then told from an abort.
        """
        self.result("open_session", name="worker-1")
        self.assertEqual(self.doit("System transactionConflicts at: #commitResult"),
                         "#readOnly")


class TemplateErrorsTests(TemplateTestCase):

    def test_simulatedStoneNamesItself(self):
        """
        What the simulator's compiler refuses, and what its kernel model
        does not understand, say they are the simulated stone's.
        """
        e = self.assertRaises(errors.GciError, gem.answer, self.session, "3 +")
        self.assertEqual(e.number, errors.COMPILE_ERROR)
        self.assertIn("the simulated stone's compiler", e.message)
        error = self.outcome("execute_code", code="3 frobnicate", limit=10)["error"]
        self.assertEqual(error["number"], errors.MESSAGE_NOT_UNDERSTOOD)
        self.assertIn("simulated stone: not in its kernel model", error["message"])


class DaemonSideTests(TestCase):
    """
    What the daemon makes of the fixed templates' answers.
    """

    @inlineCallbacks
    def test_refreshSaysWhenChangesCannotCommit(self):
        first = ToolHarness(("session", "execution"))
        second = first.newClient()
        for harness, value in ((first, 1), (second, 2)):
            yield harness.call("execute_code", code=f"UserGlobals at: #Shared put: {value}")
        yield second.call("commit")
        result = yield first.call("refresh")
        self.assertEqual(result["structuredContent"],
                         {"refreshed": True, "writesCanCommit": False})
        self.assertIn("can no longer commit", result["content"][0]["text"])

    @inlineCallbacks
    def test_compileWarningsShown(self):
        result = yield ToolHarness(("mutation",)).call(
            "compile_method", className="Account", source="probe\n\t| unused |\n\t^1")
        self.assertIn("warning: ", result["content"][0]["text"])
        [warning] = result["structuredContent"]["warnings"]
        self.assertIn("unused temporary unused", warning)

    @inlineCallbacks
    def test_kernelClassesOption(self):
        """
        The mutation toolset's kernelClasses option reaches the templates.
        """
        source = "probe\n\t^1"
        refused = yield ToolHarness(("mutation",)).call(
            "compile_method", className="Object", source=source)
        self.assertTrue(refused["isError"])
        allowed = ToolHarness(("mutation",), tools=ToolCatalog(buildToolsets(
            ["mutation"], {"mutation": {"kernelClasses": True}})))
        result = yield allowed.call("compile_method", className="Object", source=source)
        self.assertFalse(result.get("isError"), result)


class CaseOnlyNamesTests(TemplateTestCase):

    def test_exportOrdersSelectorsTotally(self):
        """
        Selectors that differ only in case, which an image's String C{<}
        may not tell apart, are exported in one order: code points break
        the tie.
        """
        self.doit("Object subclass: 'Cased' instVarNames: #() classVars: #() classInstVars: #()"
                  " poolDictionaries: #() inDictionary: UserGlobals options: #()")
        for selector in ("caseProbe", "CASEPROBE", "CaseProbe"):
            self.doit(f"Cased compileMethod: '{selector} ^1' dictionaries: "
                      "System myUserProfile symbolList category: 'x'")
        for _ in range(2):
            methods = self.result("export_class_source", className="Cased")["methods"]
            self.assertEqual([each["selector"] for each in methods],
                             ["CASEPROBE", "CaseProbe", "caseProbe"])
            # The model orders what a sort block leaves unordered one way at
            # one sort and the other way at the next: move it on by one.
            self.doit("#(2 1) asSortedCollection")

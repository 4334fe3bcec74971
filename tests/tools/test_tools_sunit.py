"""
The SUnit tools, end to end on the simulated stone's seeded repository
(L{gsmcpd.testing.simulator.seed}): C{AccountTest}, whose C{testDeposit} passes,
C{testWithdrawTooMuch} fails and C{testBroken} is an error.
"""

import jsonschema
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.testing.simulator.evaluator import Evaluator
from tests.toolharness import ToolHarness, effectiveHints
from tests.tools.test_tools_listing import codeModel
from tests.tools.test_tools_search import checked, failed

TESTING_TOOLS = ("describe_test_failure", "list_failing_tests",
                 "list_test_classes", "run_test_class", "run_test_method")

ZERO_DIVIDE = ("a ZeroDivide occurred (error 2026), "
               "reason:numErrIntDivisionByZero, attempt to divide 0 by zero")
OVERDRAWN = "Expected 10 but was -15."

BROKEN = {"className": "AccountTest", "selector": "testBroken",
          "status": "error", "exceptionClass": "ZeroDivide",
          "description": ZERO_DIVIDE}
DEPOSIT = {"className": "AccountTest", "selector": "testDeposit",
           "status": "passed", "exceptionClass": None, "description": None}
OVERDRAFT = {"className": "AccountTest", "selector": "testWithdrawTooMuch",
             "status": "failed", "exceptionClass": "TestFailure",
             "description": OVERDRAWN}

SUMMARY = [
    "3 run, 1 passed, 1 failed, 1 errors",
    f"  ERROR AccountTest>>testBroken: ZeroDivide: {ZERO_DIVIDE}",
    f"  FAIL  AccountTest>>testWithdrawTooMuch: TestFailure: {OVERDRAWN}"]


def withoutStack(structured):
    """
    A run of one test's structured result without its C{stack}, which
    the stack tests read.
    """
    return {key: value for key, value in structured.items() if key != "stack"}


def frameNames(structured):
    return [frame["method"] for frame in structured["stack"]["frames"]]


class TestingTestCase(TestCase):

    def setUp(self):
        self.harness = ToolHarness(("testing",))
        self.model = codeModel(self.harness)

    def fixWithdraw(self):
        """
        Make C{Account>>withdraw:} refuse overdrafts, uncommitted.
        """
        self.model.compileMethod(
            "Account", "withdraw: amount\n\tamount > balance ifTrue: [^self]."
            "\n\tbalance := balance - amount", "operations")


class SchemaTests(TestingTestCase):

    def test_toolsDeclared(self):
        """
        Five tools with closed input schemas and valid output schemas; the
        ones that run tests are not read-only, as a test runs any code.
        """
        registry = self.harness.tools
        self.assertEqual(sorted(tool.name for tool in registry),
                         sorted(TESTING_TOOLS))
        for tool in registry:
            self.assertFalse(tool.inputSchema["additionalProperties"])
            self.assertEqual(effectiveHints(tool.annotations)["readOnlyHint"],
                             tool.name == "list_test_classes")
            self.assertFalse(
                effectiveHints(tool.annotations).get("destructiveHint"))
            self.assertTrue(tool.title)
            jsonschema.Draft202012Validator.check_schema(tool.outputSchema)

    @inlineCallbacks
    def test_invalidParams(self):
        """
        Empty names, missing or unknown arguments, an empty class list and
        a negative limit are invalidParams, before anything runs.
        """
        for tool, arguments in (
                ("run_test_class", {"className": ""}),
                ("run_test_class", {}),
                ("run_test_class", {"className": "AccountTest",
                                    "selector": "testDeposit"}),
                ("run_test_method", {"className": "AccountTest"}),
                ("run_test_method", {"className": "AccountTest",
                                     "selector": ""}),
                ("describe_test_failure", {"className": "",
                                           "selector": "testDeposit"}),
                ("list_failing_tests", {"classNames": []}),
                ("list_failing_tests", {"classNames": [""]}),
                ("list_failing_tests", {"classNames": "AccountTest"}),
                ("list_test_classes", {"limit": -1}),
                ("list_test_classes", {"offset": -1})):
            kind, _ = yield failed(self.harness, tool, **arguments)
            self.assertEqual(kind, "invalidParams", (tool, arguments))
        self.assertEqual(self.harness.gem.sources, [])


class ListTestClassesTests(TestingTestCase):

    @inlineCallbacks
    def test_sortedAndPaged(self):
        """
        Every TestCase subclass, sorted, however deep; paged on request.
        """
        self.model.defineClass("BankTest", "TestCase", dictionary="Banking")
        self.model.defineClass("ZSavingsTest", "AccountTest",
                               dictionary="UserGlobals")
        lines, structured = yield checked(self.harness, "list_test_classes")
        self.assertEqual(lines, ["(showing 1-3 of 3)", "AccountTest",
                                 "BankTest", "ZSavingsTest"])
        self.assertEqual(structured["classNames"],
                         ["AccountTest", "BankTest", "ZSavingsTest"])
        lines, structured = yield checked(self.harness, "list_test_classes",
                                          offset=1, limit=1)
        self.assertEqual(lines, [
            "(showing 2-2 of 3; pass offset: 2 for the next page)",
            "BankTest"])
        lines, _ = yield checked(self.harness, "list_test_classes", limit=0)
        self.assertEqual(lines, ["(3 in all; pass a limit to list them)"])


class RunTestClassTests(TestingTestCase):

    @inlineCallbacks
    def test_run(self):
        """
        The counts, a line per test that did not pass with its exception,
        and every test as data.
        """
        lines, structured = yield checked(self.harness, "run_test_class",
                                          className="AccountTest")
        self.assertEqual(lines, [f"AccountTest: {SUMMARY[0]}", *SUMMARY[1:]])
        self.assertEqual(structured, {
            "className": "AccountTest", "run": 3, "passed": 1,
            "failures": 1, "errors": 1,
            "tests": [BROKEN, DEPOSIT, OVERDRAFT]})

    @inlineCallbacks
    def test_uncommittedCode(self):
        """
        Tests run in the session's view: its uncommitted fix makes the
        failure pass there, and only there.
        """
        self.fixWithdraw()
        _, structured = yield checked(self.harness, "run_test_class",
                                      className="AccountTest")
        self.assertEqual((structured["passed"], structured["failures"]),
                         (2, 0))
        _, structured = yield checked(self.harness.newClient(),
                                      "run_test_class",
                                      className="AccountTest")
        self.assertEqual(structured["failures"], 1)

    @inlineCallbacks
    def test_inherited(self):
        """
        A subclass runs the tests it inherits, under its own name.
        """
        self.model.defineClass("SubAccountTest", "AccountTest",
                               dictionary="Banking")
        _, structured = yield checked(self.harness, "run_test_class",
                                      className="SubAccountTest")
        self.assertEqual(
            [(t["className"], t["selector"]) for t in structured["tests"]],
            [("SubAccountTest", "testBroken"), ("SubAccountTest", "testDeposit"),
             ("SubAccountTest", "testWithdrawTooMuch")])

    @inlineCallbacks
    def test_noTests(self):
        self.model.defineClass("EmptyTest", "TestCase", dictionary="Banking")
        lines, structured = yield checked(self.harness, "run_test_class",
                                          className="EmptyTest")
        self.assertEqual(lines, ["EmptyTest: 0 run, 0 passed, 0 failed, "
                                 "0 errors"])
        self.assertEqual(structured["tests"], [])

    @inlineCallbacks
    def test_notATestCase(self):
        """
        A class that is not a TestCase subclass is refused, naming it.
        """
        result = yield failed(self.harness, "run_test_class",
                              className="Account")
        self.assertEqual(result, (
            "refused", "Not a TestCase subclass: Account. list_test_classes "
            "lists the test classes."))

    @inlineCallbacks
    def test_unknownClass(self):
        """
        A name that is not a class, or not bound at all, is notFound.
        """
        for name in ("NoSuchTest", "AppName"):
            result = yield failed(self.harness, "run_test_class",
                                  className=name)
            self.assertEqual(result, (
                "notFound", f"Class not found: {name} (not in this "
                "session's symbol list; list_test_classes lists the test "
                "classes)"))


class RunTestMethodTests(TestingTestCase):

    @inlineCallbacks
    def test_outcomes(self):
        """
        One test: passed, failed or error, with its exception.
        """
        for entry, line in (
                (DEPOSIT, "AccountTest>>testDeposit: passed"),
                (OVERDRAFT, "AccountTest>>testWithdrawTooMuch: failed: "
                            f"TestFailure: {OVERDRAWN}"),
                (BROKEN, f"AccountTest>>testBroken: error: ZeroDivide: "
                         f"{ZERO_DIVIDE}")):
            lines, structured = yield checked(
                self.harness, "run_test_method", className="AccountTest",
                selector=entry["selector"])
            self.assertEqual((lines[0], withoutStack(structured)), (line, entry))
            self.assertEqual(structured["stack"] is None, entry is DEPOSIT)

    @inlineCallbacks
    def test_failingTestRunsOnce(self):
        """
        A failing test runs once: its side effect happens once, and its
        exception is the one its own run signalled (an earlier template
        ran it again, alone, to find the exception).
        """
        self.model.compileMethod(
            "AccountTest", "testCounted\n\tUserGlobals at: #CountedRuns put: "
            "(UserGlobals at: #CountedRuns ifAbsent: [0]) + 1.\n\tself "
            "assert: (UserGlobals at: #CountedRuns) > 1", "tests")
        lines, structured = yield checked(
            self.harness, "run_test_method", className="AccountTest",
            selector="testCounted")
        self.assertEqual(lines[0], "AccountTest>>testCounted: failed: TestFailure: "
                                   "Assertion failed")
        self.assertEqual((structured["exceptionClass"], structured["description"]),
                         ("TestFailure", "Assertion failed"))
        self.assertEqual(Evaluator(self.harness.gem.session).evaluate(
            "UserGlobals at: #CountedRuns"), 1)

    @inlineCallbacks
    def test_expectedWarning(self):
        """
        A test that expects a Warning meets it in should:raise:, before the
        envelope, which resumes the Warnings nothing else handles.
        """
        self.model.compileMethod(
            "AccountTest", "testWarns\n\tself should: [Warning signal: 'w'] raise: Warning.\n"
            "\tself shouldnt: [Warning signal: 'w'] raise: ZeroDivide", "tests")
        lines, _ = yield checked(self.harness, "run_test_method", className="AccountTest",
                                 selector="testWarns")
        self.assertEqual(lines, ["AccountTest>>testWarns: passed"])

    @inlineCallbacks
    def test_expectedFailurePassed(self):
        """
        A test named in expectedFailures that passes is a failure to SUnit,
        with no exception to name.
        """
        self.model.compileMethod("AccountTest", "expectedFailures\n\t^#(#testDeposit)",
                                 "tests")
        lines, structured = yield checked(
            self.harness, "run_test_method", className="AccountTest",
            selector="testDeposit")
        said = "passed, but it is named in expectedFailures"
        self.assertEqual(lines, [f"AccountTest>>testDeposit: failed: {said}"])
        self.assertEqual((structured["exceptionClass"], structured["description"]),
                         (None, said))

    @inlineCallbacks
    def test_unknownSelector(self):
        result = yield failed(self.harness, "run_test_method",
                              className="AccountTest", selector="testNothing")
        self.assertEqual(result, (
            "notFound", "Method not found: AccountTest>>testNothing (not in "
            "this session's symbol list; list_test_classes lists the test "
            "classes)"))

    @inlineCallbacks
    def test_nearest(self):
        """
        A misspelt test class or test names the nearest ones.
        """
        kind, message = yield failed(self.harness, "run_test_class",
                                     className="AcountTest")
        self.assertEqual(kind, "notFound")
        self.assertTrue(message.endswith(" Nearest: AccountTest."), message)
        kind, message = yield failed(self.harness, "run_test_method",
                                     className="AccountTest", selector="testDepsit")
        self.assertTrue(message.endswith(" Nearest: AccountTest>>testDeposit."), message)

    @inlineCallbacks
    def test_notATestCase(self):
        kind, _ = yield failed(self.harness, "run_test_method",
                               className="Account", selector="balance")
        self.assertEqual(kind, "refused")

    @inlineCallbacks
    def test_quotedSelector(self):
        """
        A selector holding quotes reaches the stone as text only.
        """
        kind, message = yield failed(self.harness, "run_test_method",
                                     className="AccountTest",
                                     selector="x' , 'y")
        self.assertEqual(kind, "notFound")
        self.assertIn("AccountTest>>x' , 'y", message)


class DescribeTestFailureTests(TestingTestCase):

    @inlineCallbacks
    def test_failure(self):
        lines, structured = yield checked(
            self.harness, "describe_test_failure", className="AccountTest",
            selector="testWithdrawTooMuch")
        self.assertEqual(lines[:4], ["AccountTest>>testWithdrawTooMuch failed",
                                     "exception: TestFailure",
                                     f"description: {OVERDRAWN}",
                                     "Stack (innermost first):"])
        self.assertEqual(withoutStack(structured), OVERDRAFT)

    @inlineCallbacks
    def test_error(self):
        lines, structured = yield checked(
            self.harness, "describe_test_failure", className="AccountTest",
            selector="testBroken")
        self.assertEqual(lines[:3], ["AccountTest>>testBroken error",
                                     "exception: ZeroDivide",
                                     f"description: {ZERO_DIVIDE}"])
        self.assertEqual(withoutStack(structured), BROKEN)

    @inlineCallbacks
    def test_passed(self):
        lines, structured = yield checked(
            self.harness, "describe_test_failure", className="AccountTest",
            selector="testDeposit")
        self.assertEqual(lines, ["AccountTest>>testDeposit passed (no "
                                 "failure)."])
        self.assertEqual(structured, dict(DEPOSIT, stack=None))

    @inlineCallbacks
    def test_stack(self):
        """
        A failing test's stack runs from where it was signalled down to
        SUnit's runCase, none of the template's own frames: the test method
        with its line and source line, self's class, and the kernel
        frames between (here SUnit's assert:equals: with its arguments).
        """
        lines, structured = yield checked(
            self.harness, "describe_test_failure", className="AccountTest",
            selector="testWithdrawTooMuch")
        self.assertEqual(frameNames(structured), [
            "TestCase>>assert:equals:", "AccountTest>>testWithdrawTooMuch",
            "TestCase>>performTest", "[] in TestCase>>runCase",
            "ExecBlock>>ensure:", "TestCase>>runCase"])
        test = structured["stack"]["frames"][1]
        self.assertEqual((test["line"], test["source"], test["receiverClass"]),
                         (5, "self assert: account balance equals: 10", "AccountTest"))
        assertion = structured["stack"]["frames"][0]
        self.assertEqual([(each["name"], each["value"]) for each in assertion["variables"]],
                         [("arg1", "-15"), ("arg2", "10")])
        self.assertIn("  AccountTest>>testWithdrawTooMuch (line 5): self assert: "
                      "account balance equals: 10", lines)
        self.assertIn("  AccountTest (TestCase)>>performTest (line 2): self perform: "
                      "testSelector", lines)

    @inlineCallbacks
    def test_classRunsBringNoStack(self):
        """
        A class's run lists its failing tests without their stacks, which
        the runs of one test bring.
        """
        _, structured = yield checked(self.harness, "run_test_class",
                                      className="AccountTest")
        self.assertNotIn("Stack", str(structured))
        self.assertTrue(all("stack" not in each for each in structured["tests"]))

    @inlineCallbacks
    def test_errors(self):
        """
        An unknown class or selector is notFound; a class that is not a
        TestCase subclass is refused.
        """
        for className, selector, kind in (
                ("NoSuchTest", "testDeposit", "notFound"),
                ("AccountTest", "testNothing", "notFound"),
                ("Account", "balance", "refused")):
            result = yield failed(self.harness, "describe_test_failure",
                                  className=className, selector=selector)
            self.assertEqual(result[0], kind, className)


class ListFailingTestsTests(TestingTestCase):

    @inlineCallbacks
    def test_all(self):
        """
        With no class names, every test class runs and only the tests that
        did not pass are listed; the counts cover every test run.
        """
        self.model.defineClass("GreenTest", "TestCase", dictionary="Banking")
        self.model.compileMethod("GreenTest", "testTrue\n\tself assert: true")
        lines, structured = yield checked(self.harness, "list_failing_tests")
        self.assertEqual(lines, ["4 run, 2 passed, 1 failed, 1 errors",
                                 *SUMMARY[1:]])
        self.assertEqual(structured, {
            "run": 4, "passed": 2, "failures": 1, "errors": 1,
            "tests": [BROKEN, OVERDRAFT]})

    @inlineCallbacks
    def test_named(self):
        self.model.defineClass("GreenTest", "TestCase", dictionary="Banking")
        self.model.compileMethod("GreenTest", "testTrue\n\tself assert: true")
        lines, structured = yield checked(self.harness, "list_failing_tests",
                                          classNames=["GreenTest"])
        self.assertEqual(lines, ["(no failing tests) 1 run, 1 passed, "
                                 "0 failed, 0 errors"])
        self.assertEqual(structured["tests"], [])

    @inlineCallbacks
    def test_fixed(self):
        self.fixWithdraw()
        _, structured = yield checked(self.harness, "list_failing_tests",
                                      classNames=["AccountTest"])
        self.assertEqual(structured["tests"], [BROKEN])

    @inlineCallbacks
    def test_unknownNamed(self):
        """
        Every unknown name is reported and nothing runs.
        """
        result = yield failed(self.harness, "list_failing_tests",
                              classNames=["AccountTest", "NoSuchTest",
                                          "Account", "OtherTest"])
        self.assertEqual(result, (
            "notFound", "Class not found: NoSuchTest, OtherTest (not in "
            "this session's symbol list; list_test_classes lists the test "
            "classes)"))

    @inlineCallbacks
    def test_notATestCase(self):
        result = yield failed(self.harness, "list_failing_tests",
                              classNames=["AccountTest", "Account", "Greeter"])
        self.assertEqual(result, (
            "refused", "Not a TestCase subclass: Account, Greeter. "
            "list_test_classes lists the test classes."))


class ProgressTests(TestCase):
    """
    A client that asks for progress hears about every test as it runs.
    """

    @inlineCallbacks
    def test_runTestClassReportsEachTest(self):
        harness = ToolHarness(("testing",))
        result, reports = yield harness.callWithProgress(
            "run_test_class", className="AccountTest")
        self.assertEqual([(done, total) for done, total, _ in reports],
                         [(1, 3), (2, 3), (3, 3)])
        self.assertIn("AccountTest>>", reports[0][2])
        self.assertEqual(result["structuredContent"]["run"], 3)
        self.assertEqual(result["structuredContent"]["failures"], 1)

    @inlineCallbacks
    def test_listFailingTestsReportsEachTest(self):
        harness = ToolHarness(("testing",))
        result, reports = yield harness.callWithProgress(
            "list_failing_tests", classNames=["AccountTest"])
        self.assertEqual(len(reports), 3)
        self.assertEqual(
            sorted(e["selector"]
                   for e in result["structuredContent"]["tests"]),
            ["testBroken", "testWithdrawTooMuch"])

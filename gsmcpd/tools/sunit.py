"""
The Testing toolset: SUnit, run in the client's own session.

Tests run in the session's transaction, so they see its uncommitted code:
compile, run the tests, then commit.  Every run goes through one template
that answers one entry per test (class, selector, status and, for a test
that did not pass, the exception's class and description), so each tool is
a view of those entries.
"""



from collections.abc import Sequence

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import (
    OPTIONAL_STRING,
    STRING,
    JsonObject,
    Schema,
    nonEmptyArgument,
)
from gsmcpd.tools.base import (
    Steps,
    Tool,
    ToolCall,
    ToolError,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    resultSchema,
)
from gsmcpd.tools.paging import LIST_LIMIT, PAGE_SCHEMA, page, pagingProperties
from gsmcpd.tools.templates.nearest import nearest
from gsmcpd.tools.templates.outcomes import stackText

STATUSES = ("passed", "failed", "error")

TEST_SCHEMA = resultSchema(
    className=STRING, selector=STRING,
    status={"enum": list(STATUSES)}, exceptionClass=OPTIONAL_STRING,
    description=OPTIONAL_STRING)
"""One test's outcome; a test that passed has no exception (null)."""

ONE_TEST_SCHEMA = resultSchema(**TEST_SCHEMA["properties"],
                               stack={"type": ["object", "null"]})
"""One test run alone: with the stack where its exception was signalled
(as an error's: frames, innermost first, and how many were omitted)."""

ONE_TEST_FRAMES = 30
"""How many frames of a test's stack a run of one test brings."""

SUMMARY_PROPERTIES: dict[str, Schema] = {
    "run": {"type": "integer"},
    "passed": {"type": "integer"},
    "failures": {"type": "integer"},
    "errors": {"type": "integer"},
    "tests": {"type": "array", "items": TEST_SCHEMA},
}

_LABELS = {"failed": "FAIL ", "error": "ERROR"}


def testName(entry: JsonObject) -> str:
    return f"{entry['className']}>>{entry['selector']}"


def outcome(entry: JsonObject) -> str:
    """
    C{failed: TestFailure: Assertion failed}, or C{passed}.
    """
    if entry["status"] == "passed":
        return "passed"
    return f"{entry['status']}: {cause(entry)}"


def cause(entry: JsonObject) -> str:
    """
    What a test that did not pass met: the exception's class and
    description, or the description alone when it signalled none (an
    expected failure that passed).
    """
    if entry["exceptionClass"] is None:
        return entry["description"]
    return f"{entry['exceptionClass']}: {entry['description']}"


def summary(entries: Sequence[JsonObject], run: int) -> JsonObject:
    """
    The counts of a run of C{run} tests whose non-passing ones are among
    C{entries}.
    """
    failures = sum(e["status"] == "failed" for e in entries)
    errors = sum(e["status"] == "error" for e in entries)
    return {"run": run, "passed": run - failures - errors,
            "failures": failures, "errors": errors}


def summaryText(counts: JsonObject, entries: Sequence[JsonObject]) -> str:
    """
    C{3 run, 1 passed, 1 failed, 1 errors}, then a line per test that did
    not pass.
    """
    lines = [f"{counts['run']} run, {counts['passed']} passed, "
             f"{counts['failures']} failed, {counts['errors']} errors"]
    lines += [f"  {_LABELS[e['status']]} {testName(e)}: {cause(e)}"
              for e in entries if e["status"] != "passed"]
    return "\n".join(lines)


def withStack(text: str, entry: JsonObject) -> str:
    """
    C{text}, then the stack of the test's exception when there is one.
    """
    if entry.get("stack") is None:
        return text
    return f"{text}\n{stackText(entry['stack'])}"


class TestingToolset(Toolset):
    name = "testing"
    title = "Testing (SUnit)"
    instructions = (
        "Tests run in your session and see your uncommitted changes.")

    def tools(self) -> list[Tool]:
        oneTest = closedSchema({"className": nonEmptyArgument(),
                                "selector": nonEmptyArgument()},
                               required=["className", "selector"])
        run = annotations(False)
        return [
            Tool("describe_test_failure", "Describe test failure",
                 "Re-run one test method alone: passed, or its failure or "
                 "error with the exception.",
                 oneTest, run, self.describeTestFailure, ONE_TEST_SCHEMA),
            Tool("list_failing_tests", "List failing tests",
                 "Run TestCase subclasses (default: every concrete one, "
                 "which can take long) and list the tests that failed or "
                 "raised an error.",
                 closedSchema({"classNames": {
                     "type": "array", "minItems": 1,
                     "items": nonEmptyArgument()}}),
                 run, self.listFailingTests,
                 resultSchema(**SUMMARY_PROPERTIES),
                 taskSupport="optional"),
            Tool("list_test_classes", "Test classes",
                 "Every TestCase subclass in the symbol list, sorted.",
                 closedSchema(pagingProperties(LIST_LIMIT)),
                 annotations(True), self.listTestClasses,
                 resultSchema(classNames={"type": "array",
                                          "items": STRING},
                              page=PAGE_SCHEMA)),
            Tool("run_test_class", "Run test class",
                 "Run every test of a TestCase subclass.",
                 closedSchema({"className": nonEmptyArgument()},
                              required=["className"]),
                 run, self.runTestClass,
                 resultSchema(className=STRING,
                              **SUMMARY_PROPERTIES),
                 taskSupport="optional"),
            Tool("run_test_method", "Run test method",
                 "Run one test method.",
                 oneTest, run, self.runTestMethod, ONE_TEST_SCHEMA),
        ]

    @inlineCallbacks
    def _run(self, call: ToolCall, classNames: list[str] | None,
             selector: str | None = None, failingOnly: bool = False,
             ) -> Steps[tuple[list[JsonObject], int]]:
        """
        Run tests in the stone: C{(entries, how many ran)}.

        All in one call, or, when the client asked for progress, one call
        per test after one that lists them, reporting after each.

        @raise ToolError: C{notFound} for a class or test method that does
            not exist, C{refused} for a class that is not a TestCase
            subclass; then nothing ran.
        """
        if selector is None and call.wantsProgress:
            listed = yield self._cases(call, classNames, None, listOnly=True)
            entries: list[JsonObject] = []
            for done, case in enumerate(listed["tests"], 1):
                ran = yield self._cases(call, [case["className"]],
                                        case["selector"])
                entry = ran["tests"][0]
                if not (failingOnly and entry["status"] == "passed"):
                    entries.append(entry)
                call.reportProgress(done, len(listed["tests"]),
                                    f"{testName(entry)}: {entry['status']}")
            return (entries, len(listed["tests"]))
        value = yield self._cases(call, classNames, selector, failingOnly)
        return (value["tests"], value["run"])

    @inlineCallbacks
    def _cases(self, call: ToolCall, classNames: list[str] | None,
               selector: str | None, failingOnly: bool = False,
               listOnly: bool = False, frames: int = 0) -> Steps[JsonObject]:
        value = yield call.runTemplate("run_test_class", {
            "classNames": classNames, "selector": selector,
            "failingOnly": failingOnly, "listOnly": listOnly},
            frames=frames)
        missing = [f"{kind} not found: {', '.join(names)}"
                   for kind, names in (("Class", value["unknownClasses"]),
                                       ("Method", value["unknownMethods"]))
                   if names]
        if missing:
            near = dict.fromkeys(
                each for name in value["unknownClasses"] + value["unknownMethods"]
                for each in nearest(name, value["near"]))
            raise ToolError("notFound", "; ".join(missing) + (
                " (not in this session's symbol list; list_test_classes "
                "lists the test classes)") + (
                f" Nearest: {', '.join(near)}." if near else ""))
        if value["notTestCases"]:
            raise ToolError(
                "refused", f"Not a TestCase subclass: "
                f"{', '.join(value['notTestCases'])}. list_test_classes "
                f"lists the test classes.")
        # The template names an exception (and, when frames were asked
        # for, its stack) only for a test that did not pass.
        keys = (ONE_TEST_SCHEMA if frames else TEST_SCHEMA)["properties"]
        value["tests"] = [{key: entry.get(key) for key in keys}
                          for entry in value["tests"]]
        return value

    @inlineCallbacks
    def _runOne(self, call: ToolCall,
                arguments: JsonObject) -> Steps[JsonObject]:
        value = yield self._cases(call, [arguments["className"]],
                                  arguments["selector"],
                                  frames=ONE_TEST_FRAMES)
        return value["tests"][0]

    @inlineCallbacks
    def runTestMethod(self, call: ToolCall,
                      arguments: JsonObject) -> Steps[ToolResult]:
        entry = yield self._runOne(call, arguments)
        return ToolResult(withStack(f"{testName(entry)}: {outcome(entry)}",
                                    entry), entry)

    @inlineCallbacks
    def describeTestFailure(self, call: ToolCall,
                            arguments: JsonObject) -> Steps[ToolResult]:
        entry = yield self._runOne(call, arguments)
        text = (f"{testName(entry)} passed (no failure)."
                if entry["status"] == "passed" else
                f"{testName(entry)} {entry['status']}\n"
                + ("" if entry["exceptionClass"] is None else
                   f"exception: {entry['exceptionClass']}\n")
                + f"description: {entry['description']}")
        return ToolResult(withStack(text, entry), entry)

    @inlineCallbacks
    def runTestClass(self, call: ToolCall,
                     arguments: JsonObject) -> Steps[ToolResult]:
        className = arguments["className"]
        entries, run = yield self._run(call, [className])
        entries.sort(key=lambda e: (e["className"], e["selector"]))
        counts = summary(entries, run)
        return ToolResult(
            f"{className}: {summaryText(counts, entries)}",
            dict(counts, className=className, tests=entries))

    @inlineCallbacks
    def listFailingTests(self, call: ToolCall,
                         arguments: JsonObject) -> Steps[ToolResult]:
        entries, run = yield self._run(call, arguments.get("classNames"),
                                       failingOnly=True)
        entries.sort(key=lambda e: (e["className"], e["selector"]))
        counts = summary(entries, run)
        text = summaryText(counts, entries)
        if not entries:
            text = f"(no failing tests) {text}"
        return ToolResult(text, dict(counts, tests=entries))

    @inlineCallbacks
    def listTestClasses(self, call: ToolCall,
                        arguments: JsonObject) -> Steps[ToolResult]:
        names = yield call.runTemplate("list_test_classes", {})
        window = page(sorted(names), arguments, LIST_LIMIT)
        return ToolResult(
            "\n".join([window.header(), *window.items]),
            {"classNames": window.items, "page": window.structured()})

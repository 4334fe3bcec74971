"""
Tests for L{gsmcpd.testing.conformance.toolset}, on a L{Clock}: the
fixtures pace their steps on the call's own clock, and a client that cannot be
asked gets a tool error, not a hang.  (L{tests.protocol.test_surface} drives
them over HTTP.)
"""

import jsonschema
from twisted.internet.defer import fail, succeed
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface import implementer
from zope.interface.verify import verifyObject

from gsmcpd.testing.conformance import TOOLSET
from gsmcpd.testing.conformance.toolset import STEP, ConformanceToolset
from gsmcpd.tools.base import NO_SESSION, ToolCall
from gsmcpd.tools.catalog import ToolsetError, toolsetClass
from gsmcpd.tools.context import ICallContext
from gsmcpd.tools.questions import askEach
from gsmcpd.tools.templates.outcomes import ToolError
from tests.fakes import FakeGem


@implementer(ICallContext)
class RecordingContext:
    """
    A call's context that keeps what the tool sends, and answers requests
    with C{answer}.
    """

    wantsProgress = True

    def __init__(self, answer=None, clock=None):
        self.answer = answer
        self.clock = clock
        self.sent = []

    def start(self, call, *args):
        return call(*args)

    def log(self, level, data, logger=None):
        self.sent.append(("log", level, data))

    def request(self, method, params):
        self.sent.append(("request", method))
        return self.answer

    def canAsk(self, capability):
        return True

    def ask(self, questions):
        return askEach(self.request, questions)

    def closeStream(self):
        self.sent.append(("closed",))

    def reportProgress(self, progress, total=None, message=None):
        self.sent.append(("progress", progress, total))


class ConformanceToolsetTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.toolset = ConformanceToolset()
        self.tools = {t.name: t for t in self.toolset.tools()}

    def runTool(self, name, context, **arguments):
        return self.tools[name].run(ToolCall(FakeGem(), context=context),
                                    arguments)

    def test_recordingContextProvides(self):
        self.assertTrue(verifyObject(ICallContext, RecordingContext()))

    def test_everyFixtureNeedsNoGemStone(self):
        """
        Each fixture says, in its own declaration, that it needs no
        GemStone session: a 2026 call of one logs nothing in.
        """
        offered = [*self.tools.values(), *self.toolset.resources(),
                   *self.toolset.resourceTemplates()]
        self.assertEqual({each.runsOn for each in offered}, {NO_SESSION})

    def test_servedOnlyByItsPath(self):
        """
        A test fixture, not a toolset gsmcpd ships: it is named by its
        import path, as a toolset of one's own is, and by that name it is
        known (the scopes and options a deployment gives it).
        """
        self.assertIs(toolsetClass(TOOLSET), ConformanceToolset)
        self.assertEqual(ConformanceToolset.name, TOOLSET)
        self.assertRaises(ToolsetError, toolsetClass, "conformance")

    def test_schemasAreValid(self):
        for tool in self.tools.values():
            jsonschema.Draft202012Validator.check_schema(tool.inputSchema)

    def test_progressStepsOnTheClock(self):
        context = RecordingContext(clock=self.clock)
        d = self.runTool("test_tool_with_progress", context)
        self.assertEqual(context.sent, [("progress", 0, 100)])
        self.clock.advance(STEP)
        self.assertNoResult(d)
        self.clock.advance(STEP)
        self.assertEqual([s[1] for s in context.sent], [0, 50, 100])
        self.assertEqual(self.successResultOf(d).text,
                         "Progress test completed.")

    def test_loggingStepsOnTheClock(self):
        context = RecordingContext(clock=self.clock)
        d = self.runTool("test_tool_with_logging", context)
        self.clock.pump([STEP] * 3)
        self.assertEqual([s[0] for s in context.sent], ["log"] * 3)
        self.successResultOf(d)

    def test_sampling(self):
        context = RecordingContext(clock=self.clock, answer=succeed(
            {"content": {"type": "text", "text": "hi"}}))
        result = self.successResultOf(
            self.runTool("test_sampling", context, prompt="say hi"))
        self.assertEqual(result.text, "LLM response: hi")

    def test_clientThatCannotAnswerIsAToolError(self):
        context = RecordingContext(clock=self.clock,
                                   answer=fail(RuntimeError("no answer")))
        failure = self.failureResultOf(
            self.runTool("test_elicitation", context, message="who?"),
            ToolError)
        self.assertIn("elicitation/create failed", failure.value.message)

    def test_reconnectionClosesTheStreamFirst(self):
        context = RecordingContext(clock=self.clock)
        d = self.runTool("test_reconnection", context)
        self.assertEqual(context.sent, [("closed",)])
        self.clock.advance(4 * STEP)
        self.successResultOf(d)

    def test_templateResource(self):
        template, = self.toolset.resourceTemplates()
        variables = template.match("test://template/7/data")
        contents = template.read(None, "test://template/7/data", **variables)
        self.assertIn('"id": "7"', contents[0]["text"])

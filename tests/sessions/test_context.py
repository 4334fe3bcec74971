"""
Tests for L{gsmcpd.sessions.context}: a call's context, put together from
its stream, its client's log gate, its way of asking and its ending.
"""

from twisted.internet.defer import Deferred, succeed
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.sessions.context import CallContext, noLogs
from gsmcpd.sessions.outbound import PendingRequests, StreamAsker
from gsmcpd.tools.context import NULL_CONTEXT, ICallContext, ICallControl
from gsmcpd.tools.questions import NULL_ASKER, elicitation
from gsmcpd.tools.templates.outcomes import ToolError
from tests.builders import clientSession
from tests.fakes import FakeGem, RecordingSink


def wantsAllButDebug(level):
    return level != "debug"


class ContextTests(SynchronousTestCase):
    """
    What a tool asks of its request, with and without a stream.
    """

    def setUp(self):
        self.client = clientSession(FakeGem(), capabilities={
            "elicitation": {}})

    def context(self, sink):
        asker = StreamAsker(PendingRequests(Clock()), self.client, sink)
        return CallContext(asker, sink, wantsAllButDebug).endedBy(
            RunningCall(self.client.work, 1, None, Clock()))

    def test_provides(self):
        self.assertTrue(verifyObject(ICallContext, CallContext()))
        self.assertTrue(verifyObject(ICallContext,
                                     self.context(RecordingSink())))
        self.assertTrue(verifyObject(ICallControl, NULL_CONTEXT))

    def test_logPostsAMessageTheClientWants(self):
        sink = RecordingSink()
        context = self.context(sink)
        context.log("info", {"x": 1}, "gsmcp")
        context.log("debug", "too fine")
        self.assertEqual(sink.messages, [
            {"jsonrpc": "2.0", "method": "notifications/message",
             "params": {"level": "info", "data": {"x": 1},
                        "logger": "gsmcp"}}])

    def test_progressOnlyWhenAskedFor(self):
        wanting, notWanting = RecordingSink(), RecordingSink(False)
        self.context(wanting).reportProgress(1, 3, "one")
        self.context(notWanting).reportProgress(1, 3, "one")
        self.assertEqual(wanting.reports, [(1, 3, "one")])
        self.assertEqual(notWanting.reports, [])

    def test_askGoesOnTheCallsStream(self):
        sink = RecordingSink()
        context = self.context(sink)
        self.assertTrue(context.canAsk("elicitation"))
        self.assertFalse(context.canAsk("sampling"))
        context.ask({"q": elicitation("?", {})})
        self.assertEqual([m["method"] for m in sink.messages],
                         ["elicitation/create"])

    def test_withoutAStreamNothingCanBeAskedOrSent(self):
        context = self.context(None)
        self.assertFalse(context.wantsProgress)
        context.log("info", "x")
        context.closeStream()
        context.reportProgress(1)
        error = self.assertRaises(ToolError, context.asker.send,
                                  "sampling/x", {})
        self.assertEqual(error.kind, "refused")
        failure = self.failureResultOf(context.ask(
            {"q": elicitation("?", {})}), ToolError)
        self.assertIn("accepts an event stream", failure.value.message)

    def test_closeStream(self):
        sink = RecordingSink()
        self.context(sink).closeStream()
        self.assertTrue(sink.closedEarly)

    def test_endingIsTheRunningCalls(self):
        """
        Whether the call is ending, its clock and the GemStone call to
        break are its L{RunningCall}'s.
        """
        clock = Clock()
        run = RunningCall(None, 1, None, clock)
        context = CallContext().endedBy(run)
        self.assertIs(context.clock, clock)
        running = Deferred()
        self.assertIs(context.start(lambda: running), running)
        self.assertIs(run.current, running)
        self.assertEqual(self.successResultOf(context.start(succeed, 7)), 7)
        run.end("deadline")
        self.failureResultOf(context.start(Deferred), CallWithdrawn)

    def test_fromMemory(self):
        """
        A request answered from memory has nothing to end, no stream, no
        log messages and no way of asking.
        """
        context = CallContext()
        running = Deferred()
        self.assertIs(context.start(lambda: running), running)
        self.assertEqual((context.clock, context.asker,
                          context.wantsLog("emergency"), context.sink),
                         (None, NULL_ASKER, False, None))
        self.assertIs(context.wantsLog, noLogs)
        self.assertRaises(ToolError, context.ask, {})

"""
Tests for L{gsmcpd.protocol.calls}: every GemStone-backed method, over the
in-memory transport, answers JSON whatever its GemStone call comes to.
"""

import json

from twisted.internet.defer import CancelledError, Deferred, inlineCallbacks
from twisted.logger import Logger, LogLevel, globalLogPublisher

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.metrics import Metrics
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.protocol.jsonrpc import parseMessage
from gsmcpd.tools.base import Tool, ToolResult, Toolset, annotations, closedSchema
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.templates.outcomes import GemGone
from tests.fakes import SmalltalkRaised
from tests.transport.test_web import TransportTestCase, request

BREAK = GciError(6003, "a Break occurred")
DEATH = GciError(4100, "session terminated", fatal=True,
                 reason="gem on !tcp@secret-host#netldi:ldi died")


class FailingToolset(Toolset):
    """
    A tool with a bug, and one that answers when the test says.

    @ivar lateAnswer: what the C{late} tool answers.
    """

    name = "failing"
    lateAnswer = None

    def tools(self):
        return [Tool("buggy", "Buggy", "Raises an unexpected exception.",
                     closedSchema(), annotations(readOnly=True), self._buggy),
                Tool("late", "Late", "Answers when the test says.",
                     closedSchema(), annotations(readOnly=True),
                     lambda call, arguments: self.lateAnswer)]

    def _buggy(self, call, arguments):
        raise RuntimeError("a bug on line 12")


class GemStoneMethodsTestCase(TransportTestCase):
    """
    A session serving execution (tools/call), browsing (resources/read)
    and L{FailingToolset} (a bug, a late answer).
    """

    def makeHandlers(self):
        self.failing = FailingToolset()
        registry = ToolCatalog([*ToolCatalog.named(
            ["execution", "browsing"]).toolsets, self.failing])
        return Handlers(registry, ServerIdentity())

    @inlineCallbacks
    def setUp(self):
        super().setUp()
        self.handle, _ = yield self.initialize()
        self.gem = self.pool.opened[0]

    def failWith(self, error):
        """
        Make the gem's next call fail with C{error}.
        """
        self.lastFailure = error

        def failing(arguments):
            raise error

        for tag in ("execute_code", "get_class_definition"):
            self.gem.results[tag] = failing

    @inlineCallbacks
    def callEach(self, id):
        """
        Each GemStone-backed method once, with C{id}: the status and body
        of each answer.
        """
        answers = {}
        for method, params in [
                ("tools/call", {"name": "execute_code",
                                "arguments": {"code": "x"}}),
                ("resources/read", {"uri": "gemstone://class/Object/"
                                           "definition"})]:
            response, body = yield self.post(request(method, id, **params),
                                             self.handle)
            self.assertEqual(
                response.headers.getRawHeaders("content-type"),
                ["application/json"], method)
            answers[method] = (response.code, body)
            if self.sessions.work.get(self.handle) is None:
                self.handle, _ = yield self.initialize()
                self.gem = self.pool.opened[-1]
                self.failWith(self.lastFailure)
        return answers


class BrokenCallTests(GemStoneMethodsTestCase):

    @inlineCallbacks
    def test_breakAnswersAnErrorAndKeepsTheSession(self):
        self.failWith(BREAK)
        answers = yield self.callEach(3)
        status, body = answers["tools/call"]
        self.assertEqual((status, body["id"]), (200, 3))
        self.assertTrue(body["result"]["isError"])
        self.assertIn("GemStone break", body["result"]["content"][0]["text"])
        status, body = answers["resources/read"]
        self.assertEqual((status, body["id"]), (200, 3))
        self.assertEqual(body["error"]["code"], -32603)
        self.assertIn("GemStone break", body["error"]["message"])
        self.assertIsNotNone(self.sessions.work.get(self.handle))

    @inlineCallbacks
    def test_smalltalkErrorOnResourceRead(self):
        self.failWith(SmalltalkRaised(2010, "MessageNotUnderstood", "dnu"))
        _, body = yield self.post(request(
            "resources/read", 4, uri="gemstone://class/Object/definition"),
            self.handle)
        self.assertEqual(body["id"], 4)
        self.assertEqual(body["error"]["code"], -32603)
        self.assertIn("MessageNotUnderstood", body["error"]["message"])


class DeadGemTests(GemStoneMethodsTestCase):

    @inlineCallbacks
    def test_deadGemAnswersSessionGoneForEachMethod(self):
        self.failWith(DEATH)
        answers = yield self.callEach(5)
        for method, (status, body) in answers.items():
            self.assertEqual((status, body["id"]), (200, 5), method)
            self.assertEqual(body["error"]["code"], -32001, method)
            self.assertEqual(body["error"]["data"]["kind"], "sessionGone")
            self.assertNotIn("secret-host", json.dumps(body))
        self.assertEqual(len(self.pool.opened), 3)
        self.assertTrue(all(gem.loggedOut for gem in self.pool.opened[:2]))


class UnexpectedErrorTests(GemStoneMethodsTestCase):

    def setUp(self):
        self.logged = []
        globalLogPublisher.addObserver(self.logged.append)
        self.addCleanup(globalLogPublisher.removeObserver,
                        self.logged.append)
        return super().setUp()

    @inlineCallbacks
    def test_bugAnswersInternalErrorWithTheRequestsId(self):
        response, body = yield self.post(
            request("tools/call", 6, name="buggy", arguments={}), self.handle)
        self.assertEqual(response.code, 200)
        self.assertEqual(body["id"], 6)
        self.assertEqual(body["error"]["code"], -32603)
        correlation = body["error"]["data"]["correlationId"]
        self.assertNotIn("line 12", json.dumps(body))
        errors = [e for e in self.logged if e.get("correlation") ==
                  correlation]
        self.assertEqual([e["log_level"] for e in errors],
                         [LogLevel.error, LogLevel.debug])
        self.assertIn("line 12", errors[1]["traceback"])

    @inlineCallbacks
    def test_bugOnAStreamedCallEndsItsStream(self):
        """
        A call already answered as a stream gets its internal error as the
        stream's last event.
        """
        response = yield self.treq.post(
            "http://127.0.0.1/mcp",
            data=json.dumps(request("tools/call", 7, name="buggy",
                                    arguments={}, _meta={"progressToken": 1})
                            ).encode(),
            headers={"content-type": ["application/json"],
                     "accept": ["application/json, text/event-stream"],
                     "mcp-session-id": [self.handle]})
        text = (yield response.content()).decode()
        self.assertEqual(response.headers.getRawHeaders("content-type"),
                         ["text/event-stream"])
        last = json.loads([line for line in text.splitlines()
                           if line.startswith("data: {")][-1][6:])
        self.assertEqual((last["id"], last["error"]["code"]), (7, -32603))

    @inlineCallbacks
    def cancelledLateCall(self, id):
        """
        Call the C{late} tool as C{id} and cancel it: its answer, the
        L{Deferred} the tool still owes.
        """
        self.failing.lateAnswer = Deferred()
        calling = self.post(request("tools/call", id, name="late",
                                    arguments={}), self.handle)
        yield self.post({"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": id}}, self.handle)
        self.treq.flush()
        _, body = yield calling
        self.assertIsNone(body)
        return self.failing.lateAnswer

    @inlineCallbacks
    def test_bugAfterCancellationIsLogged(self):
        """
        A call whose client cancelled it is answered at once; its bug,
        surfacing later, reaches no client but is logged.
        """
        late = yield self.cancelledLateCall(8)
        late.errback(RuntimeError("a bug on line 40"))
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        [event] = [e for e in self.logged if "log_failure" in e]
        self.assertIn("after it was answered", event["log_format"])

    @inlineCallbacks
    def test_endedCallAfterCancellationIsNotLogged(self):
        for number, ended in enumerate([
                CallWithdrawn(), CancelledError(), GemGone(DEATH.number)]):
            late = yield self.cancelledLateCall(9 + number)
            late.errback(ended)
        self.assertEqual([e for e in self.logged if "log_failure" in e], [])

    @inlineCallbacks
    def test_unknownPathAnswersJson(self):
        response = yield self.treq.get("http://127.0.0.1/nowhere")
        body = yield response.json()
        self.assertEqual(response.code, 404)
        self.assertEqual(body["error"]["code"], -32600)
        self.assertIsNone(body["id"])

    @inlineCallbacks
    def test_unknownMethodAnswersJson(self):
        response = yield self.treq.put("http://127.0.0.1/mcp", data=b"{}")
        body = yield response.json()
        self.assertEqual(response.code, 405)
        self.assertEqual(body["error"]["code"], -32600)
        self.assertIn("POST", response.headers.getRawHeaders("allow")[0])


class AbandonedWaitTests(GemStoneMethodsTestCase):
    """
    Whoever stops waiting for a call's answer (a 2026 client that hangs
    up) cancels the call, as C{notifications/cancelled} does.
    """

    def test_cancellingTheAnswerEndsTheCall(self):
        answer, run, inFlight = self.lateCall()
        self.assertEqual(inFlight(), 1)
        answer.cancel()
        self.assertIsNone(self.successResultOf(answer))
        self.assertEqual(run.why, "cancelled")
        self.assertEqual(self.sessions.work.get(self.handle).calls.running, {})
        self.assertEqual(inFlight(), 0)

    def lateCall(self):
        """
        Start the C{late} tool with metrics and an audit trail watching: the
        answer, the call's L{RunningCall}, and a reader of the calls in
        flight.
        """
        self.metrics = metrics = Metrics("1", processMetrics=False)
        self.audited, self.logged = [], []
        self.watch(AuditLog(self.audited.append, "DataCurator"), metrics)
        self.app.legacy.calls.work.log = Logger(observer=self.logged.append)
        session = self.sessions.work.get(self.handle)
        self.failing.lateAnswer = Deferred()
        answer = self.app.legacy.answer(
            self.sessions.clients.get(self.handle), parseMessage(json.dumps(
                request("tools/call", 5, name="late",
                        arguments={})).encode()))
        [run] = session.calls.running.values()
        return answer, run, lambda: metrics.registry.get_sample_value(
            "gsmcpd_calls_in_flight")

    def test_hangUpAfterTheDeadlineStillCounted(self):
        """
        A client that hangs up on a call its deadline is already ending is
        told of the deadline at once; the call is counted and audited,
        once it is over, as what it came to (here it answered in full: the
        break came too late), not as cancelled by the client.
        """
        self.requestTimeout = 30
        answer, run, inFlight = self.lateCall()
        self.clock.advance(31)
        self.assertEqual(run.why, "deadline")
        answer.cancel()
        response = self.successResultOf(answer)
        self.assertEqual(response["error"]["data"]["kind"], "deadline")
        self.assertEqual(inFlight(), 1)
        self.failing.lateAnswer.callback(ToolResult("late", {}))
        self.assertEqual(inFlight(), 0)
        [event] = [e for e in self.audited if e.get("event") == "toolCall"]
        self.assertEqual(event["outcome"], "ok")
        self.assertFalse([e for e in self.logged
                          if "client cancelled" in e.get("log_format", "")])

    def test_bugCountedAsAnInternalError(self):
        """
        A call that fails with a bug is counted and audited as the internal
        error its client is answered, not as cancelled.
        """
        answer, run, inFlight = self.lateCall()
        self.failing.lateAnswer.errback(RuntimeError("a bug on line 40"))
        self.failureResultOf(answer, RuntimeError)
        self.assertEqual(inFlight(), 0)
        self.assertEqual(self.metrics.registry.get_sample_value(
            "gsmcpd_tool_calls_total", {"tool": "late", "outcome": "error"}),
            1)
        [event] = [e for e in self.audited if e.get("event") == "toolCall"]
        self.assertEqual(event["outcome"], "protocolError:-32603")

    def test_hangUpWhileADeadGemsSessionClosesStillCounted(self):
        """
        A client that hangs up while the session of the gem its call found
        dead is being closed leaves the call counted and audited as what
        ended it: its gem's death.
        """
        answer, run, inFlight = self.lateCall()
        self.gem.logout = Deferred
        self.failing.lateAnswer.errback(GemGone(DEATH.number))
        self.assertNoResult(answer)
        answer.cancel()
        self.failureResultOf(answer, CancelledError)
        self.assertEqual(inFlight(), 0)
        [event] = [e for e in self.audited if e.get("event") == "toolCall"]
        self.assertEqual(event["outcome"], "protocolError:-32001")


class DuplicateIdTests(GemStoneMethodsTestCase):
    """
    JSON-RPC ids are unique among a session's requests in flight: a second
    request with a running one's id is refused, and leaves it untouched.
    """

    @inlineCallbacks
    def test_secondRequestWithARunningIdRefused(self):
        """
        A call whose id is already in flight on its session is refused
        (its cancellation, answer and record would be mistaken for the
        running one's), on a record of its own.
        """
        events = []
        self.watch(AuditLog(events.append, "DataCurator"))
        self.failing.lateAnswer = Deferred()
        first = self.post(request("tools/call", 5, name="late",
                                  arguments={}), self.handle)
        session = self.sessions.work.get(self.handle)
        [run] = session.calls.running.values()
        _, body = yield self.post(request("tools/call", 5, name="late",
                                          arguments={}), self.handle)
        self.assertEqual((body["id"], body["error"]["code"]), (5, -32600))
        self.assertIn("already in flight", body["error"]["message"])
        self.assertEqual(session.calls.running, {5: run})
        self.assertEqual([(e["event"], e["tool"], e.get("outcome"))
                          for e in events], [
            ("callStarted", "late", None), ("callStarted", "late", None),
            ("toolCall", "late", "protocolError:-32600")])
        self.failing.lateAnswer.callback(ToolResult("late", {}))
        self.treq.flush()
        _, answer = yield first
        self.assertEqual(answer["result"]["content"][0]["text"], "late")
        self.assertEqual(session.calls.running, {})

"""
L{McpResource}: C{POST /mcp} handed straight to the app's route, answered
as Klein's routing answers it, whole and with its length.
"""

import json

from treq.testing import StubTreq
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.error import ConnectionDone
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.test.requesthelper import DummyRequest

from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.transport.http import MAX_BODY_BYTES
from gsmcpd.transport.resource import McpResource
from tests.transport.test_web import JSON, TransportTestCase, request


class SameAnswersTests(TransportTestCase):
    """
    Every kind of answer to a C{POST} is the one Klein's route gives.
    """

    @inlineCallbacks
    def answers(self, resource, body, headers):
        response = yield StubTreq(resource).post(
            "http://127.0.0.1/mcp", data=body, headers={**JSON, **headers})
        content = yield response.content()
        document = json.loads(content) if content else None
        error = (document or {}).get("error") or {}
        # A bug's answer names a correlation id of its own each time.
        if "correlationId" in (error.get("data") or {}):
            error["data"]["correlationId"] = error["message"] = "..."
        # An empty answer needs no type (Klein's gets the default one).
        contentType = response.headers.getRawHeaders("content-type") \
            if content else None
        return response.code, contentType, document

    @inlineCallbacks
    def assertSameAnswers(self, body, headers=None):
        headers = headers or {}
        direct = yield self.answers(self.app.resource(), body, headers)
        routed = yield self.answers(self.app.app.resource(), body, headers)
        self.assertEqual(direct, routed)
        return direct

    @inlineCallbacks
    def test_refusals(self):
        handle, _ = yield self.initialize()
        for body, headers in [
                (b"{nope", {}), (b"[]", {}), (b" " * (MAX_BODY_BYTES + 1), {}),
                (json.dumps(request("ping")).encode(), {}),
                (json.dumps(request("ping")).encode(),
                 {"mcp-session-id": ["0" * 32]}),
                (json.dumps(request("ping")).encode(),
                 {"mcp-session-id": [handle],
                  "mcp-protocol-version": ["1999-01-01"]}),
                (json.dumps(request("initialize")).encode(),
                 {"origin": ["http://evil.example"]})]:
            status, _, document = yield self.assertSameAnswers(
                body, headers)
            self.assertGreaterEqual(status, 400, body[:20])
            self.assertIn("error", document)

    @inlineCallbacks
    def test_answersOnASession(self):
        handle, _ = yield self.initialize()
        session = {"mcp-session-id": [handle]}
        for message in [
                request("ping", 9), request("nonsense"),
                request("tools/call", 3, name="execute_code",
                        arguments={"code": "3 + 4"}),
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": "srv-1", "result": {}}]:
            yield self.assertSameAnswers(json.dumps(message).encode(),
                                         session)

    @inlineCallbacks
    def test_bug(self):
        class Buggy(Handlers):
            def ping(self, request):
                return 1 / 0

        self.serve(Buggy(self.handlers.tools, ServerIdentity()))
        handle, _ = yield self.initialize()
        status, _, document = yield self.assertSameAnswers(
            json.dumps(request("ping", 4)).encode(),
            {"mcp-session-id": [handle]})
        self.assertEqual((status, document["id"]), (200, 4))
        self.assertEqual(document["error"]["code"], -32603)

    @inlineCallbacks
    def test_wholeWithItsLength(self):
        """
        An answer goes out in one piece with its C{Content-Length}, not
        chunked: an empty C{202} too.
        """
        handle, _ = yield self.initialize()
        for message in [request("ping", 9),
                        {"jsonrpc": "2.0", "method": "notifications/x"}]:
            response = yield self.treq.post(
                "http://127.0.0.1/mcp", data=json.dumps(message).encode(),
                headers={**JSON, "mcp-session-id": [handle]})
            content = yield response.content()
            # Twisted's client reads the framing headers into its length.
            self.assertEqual(response.length, len(content))


class _App:
    """
    The parts of an L{gsmcpd.transport.http.McpApp} L{McpResource} uses:
    its route answers with C{self.answer}.
    """

    def __init__(self, answer):
        self.answer = answer
        self.failures = []
        self.app = self

    def resource(self):
        return "Klein's resource"

    def post(self, request):
        return self.answer

    def failed(self, request, failure):
        self.failures.append(failure)
        return b"failed"


def posted():
    request = DummyRequest([b"mcp"])
    request.method, request.path = b"POST", b"/mcp"
    request.startedWriting = False
    return request


class DirectTests(SynchronousTestCase):
    """
    What Klein does around a route, L{McpResource} does too.
    """

    def test_onlyPostToMcp(self):
        app = _App(b"")
        routed = []
        resource = McpResource(app)
        resource._routed = type("Routed", (), {
            "render": lambda self, request: routed.append(request)})()
        for method, path in [(b"GET", b"/mcp"), (b"POST", b"/mcp/"),
                             (b"DELETE", b"/mcp"), (b"POST", b"/healthz")]:
            request = posted()
            request.method, request.path = method, path
            resource.render(request)
        self.assertEqual(len(routed), 4)

    def test_failureAnsweredByTheAppsHandler(self):
        app = _App(Deferred())
        request = posted()
        McpResource(app).render(request)
        app.answer.errback(ZeroDivisionError())
        self.assertEqual(len(app.failures), 1)
        self.assertEqual((request.written, request.finished), ([b"failed"], 1))

    def test_hangingUpCancels(self):
        """
        A client that hangs up cancels the pending answer; nothing is
        written or logged.
        """
        app = _App(Deferred())
        request = posted()
        McpResource(app).render(request)
        request.processingFailed(Failure(ConnectionDone()))
        self.assertTrue(app.answer.called)
        self.assertEqual((request.written, request.finished, app.failures),
                         ([], 0, []))

    def test_bugAfterHangingUpLogged(self):
        app = _App(Deferred(lambda d: d.errback(ZeroDivisionError())))
        request = posted()
        McpResource(app).render(request)
        request.processingFailed(Failure(ConnectionDone()))
        self.assertEqual(len(self.flushLoggedErrors(ZeroDivisionError)), 1)
        self.assertEqual((request.written, app.failures), ([], []))

    def test_routeThatFinishedItsResponse(self):
        """
        A route that ended the response itself (an event stream) is not
        answered again.
        """
        request = posted()
        app = _App(Deferred())
        McpResource(app).render(request)
        request.finish()
        app.answer.callback(None)
        self.assertEqual((request.written, request.finished), ([], 1))

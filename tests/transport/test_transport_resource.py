"""
L{AnsweringResource}: each verb its C{render_X}, every answer whole with
its length, every failure through the one error entry; and the C{/mcp}
app built on it.
"""

import json

from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.error import ConnectionDone
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.test.requesthelper import DummyRequest

from gsmcpd.transport.gates import Refusal
from gsmcpd.transport.resource import AnsweringResource
from tests.transport.test_web import JSON, TransportTestCase, request


class _Answering(AnsweringResource):
    """
    C{POST /mcp} answers with C{self.answer}; failures are collected.
    """

    path = b"/mcp"
    allowed = b"POST"
    unrouted = "only POST /mcp"

    def __init__(self, answer):
        super().__init__()
        self.answer = answer
        self.failures = []

    def render_POST(self, request):
        return self.answer

    def failed(self, request, failure):
        self.failures.append(failure)
        return b"failed"


def posted(method=b"POST", path=b"/mcp"):
    request = DummyRequest([b"mcp"])
    request.method, request.path = method, path
    request.startedWriting = False
    return request


class AnsweringTests(SynchronousTestCase):
    """
    What a route's answer becomes.
    """

    def test_unknownPathAndVerbToTheErrorEntry(self):
        """
        An unknown path is a C{404} L{Refusal}, an unknown verb a C{405}
        with C{Allow}; both answered by the one error entry.  Repeated
        slashes are one, and percent-escapes are decoded, as Twisted decodes
        a path's segments.
        """
        resource = _Answering(b"posted")
        for method, path, status in [(b"POST", b"/mcp/", 404),
                                     (b"POST", b"/healthz", 404),
                                     (b"GET", b"/mcp", 405),
                                     (b"DELETE", b"//mcp", 405)]:
            request = posted(method, path)
            resource.render(request)
            refusal = resource.failures.pop().value
            self.assertIsInstance(refusal, Refusal)
            self.assertEqual(refusal.status, status, (method, path))
            self.assertEqual(request.written, [b"failed"])
        for path in (b"//mcp", b"/%6Dcp"):
            request = posted(b"POST", path)
            resource.render(request)
            self.assertEqual((request.written, resource.failures),
                             ([b"posted"], []), path)
        self.assertEqual(request.responseHeaders.getRawHeaders(
            b"content-length"), [b"6"])

    def test_nonUtf8Path(self):
        """
        A path whose percent-decoded bytes are not UTF-8 is answered C{400}
        with Klein's text, before any route or verb is looked at, and
        without the error entry.
        """
        resource = _Answering(b"posted")
        for method, path in [(b"POST", b"/%FF"), (b"PUT", b"/mcp%C3"),
                             (b"GET", b"/m\xffcp")]:
            request = posted(method, path)
            resource.render(request)
            self.assertEqual(
                (request.responseCode, request.written, resource.failures),
                (400, [b"Non-UTF-8 encoding in URL."], []), path)

    def test_failureAnsweredByTheErrorEntry(self):
        resource = _Answering(Deferred())
        request = posted()
        resource.render(request)
        resource.answer.errback(ZeroDivisionError())
        self.assertEqual(len(resource.failures), 1)
        self.assertEqual((request.written, request.finished), ([b"failed"], 1))

    def test_hangingUpCancels(self):
        """
        A client that hangs up cancels the pending answer; nothing is
        written or logged.
        """
        resource = _Answering(Deferred())
        request = posted()
        resource.render(request)
        request.processingFailed(Failure(ConnectionDone()))
        self.assertTrue(resource.answer.called)
        self.assertEqual(
            (request.written, request.finished, resource.failures),
            ([], 0, []))

    def test_bugAfterHangingUpLogged(self):
        resource = _Answering(
            Deferred(lambda d: d.errback(ZeroDivisionError())))
        request = posted()
        resource.render(request)
        request.processingFailed(Failure(ConnectionDone()))
        self.assertEqual(len(self.flushLoggedErrors(ZeroDivisionError)), 1)
        self.assertEqual((request.written, resource.failures), ([], []))

    def test_routeThatFinishedItsResponse(self):
        """
        A route that ended the response itself (an event stream) is not
        answered again.
        """
        resource = _Answering(Deferred())
        request = posted()
        resource.render(request)
        request.finish()
        resource.answer.callback(None)
        self.assertEqual((request.written, request.finished), ([], 1))


class WholeAnswersTests(TransportTestCase):
    """
    The C{/mcp} app's answers go out in one piece with their
    C{Content-Length}, not chunked.
    """

    @inlineCallbacks
    def assertWhole(self, method, body=None, headers=None, path="/mcp"):
        response = yield self.treq.request(
            method, "http://127.0.0.1" + path, data=body,
            headers={**JSON, **(headers or {})})
        content = yield response.content()
        # Twisted's client reads the framing headers into its length.
        self.assertEqual(response.length, len(content), method)
        return response, content

    @inlineCallbacks
    def test_wholeWithItsLength(self):
        """
        An answer to a C{POST}, an empty C{202} too, a C{DELETE}'s, and a
        refusal.
        """
        handle, _ = yield self.initialize()
        session = {"mcp-session-id": [handle]}
        for message in [request("ping", 9),
                        {"jsonrpc": "2.0", "method": "notifications/x"}]:
            yield self.assertWhole("POST", json.dumps(message).encode(),
                                   session)
        yield self.assertWhole("PUT")
        yield self.assertWhole("GET", path="/elsewhere")
        response, content = yield self.assertWhole("DELETE",
                                                   headers=session)
        self.assertEqual((response.code, content), (200, b"{}"))

    @inlineCallbacks
    def test_unrouted(self):
        """
        An unknown path or verb is answered by the app's one error handler,
        as JSON.
        """
        response, content = yield self.assertWhole("PUT")
        self.assertEqual(response.code, 405)
        self.assertEqual(response.headers.getRawHeaders("allow"),
                         ["DELETE, GET, HEAD, POST"])
        self.assertEqual(json.loads(content), {
            "jsonrpc": "2.0", "id": None, "error": {
                "code": -32600, "message": "Method Not Allowed: this server "
                "answers MCP on /mcp (POST, GET, DELETE)"}})
        response, content = yield self.assertWhole("POST", path="/mcp/x")
        self.assertEqual(response.code, 404)
        self.assertEqual(json.loads(content)["error"]["message"],
                         "Not Found: this server answers MCP on /mcp (POST, "
                         "GET, DELETE)")

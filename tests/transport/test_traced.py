"""
Tests for L{gsmcpd.transport.traced}: the trace of sessions with a bearer
token from the test identity provider, in both eras, holds every message
and answer and no token.
"""

import base64
import json

from treq.testing import StubTreq
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.test.requesthelper import DummyRequest

from gsmcpd.observe.trace import MessageTrace, RotatingFile
from gsmcpd.transport.bearer import BearerResource
from gsmcpd.transport.traced import TracedResource, bearerOf
from tests.daemon.test_security import _Authenticated
from tests.transport.test_modern import ModernTestCase, modern
from tests.transport.test_web import TransportTestCase, request


class BearerOfTests(SynchronousTestCase):

    def test_bearer(self):
        def of(value):
            asked = DummyRequest([b""])
            if value is not None:
                asked.requestHeaders.setRawHeaders(b"authorization", [value])
            return bearerOf(asked)
        self.assertEqual(of(b"Bearer abc.def"), "abc.def")
        self.assertEqual(of(b"bearer  abc "), "abc")
        self.assertIsNone(of(b"Basic abc"))
        self.assertIsNone(of(b"Bearer "))
        self.assertIsNone(of(None))


class _Traced(_Authenticated):

    def setUp(self):
        super().setUp()
        self.path = self.mktemp()
        self.trace = MessageTrace(RotatingFile(self.path, 10**6, 1),
                                  self.clock, threaded=False)
        self.treq = StubTreq(TracedResource(
            BearerResource(self.app, self.gate), self.trace))

    def traced(self):
        self.trace.drain()
        with open(self.path, encoding="utf-8") as f:
            text = f.read()
        self.assertNotIn(self.token, text)
        for part in self.token.split("."):
            self.assertNotIn(part, text)
        return [json.loads(line) for line in text.splitlines()]


class Traced2025Tests(_Traced, TransportTestCase):

    @inlineCallbacks
    def test_sessionWithABearerToken(self):
        """
        Every message and answer of a session is traced, named by its
        session's prefix, and the token is nowhere.
        """
        handle, _ = yield self.initialize()
        yield self.call(handle, "execute_code", {"code": "3 + 4"})
        lines = self.traced()
        self.assertEqual(
            [(line["direction"], line["method"], line["id"])
             for line in lines],
            [("in", "initialize", 1), ("out", None, 1),
             ("in", "tools/call", 2), ("out", None, 2)])
        self.assertEqual(lines[0]["session"], None)
        self.assertEqual({line["session"] for line in lines[1:]},
                         {handle[:8] + "…"})
        self.assertIn("3 + 4", lines[2]["body"])

    @inlineCallbacks
    def test_refusedRequestTraced(self):
        """
        A request the bearer gate refuses is traced, its token too not.
        """
        self.token = self.provider.token(sub="Alice", scope="write",
                                         aud="https://elsewhere/mcp")
        response, _ = yield self.post(request("ping"))
        self.assertEqual(response.code, 401)
        lines = self.traced()
        self.assertEqual([line["direction"] for line in lines],
                         ["in", "out"])

    @inlineCallbacks
    def test_tokenInArgumentsStruck(self):
        handle, _ = yield self.initialize()
        yield self.call(handle, "execute_code",
                        {"code": f"'{self.token}' size"})
        self.assertIn("[redacted]", self.traced()[2]["body"])


    @inlineCallbacks
    def test_malformedBodyRedacted(self):
        """
        A body a trailing comma keeps from parsing, refused as such, is
        traced with its password struck.
        """
        response, _ = yield self.post(
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
            b'{"name":"status","arguments":{"password":"pw-Sw0rdf1sh",}}}')
        self.assertEqual(response.code, 400)
        lines = self.traced()
        self.assertEqual([line["direction"] for line in lines],
                         ["in", "out"])
        self.assertNotIn("pw-Sw0rdf1sh", json.dumps(lines))


class Traced2026Tests(_Traced, ModernTestCase):

    @inlineCallbacks
    def test_sessionWithABearerToken(self):
        """
        A handle's session: its handle is cut to the prefix in the body and
        the line; the token is nowhere.
        """
        handle = yield self.openSession()
        yield self.tool("status", {"session": handle},
                        mcp_param_session=handle)
        lines = self.traced()
        self.assertEqual([(line["direction"], line["method"])
                          for line in lines],
                         [("in", "tools/call"), ("out", None),
                          ("in", "tools/call"), ("out", None)])
        self.assertNotIn(handle, json.dumps(lines))
        self.assertEqual(lines[2]["session"], handle[:8] + "…")

    @inlineCallbacks
    def test_wrappedHandleHeader(self):
        """
        A handle sent in C{Mcp-Param-Session} wrapped in base64 (the form
        a header value may take) is cut in the line and struck from the
        bodies, in either form.
        """
        handle = yield self.openSession()
        wrapped = base64.b64encode(handle.encode()).decode()
        yield self.tool("status", {"session": handle},
                        mcp_param_session=f"=?base64?{wrapped}?=")
        lines = self.traced()
        self.assertEqual(lines[2]["session"], handle[:8] + "…")
        text = json.dumps(lines)
        self.assertNotIn(handle, text)
        self.assertNotIn(wrapped.rstrip("="), text)

    @inlineCallbacks
    def test_emptyArrayParamsTraced(self):
        response, _ = yield self.send(modern("server/discover"))
        self.assertEqual(response.code, 200)
        self.assertEqual([line["method"] for line in self.traced()],
                         ["server/discover", None])

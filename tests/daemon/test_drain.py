"""
Tests for L{gsmcpd.daemon.drain}: from the stop, no new session opens in
either era, the sessions held are served for the grace, on a L{Clock}.
"""

import json

from treq.testing import StubTreq
from twisted.internet.defer import inlineCallbacks
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.admin import Health
from gsmcpd.daemon.drain import Drain
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.tools.catalog import ToolCatalog
from tests.fakes import FakePool
from tests.sessions.test_lifetime import events
from tests.transport.test_web import Collector, mcpApp

JSON = {"content-type": ["application/json"],
        "accept": ["application/json, text/event-stream"]}
MODERN = "2026-07-28"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": MODERN,
               "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/clientInfo": {"name": "t",
                                                      "version": "0"}}
GRACE = 3.0


class DrainTests(TestCase):

    def setUp(self):
        self.clock = Clock()
        self.pool = FakePool(10)
        self.sessions = SessionRegistry(self.pool, self.clock)
        self.health = Health(lambda: len(self.sessions.work))
        self.health.serving = True
        self.drain = Drain(self.health, self.pool.refuseNew, GRACE,
                           self.clock, self.sessions.clients.live)
        app = mcpApp(self.sessions, Handlers(
            ToolCatalog.named(("execution", "session")), ServerIdentity()),
            self.clock)
        self.treq = StubTreq(app)

    @inlineCallbacks
    def post(self, message, **headers):
        allHeaders = dict(JSON, **{k: [v] for k, v in headers.items()})
        response = yield self.treq.post(
            "http://127.0.0.1/mcp", data=json.dumps(message).encode(),
            headers=allHeaders)
        body = yield response.content()
        return response, json.loads(body)

    def initialize(self):
        return self.post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                          "params": {"protocolVersion": "2025-11-25",
                                     "capabilities": {}, "clientInfo": {
                                         "name": "t", "version": "0"}}})

    def modern(self, name, arguments, id=2, handle=None):
        headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call",
                   "mcp-name": name}
        if handle is not None:
            headers["mcp-param-session"] = handle
        return self.post(
            {"jsonrpc": "2.0", "id": id, "method": "tools/call",
             "params": {"name": name, "arguments": arguments,
                        "_meta": MODERN_META}}, **headers)

    def assertStopping(self, body):
        self.assertEqual(body["error"]["code"], -32001, body)
        self.assertEqual(body["error"]["data"], {"kind": "serverStopping"})
        self.assertIn("this server is stopping", body["error"]["message"])

    @inlineCallbacks
    def test_initializeRefusedFromTheStop(self):
        """
        A 2025 initialize after the stop is refused serverStopping, with no
        login and no session id, while a session opened before still
        answers its calls for the grace.
        """
        response, _ = yield self.initialize()
        handle = response.headers.getRawHeaders("mcp-session-id")[0]
        waiting = self.drain.begin()
        self.clock.advance(0.5)
        response, body = yield self.initialize()
        self.assertStopping(body)
        self.assertIsNone(response.headers.getRawHeaders("mcp-session-id"))
        self.assertEqual(len(self.pool.opened), 1)
        _, body = yield self.post({"jsonrpc": "2.0", "id": 3,
                                   "method": "tools/call", "params": {
                                       "name": "status", "arguments": {}}},
                                  **{"mcp-session-id": handle})
        self.assertIn("result", body)
        self.assertNoResult(waiting)
        self.clock.advance(GRACE)
        self.successResultOf(waiting)

    @inlineCallbacks
    def test_openSessionRefusedFromTheStop(self):
        """
        A 2026-07-28 open_session after the stop is a JSON-RPC error of
        the same kind; a handle opened before still serves.
        """
        _, body = yield self.modern("open_session", {})
        self.assertIn("result", body, body)
        handle = body["result"]["structuredContent"]["session"]
        self.drain.begin()
        _, body = yield self.modern("open_session", {}, id=3)
        self.assertStopping(body)
        _, body = yield self.modern("status", {"session": handle}, id=4,
                                    handle=handle)
        self.assertFalse(body["result"].get("isError"), body)
        self.assertEqual(len(self.pool.opened), 1)

    @inlineCallbacks
    def test_clientsWarned(self):
        """
        A client listening on its stream is told its session ends with the
        grace, and that its uncommitted changes go with it.
        """
        response, _ = yield self.initialize()
        handle = response.headers.getRawHeaders("mcp-session-id")[0]
        stream = yield self.treq.get(
            "http://127.0.0.1/mcp", unbuffered=True,
            headers={"mcp-session-id": [handle],
                     "accept": ["text/event-stream"]})
        received = []
        stream.deliverBody(Collector(received))
        self.drain.begin()
        self.treq.flush()
        [warning] = [e for e in events(received)
                     if e.get("method") == "notifications/message"]
        self.assertEqual(warning["params"]["level"], "warning")
        self.assertIn("ends in 3s and its uncommitted changes are lost",
                      warning["params"]["data"])

    def test_healthTellsTheBalancer(self):
        self.drain.begin()
        self.assertEqual(self.health.describe()[0], 404)

    def test_noGraceNoWait(self):
        """
        Without a grace, or when the daemon never served, the stop goes on
        at once (and still refuses new sessions).
        """
        self.assertIsNone(Drain(self.health, self.pool.refuseNew, 0,
                                self.clock).begin())
        self.assertTrue(self.pool.stopping)
        self.health.serving = False
        self.assertIsNone(self.drain.begin())

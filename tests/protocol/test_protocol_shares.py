"""
Tests for L{gsmcpd.protocol.shares}: a caller over its fair share told so
in either era, and, in memory over the transport with authentication, one
identity that takes every share it can leaving another its own.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.metrics import REFUSALS
from gsmcpd.protocol import kinds
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, SERVER_ERROR
from gsmcpd.protocol.shares import CLOSE_ONE, WAIT_FOR_CALLS, shareRefusal
from gsmcpd.sessions.shares import (
    CALLS_PER_IDENTITY,
    CALLS_PER_SESSION,
    SESSIONS_PER_IDENTITY,
    FairShares,
    ShareExhausted,
)
from tests.daemon.test_security import _Authenticated
from tests.transport.test_modern import META, TASKS, ModernTestCase, modern
from tests.transport.test_web import request

TASK_META = dict(META, **{"io.modelcontextprotocol/clientCapabilities":
                          TASKS})
ATTEMPTS = 100
"""Task attempts of the flood, in memory (the bench makes 3,000 over a
socket and measures what they cost)."""


class RefusalTests(SynchronousTestCase):

    def test_calls(self):
        """
        A call over a share is invalid params, naming the cap by its
        option and what to do; its kind is the refusal the metrics count.
        """
        for cap, start in ((CALLS_PER_SESSION, "This GemStone session "
                            "already has 4 calls in flight"),
                           (CALLS_PER_IDENTITY, "You already have 4 calls "
                            "in flight")):
            error = shareRefusal(ShareExhausted(cap, 4))
            self.assertEqual(error.code, INVALID_PARAMS)
            self.assertTrue(error.message.startswith(start), error.message)
            self.assertIn(f"(--{cap} 4)", error.message)
            self.assertTrue(error.message.endswith(WAIT_FOR_CALLS))
            self.assertEqual(error.data, {"kind": "shareCap", "cap": cap,
                                          "limit": 4})
        self.assertIn(kinds.SHARE_CAP, REFUSALS)

    def test_sessions(self):
        error = shareRefusal(ShareExhausted(SESSIONS_PER_IDENTITY, 2),
                             CLOSE_ONE)
        self.assertEqual(error.code, SERVER_ERROR)
        self.assertEqual(
            error.message, "You already hold 2 GemStone sessions, your "
            "share of this server's (the rest are kept for others) "
            "(--sessions-per-identity 2). " + CLOSE_ONE)


class FairShareTransportTests(_Authenticated, ModernTestCase):
    """
    Alice takes every share she can: two sessions, and a flood of tasks on
    them; Bob still opens a session and gets 7 for 3 + 4, in both eras.
    """

    maxSessions = 4

    def setUp(self):
        super().setUp()
        self.sessions.shares.caps = FairShares(
            callsPerSession=2, callsPerIdentity=3, sessionsPerIdentity=2)

    def refusal(self, response, body, code, cap):
        self.assertEqual(response.code, {INVALID_PARAMS: 400}.get(code, 200))
        self.assertEqual((body["error"]["code"], body["error"]["data"]),
                         (code, {"kind": "shareCap", "cap": cap,
                                 "limit": {CALLS_PER_SESSION: 2,
                                           CALLS_PER_IDENTITY: 3,
                                           SESSIONS_PER_IDENTITY: 2}[cap]}))
        return body["error"]["message"]

    @inlineCallbacks
    def flood(self, handle, attempts):
        """
        Send C{attempts} execute_code calls as tasks on C{handle}: the
        answers, by kind.
        """
        seen = {}
        for n in range(attempts):
            response, body = yield self.send(modern(
                "tools/call", 100 + n, TASK_META, name="execute_code",
                arguments={"code": "3 + 4", "session": handle}),
                mcp_param_session=handle)
            kind = body.get("result", {}).get("resultType") or \
                body["error"]["data"]["cap"]
            seen[kind] = seen.get(kind, 0) + 1
            last = response, body
        return seen, last

    @inlineCallbacks
    def test_oneIdentityTakesItsShareOnly(self):
        first = yield self.openSession()
        second = yield self.openSession()
        response, body = yield self.send(modern(
            "tools/call", 8, name="open_session", arguments={}))
        self.assertIn("close_session", self.refusal(
            response, body, SERVER_ERROR, SESSIONS_PER_IDENTITY))
        # A read without a handle would hold a third session.
        response, body = yield self.send(modern(
            "tools/call", 9, name="status", arguments={}))
        self.refusal(response, body, SERVER_ERROR, SESSIONS_PER_IDENTITY)
        _, body = yield self.post(request(
            "initialize", protocolVersion="2025-11-25", capabilities={},
            clientInfo={"name": "alice", "version": "0"}))
        self.assertIn("DELETE", body["error"]["message"])
        for gem in self.pool.opened:
            gem.held = True
        seen, (response, body) = yield self.flood(first, ATTEMPTS)
        self.assertEqual(seen, {"task": 2, CALLS_PER_SESSION: ATTEMPTS - 2})
        self.assertIn("tasks/get", self.refusal(
            response, body, INVALID_PARAMS, CALLS_PER_SESSION))
        seen, (response, body) = yield self.flood(second, ATTEMPTS)
        self.assertEqual(seen, {"task": 1, CALLS_PER_IDENTITY: ATTEMPTS - 1})
        # Refused before anything was queued.
        self.assertEqual([len(gem.pending) for gem in self.pool.opened],
                         [2, 1])
        self.assertEqual(len(self.app.modern.era.tasks), 3)

        self.token = self.provider.token(sub="Bob", scope="write")
        handle = yield self.openSession()
        result = yield self.tool("execute_code",
                                 {"code": "3 + 4", "session": handle},
                                 mcp_param_session=handle)
        self.assertEqual(result["content"][0]["text"], "7")
        result = yield self.tool("execute_code", {"code": "3 + 4"})
        self.assertEqual(result["content"][0]["text"], "7")
        legacy, _ = yield self.initialize()
        body = yield self.call(legacy, "execute_code", {"code": "3 + 4"})
        self.assertEqual(body["result"]["content"][0]["text"], "7")

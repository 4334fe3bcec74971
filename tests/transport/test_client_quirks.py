"""
What clients peers meet send, in memory, in both eras: C{"params": []} for
a method that takes nothing, C{tools/list} before
C{notifications/initialized}, and a session that never sends it.
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.protocol.jsonrpc import INVALID_PARAMS
from tests.transport.test_modern import META, ModernTestCase
from tests.transport.test_web import request


def bare(method, id=1):
    """A request whose params are an empty array."""
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": []}


class EmptyArrayParamsTests(ModernTestCase):

    @inlineCallbacks
    def test_2025(self):
        """
        C{[]} is taken as C{{}}: C{ping} and C{tools/list} answer as with
        no params, where they answered -32602 before.
        """
        handle, _ = yield self.initialize()
        for method in ("ping", "tools/list"):
            response, body = yield self.post(bare(method), handle)
            self.assertEqual(response.code, 200)
            self.assertIn("result", body, body)
        self.assertIn("tools", body["result"])

    @inlineCallbacks
    def test_2025Initialize(self):
        """
        An C{initialize} with C{[]} opens a session on our latest revision.
        """
        response, body = yield self.post(bare("initialize"))
        self.assertEqual(response.code, 200, body)
        self.assertEqual(body["result"]["protocolVersion"], "2025-11-25")

    @inlineCallbacks
    def test_2026(self):
        """
        In the 2026 era C{[]} is read as C{{}} too, so the request is
        refused as one without C{_meta} is, naming what it lacks, not for
        the shape of its params.
        """
        response, body = yield self.post(bare("server/discover"), headers={
            "mcp-protocol-version": ["2026-07-28"],
            "mcp-method": ["server/discover"]})
        self.assertEqual((response.code, body["error"]["code"]),
                         (400, INVALID_PARAMS))
        self.assertIn("_meta", body["error"]["message"])
        self.assertNotIn("must be an object", body["error"]["message"])

    @inlineCallbacks
    def test_2026ToolsListWithMeta(self):
        """
        The same request with its C{_meta} is answered.
        """
        response, body = yield self.send(request("tools/list", _meta=META))
        self.assertEqual(response.code, 200, body)


class HandshakeOrderTests(ModernTestCase):

    @inlineCallbacks
    def test_toolsListBeforeInitialized(self):
        """
        A client may list tools before it sends
        C{notifications/initialized}, or never send it, and call them.
        """
        handle, _ = yield self.initialize()
        response, body = yield self.post(request("tools/list"), handle)
        self.assertEqual(response.code, 200)
        self.assertTrue(body["result"]["tools"])
        body = yield self.call(handle, "status")
        self.assertFalse(body["result"].get("isError"), body)
        response, _ = yield self.post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            handle)
        self.assertEqual(response.code, 202)

    @inlineCallbacks
    def test_closedWithoutInitialized(self):
        """
        A session that never sent C{notifications/initialized} is ended by
        C{DELETE} as any other, its GemStone session logged out.
        """
        handle, _ = yield self.initialize()
        response = yield self.treq.delete(
            "http://127.0.0.1/mcp", headers={"mcp-session-id": [handle]})
        self.assertEqual(response.code, 200)
        self.assertEqual(len(self.sessions.work), 0)
        self.assertTrue(self.pool.opened[0].loggedOut)

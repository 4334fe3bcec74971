"""
Both protocol eras over a real socket, driven by the official Python SDK
client as an agent would use it (tests/clients/python_sdk_flow.py).
"""

import http.client
import json
import os
import sys
import time

from tests.daemon.test_serve_sockets import samples
from tests.realdaemon import CLIENTS, DaemonTestCase, get

FLOW = os.path.join(CLIENTS, "python_sdk_flow.py")
CONFIRMING = json.dumps({"mutation": {"confirmDestructive": True},
                         "session": {"confirmDestructive": True}})


class AgentFlowTests(DaemonTestCase):

    def setUp(self):
        self.daemon = self.startDaemon("--toolset-options", CONFIRMING)

    def flow(self, *arguments):
        return self.runClient(sys.executable, FLOW, self.daemon.url,
                              *arguments)

    def test_auto(self):
        """
        The SDK's default mode negotiates 2026-07-28 and works through a
        session handle: open, browse, a failing test read with its stack, a
        refused blind write, read, compile, the tests as a task with
        progress, a confirmed commit, the method put back and committed
        (so a flow after it meets the failing test too), close.
        """
        seen = self.flow("flow", "auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertEqual(list(seen["steps"]), [
            "open", "browse", "failingTest", "blindCompile", "read", "compile",
            "runTests", "commit", "reread", "restore", "commitRestored",
            "close"])
        self.assertIn("compiled Account>>withdraw:",
                      seen["confirmations"][0])

    def test_legacy(self):
        """
        The same work over 2025-11-25: the MCP session is the GemStone
        session, progress comes as notifications, the confirmation as an
        elicitation on the commit's stream.
        """
        seen = self.flow("flow", "legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertEqual(len(seen["progress"]), 3)
        self.assertEqual(len(seen["confirmations"]), 2)

    def test_subscribersOfBothErasTold(self):
        """
        A 2026 listener and a 2025 subscriber of Account's source both hear
        of another session's commit that changed Account.
        """
        seen = self.flow("watch")
        self.assertEqual(sorted(seen["heard"]), ["2025-11-25", "2026-07-28"])

    def call(self, id, name, arguments):
        """
        One 2026-era C{tools/call} without a session handle, by hand.
        """
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.daemon.port, timeout=60)
        connection.request("POST", "/mcp", json.dumps({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}}), {
            "content-type": "application/json",
            "accept": "application/json",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call", "mcp-name": name})
        response = connection.getresponse()
        body = json.loads(response.read())
        connection.close()
        return body

    def metrics(self):
        return samples(get(self.daemon.port, "/metrics")[2].decode())

    def waitForSpare(self):
        """
        Wait until a spare session, logged in ahead, idles in the pool.
        """
        deadline = time.monotonic() + 20
        while self.metrics()[("gsmcpd_sessions_warm", ())] < 1:
            self.assertLess(time.monotonic(), deadline, self.daemon.log())
            time.sleep(0.02)

    def test_readsWithoutHandleTakeSpares(self):
        """
        Two reads without a session handle: each read's session is logged
        out and a spare logged in ahead, which the next read takes, so the
        daemon logged in once for a read and once per spare.
        """
        for id in (1, 2):
            body = self.call(id, "status", {})
            self.assertFalse(body["result"]["isError"], body)
            self.waitForSpare()
        scraped = self.metrics()
        self.assertEqual(scraped[("gsmcpd_logins_total",
                                  (("outcome", "ok"),))], 3.0)
        self.assertEqual(scraped[("gsmcpd_sessions_closed_total",
                                  (("reason", "read_done"),))], 2.0)

    def test_throwawayStateNeverReachesTheNextCall(self):
        """
        execute_code without a handle runs in a throwaway session, logged
        out when it ends: neither what it changed nor what it left in its
        SessionTemps reaches the next such call, which runs on the spare
        logged in ahead; nothing was committed.
        """
        body = self.call(1, "execute_code", {
            "code": "UserGlobals at: #EraProbe put: 42. "
                    "SessionTemps current at: #Planted put: 'x'. 3 + 4"})
        texts = [block["text"] for block in body["result"]["content"]]
        self.assertEqual(texts[0], "7", body)
        self.assertIn("throwaway session", texts[1])
        self.waitForSpare()
        body = self.call(2, "execute_code", {
            "code": "{UserGlobals includesKey: #EraProbe. SessionTemps "
                    "current at: #Planted ifAbsent: [nil]} printString"})
        self.assertEqual(body["result"]["content"][0]["text"],
                         "'anArray( false, nil)'", body)

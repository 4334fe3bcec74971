"""
Fair shares over a real socket: a C{twistd gsmcp --simulated} over HTTPS
with authentication, where one identity takes every session and call it
can, and another still opens a session and gets 7 for 3 + 4.
"""

import http.client
import json
import os
import ssl

from gsmcpd.testing.simulator.control import SimulatorControl
from tests.auth.test_auth_daemon_sockets import TlsDaemonTestCase

MODERN = "2026-07-28"
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
SLOW = "(Delay forSeconds: 30) wait. 3"
ATTEMPTS = 200


class FairShareDaemonTests(TlsDaemonTestCase):

    arguments = ("--max-sessions", "4", "--sessions-per-identity", "2",
                 "--calls-per-session", "2", "--calls-per-identity", "3")

    def setUp(self):
        super().setUp()
        control = SimulatorControl(self.daemon.stoneSocket())
        control.call({"op": "addUser", "user": "Bob",
                      "password": os.urandom(8).hex()})
        control.call({"op": "grantOnetime", "minter": "DataCurator",
                      "userId": "Bob"})
        self.connection = http.client.HTTPSConnection(
            "localhost", self.daemon.port, timeout=60,
            context=ssl.create_default_context(cafile=self.caFile))
        self.addCleanup(self.connection.close)
        self.ids = iter(range(1, 10_000))

    def call(self, token, name, arguments=None, capabilities=TASKS):
        """
        One 2026-era C{tools/call} of C{name}, by default declaring the
        tasks extension: C{(status, body)}.
        """
        arguments = arguments or {}
        headers = {"content-type": "application/json",
                   "accept": "application/json",
                   "authorization": f"Bearer {token}",
                   "mcp-protocol-version": MODERN,
                   "mcp-method": "tools/call", "mcp-name": name}
        if "session" in arguments:
            headers["mcp-param-session"] = arguments["session"]
        self.connection.request("POST", "/mcp", json.dumps({
            "jsonrpc": "2.0", "id": next(self.ids), "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities":
                    capabilities}}}), headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read())

    def opened(self, token):
        status, body = self.call(token, "open_session")
        self.assertEqual(status, 200, body)
        return body["result"]["structuredContent"]["session"]

    def test_anotherIdentityStillServed(self):
        alice = self.token(sub="Alice", scope="gemstone:write")
        handles = [self.opened(alice), self.opened(alice)]
        status, body = self.call(alice, "open_session")
        self.assertEqual(body["error"]["data"], {
            "kind": "shareCap", "cap": "sessions-per-identity", "limit": 2})
        answers = {}
        for n in range(ATTEMPTS):
            status, body = self.call(alice, "execute_code", {
                "code": SLOW, "session": handles[n % 2]})
            kind = (status, body.get("result", {}).get("resultType") or
                    body["error"]["data"]["kind"])
            answers[kind] = answers.get(kind, 0) + 1
        self.assertEqual(answers, {(200, "task"): 3,
                                   (400, "shareCap"): ATTEMPTS - 3})
        self.assertIn("calls-per-identity 3", body["error"]["message"])

        bob = self.token(sub="Bob", scope="gemstone:write")
        handle = self.opened(bob)
        status, body = self.call(bob, "execute_code", {
            "code": "3 + 4", "session": handle}, capabilities={})
        self.assertEqual((status, body["result"]["content"][0]["text"]),
                         (200, "7"))

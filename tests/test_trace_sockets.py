"""
The message trace of a real C{twistd gsmcp --simulated} over HTTPS with
authentication, driven by the official Python SDK client in both eras with
a bearer token from the test identity provider: every message is traced,
and the token is nowhere in the file.
"""

import json
import os

from tests.test_auth_daemon_sockets import TlsDaemonTestCase


class TraceDaemonTests(TlsDaemonTestCase):

    def setUp(self):
        self.tracePath = os.path.abspath(self.mktemp())
        self.arguments = ("--trace-log", self.tracePath, "--surface",
                          "catalog")
        super().setUp()

    def traced(self, token):
        """
        The trace's lines once the daemon has stopped (and so written
        everything queued), after checking no part of C{token} is there.
        """
        self.daemon.stop()
        with open(self.tracePath, encoding="utf-8") as f:
            text = f.read()
        for part in token.split("."):
            self.assertNotIn(part, text)
        self.assertEqual(os.stat(self.tracePath).st_mode & 0o777, 0o600)
        return [json.loads(line) for line in text.splitlines()]

    def test_bothErasTracedWithoutTheToken(self):
        token = self.token(sub="Alice", scope="gemstone:write")
        seen = self.client(token)
        self.assertEqual(seen["status"]["structured"]["user"], "Alice")
        seen = self.client(token, "auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertIn("tool_search", seen["tools"])
        self.assertNotIn("remove_dictionary", seen["tools"])
        self.https("POST", token=token + "x", body={
            "jsonrpc": "2.0", "id": 1, "method": "ping"})
        lines = self.traced(token)
        methods = [line["method"] for line in lines
                   if line["direction"] == "in"]
        for method in ("initialize", "tools/list", "tools/call",
                       "server/discover", "ping"):
            self.assertIn(method, methods)
        self.assertTrue(all(line["direction"] in ("in", "out")
                            for line in lines))
        self.assertGreater(len([line for line in lines
                                if line["direction"] == "out"]), 4)

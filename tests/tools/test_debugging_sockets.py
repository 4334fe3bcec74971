"""
The debugging toolset over a real socket, driven by the official Python SDK
client as an agent debugging a failing test and profiling code would use it
(tests/clients/python_sdk_inspect_flow.py), in both protocol eras.
"""

import http.client
import json

from tests.realdaemon import AgentFlowTestCase, DaemonTestCase

TOOLSETS = "debugging testing browsing mutation session"


class InspectFlowTests(AgentFlowTestCase):

    flow = "python_sdk_inspect_flow.py"
    toolsets = TOOLSETS

    def test_auto(self):
        """
        Over 2026-07-28 with a session handle: the test fails, the overdrawn
        account is inspected, the fix compiled after reading, the test
        passes; after abort the old id is refused.  A profile names the
        method the time went to; code that fails answers its stack, and
        the next profile runs (nothing was left sampling).  An id a call
        without the handle answered is refused; a profile without it runs
        in a throwaway session.
        """
        seen = self.runFlow("auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertEqual(list(seen["steps"]), [
            "fails", "inspect", "balance", "read", "fix", "passes", "abort",
            "stale", "profile", "profileFails", "profileAgain", "noHandle",
            "foreign", "profileNoHandle", "close"])

    def test_legacy(self):
        """
        The same over 2025-11-25, where the MCP session is the GemStone
        session.
        """
        seen = self.runFlow("legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertEqual(list(seen["steps"]), [
            "fails", "inspect", "balance", "read", "fix", "passes", "abort",
            "stale", "profile", "profileFails", "profileAgain"])


class WireSizeTests(DaemonTestCase):
    """
    What the caps promise, measured as the HTTP body a client reads.
    """

    def setUp(self):
        self.daemon = self.startDaemon("--toolsets", "debugging execution")
        self.session = self.daemon.initialize()

    def body(self, tool, **arguments):
        """
        The raw body answering a call of C{tool}.
        """
        connection = http.client.HTTPConnection("127.0.0.1", self.daemon.port,
                                                timeout=120)
        try:
            connection.request("POST", "/mcp", json.dumps(
                {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                 "params": {"name": tool, "arguments": arguments}}),
                {"content-type": "application/json",
                 "accept": "application/json, text/event-stream",
                 "mcp-session-id": self.session})
            response = connection.getresponse()
            self.assertEqual(response.status, 200)
            return response.read()
        finally:
            connection.close()

    def test_controlCharacterTemporaries(self):
        """
        One frame of 100 temporaries of 300 control characters each: the
        error's body is under 64 KB.
        """
        names = [f"t{i}" for i in range(1, 101)]
        body = self.body("execute_code", code=(
            f"| s {' '.join(names)} |\n"
            "s := String with: (Character codePoint: 1).\n"
            "8 timesRepeat: [s := s , s].\n"
            "s := s , (s copyFrom: 1 to: 44).\n"
            + "".join(f"{name} := s.\n" for name in names) + "1/0"))
        self.assertIn(b"omittedVariables", body)
        self.assertLess(len(body), 64_000)

    def test_controlCharacterKeys(self):
        """
        A dictionary whose keys and values are control characters: a page
        of inspect is under 50 KB.
        """
        body = self.body("inspect", limit=100, expression=(
            "| d s | d := Dictionary new. s := String with: (Character codePoint: 2). "
            "8 timesRepeat: [s := s , s]. "
            "1 to: 100 do: [:i | d at: s , i printString put: s , s]. d"))
        self.assertIn(b"for more", body)
        self.assertLess(len(body), 50_000)

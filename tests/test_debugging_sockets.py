"""
The debugging toolset over a real socket, driven by the official Python SDK
client as an agent debugging a failing test and profiling code would use it
(tests/clients/python_sdk_inspect_flow.py), in both protocol eras.
"""

import json
import os
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

from tests.daemon import Daemon

FLOW = os.path.join(os.path.dirname(__file__), "clients",
                    "python_sdk_inspect_flow.py")
TOOLSETS = "debugging testing browsing mutation session"


class InspectFlowTests(SynchronousTestCase):

    def setUp(self):
        directory = self.mktemp()
        os.makedirs(directory)
        self.daemon = Daemon(directory, "--toolsets", TOOLSETS)
        self.addCleanup(self.daemon.stop)

    def flow(self, mode):
        finished = subprocess.run(
            [sys.executable, FLOW, self.daemon.url, mode],
            capture_output=True, text=True, timeout=120)
        seen = json.loads(finished.stdout.splitlines()[-1])
        self.assertEqual(seen["problems"], [], finished.stderr[-2000:])
        return seen

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
        seen = self.flow("auto")
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
        seen = self.flow("legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertEqual(list(seen["steps"]), [
            "fails", "inspect", "balance", "read", "fix", "passes", "abort",
            "stale", "profile", "profileFails", "profileAgain"])

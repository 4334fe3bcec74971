"""
The session's list of changes over a real socket, driven by the official
Python SDK client in its default mode as an agent redoing its work would
(tests/clients/python_sdk_changes_flow.py), in both protocol eras.
"""

import json
import os
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

from tests.daemon import Daemon

TOOLSETS = ("execution session listing browsing search mutation testing "
            "debugging changes")
"""The default toolsets and changes."""
FLOW = os.path.join(os.path.dirname(__file__), "clients",
                    "python_sdk_changes_flow.py")
STEPS = ["read", "fix", "new", "list", "status", "revert", "reread",
         "revertNew", "gone", "code", "incomplete", "abort", "empty"]


class ChangesFlowTests(SynchronousTestCase):

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
        The SDK's default mode (2026-07-28), with a handle: list_changes
        names a fix with the source it replaced and a new method,
        revert_method brings the old source back and removes the new
        method, code run makes the list say it may be incomplete, an abort
        empties it; without the handle it is refused.
        """
        seen = self.flow("auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertEqual(list(seen["steps"]), [*STEPS, "noHandle", "close"])

    def test_legacy(self):
        """
        The same over 2025-11-25, where the MCP session is the GemStone
        session.
        """
        seen = self.flow("legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertEqual(list(seen["steps"]), STEPS)

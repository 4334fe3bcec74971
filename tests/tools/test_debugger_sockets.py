"""
The debugger toolset over a real socket, driven by the official Python SDK
client as an agent fixing a failing test in a debugger would use it
(tests/clients/python_sdk_debugger_flow.py), in both protocol eras; and a
daemon started with --read-only, where a debugged run cannot commit.
"""

import os
import sys

from tests.realdaemon import CLIENTS, AgentFlowTestCase, DaemonTestCase

STEPS = ["breakpoint", "run", "where", "amount", "balance", "read", "fix",
         "gone", "restart", "restartedAt", "over", "overTo", "left", "set",
         "setRead", "continue", "passes", "passed", "again", "clear",
         "unpaused", "none"]


class DebuggerFlowTests(AgentFlowTestCase):

    flow = "python_sdk_debugger_flow.py"
    toolsets = "debugger browsing mutation testing session"

    def test_auto(self):
        """
        Over 2026-07-28 with a session handle: paused at a breakpoint in
        the method the test calls, the method fixed and its frame
        restarted, a temporary of the fix read and set, the run continued
        to the test's end and the test passing; cleared, the test runs
        without pausing.
        """
        seen = self.runFlow("auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertEqual(list(seen["steps"]), [*STEPS, "close"])

    def test_legacy(self):
        """
        The same over 2025-11-25.
        """
        seen = self.runFlow("legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertEqual(list(seen["steps"]), STEPS)


class ReadOnlyTests(DaemonTestCase):

    def test_debuggedRunCannotCommit(self):
        """
        A daemon started with --read-only locks every session's commits
        in the stone: a debugged run's commit pauses it at the lock's
        error, and nothing it changed is kept.
        """
        daemon = self.startDaemon("--read-only", "--toolsets",
                                  "debugger execution session")
        seen = self.runClient(
            sys.executable,
            os.path.join(CLIENTS, "python_sdk_debugger_readonly_flow.py"),
            daemon.url, "auto")
        self.assertEqual(list(seen["steps"]),
                         ["run", "locked", "stop", "kept", "close"])


class DeadlineTests(DaemonTestCase):

    def test_longContinueBroken(self):
        """
        A debug_continue that runs past the call's deadline is broken
        like any call: the client is told, the broken run is over, and the
        session answers its next call.
        """
        daemon = self.startDaemon("--call-timeout", "2", "--toolsets",
                                  "debugger execution session")
        seen = self.runClient(
            sys.executable,
            os.path.join(CLIENTS, "python_sdk_debugger_deadline_flow.py"),
            daemon.url, "auto")
        self.assertEqual(list(seen["steps"]), ["run", "continue", "deadline",
                                               "ended", "seven", "close"])

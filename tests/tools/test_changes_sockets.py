"""
The session's list of changes over a real socket, driven by the official
Python SDK client in its default mode as an agent redoing its work would
(tests/clients/python_sdk_changes_flow.py), in both protocol eras.
"""

from tests.realdaemon import AgentFlowTestCase

TOOLSETS = ("execution session listing browsing search mutation testing "
            "debugging changes")
"""The default toolsets and changes."""
STEPS = ["read", "fix", "new", "list", "status", "revert", "reread",
         "revertNew", "gone", "code", "incomplete", "abort", "empty"]


class ChangesFlowTests(AgentFlowTestCase):

    flow = "python_sdk_changes_flow.py"
    toolsets = TOOLSETS

    def test_auto(self):
        """
        The SDK's default mode (2026-07-28), with a handle: list_changes
        names a fix with the source it replaced and a new method,
        revert_method brings the old source back and removes the new
        method, code run makes the list say it may be incomplete, an abort
        empties it; without the handle it is refused.
        """
        seen = self.runFlow("auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertEqual(list(seen["steps"]), [*STEPS, "noHandle", "close"])

    def test_legacy(self):
        """
        The same over 2025-11-25, where the MCP session is the GemStone
        session.
        """
        seen = self.runFlow("legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertEqual(list(seen["steps"]), STEPS)

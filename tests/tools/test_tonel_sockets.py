"""
Tonel out and back in over a real socket, driven by the official Python
SDK client as an agent working in a git checkout would
(tests/clients/python_sdk_tonel_flow.py), in both protocol eras.
"""

from tests.realdaemon import AgentFlowTestCase

STEPS = ["export", "unedited", "edited", "load", "again"]


class TonelFlowTests(AgentFlowTestCase):

    flow = "python_sdk_tonel_flow.py"
    toolsets = ("execution session listing browsing search mutation testing "
                "debugging tonel")

    def test_auto(self):
        """
        The SDK's default mode (2026-07-28), with a handle: the export
        diffs as no change, an edited method as exactly one, loads and
        exports as edited; without the handle the load is refused; after
        an abort the resource is the first export's file; closed.
        """
        seen = self.runFlow("auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertEqual(list(seen["steps"]),
                         [*STEPS, "noHandle", "resource", "close"])

    def test_legacy(self):
        """The same over 2025-11-25, where the MCP session is the GemStone
        session."""
        seen = self.runFlow("legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertEqual(list(seen["steps"]), [*STEPS, "resource"])

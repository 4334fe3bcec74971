"""
The demo's deposit: renamed credit: over a real socket by the official
Python SDK client, as an agent would (tests/clients/python_sdk_refactoring_flow.py):
in two calls, a preview and its apply, and AccountTest's tests run as they
did before, in both protocol eras.
"""

from tests.realdaemon import AgentFlowTestCase

TOOLSETS = ("execution session listing browsing search mutation testing "
            "debugging refactoring")
"""The default toolsets and refactoring."""
STEPS = ["preview", "apply", "tests", "category", "ivarPreview", "ivarApply",
         "ivarRun"]


class RefactoringFlowTests(AgentFlowTestCase):

    flow = "python_sdk_refactoring_flow.py"
    toolsets = TOOLSETS

    def test_auto(self):
        """
        The SDK's default mode (2026-07-28), with a handle: the preview
        lists Account's implementor and AccountTest's two senders; its
        apply renames the three, AccountTest's tests pass and fail as they
        did before, the category is kept; without the handle the rename is
        refused. An instance variable of a class with a subclass renamed the
        same way, in two calls.
        """
        seen = self.runFlow("auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertEqual(list(seen["steps"]), [*STEPS, "noHandle", "close"])

    def test_legacy(self):
        """The same over 2025-11-25."""
        seen = self.runFlow("legacy")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertEqual(list(seen["steps"]), STEPS)

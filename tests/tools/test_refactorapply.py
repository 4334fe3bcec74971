"""
Tests for L{gsmcpd.tools.refactorapply}: a preview applied whole or not at
all, through C{rename_selector} on the simulated stone.
"""

from twisted.internet.defer import inlineCallbacks

from tests.tools.test_tools_refactoring import BUMP, TWICE, RefactoringTestCase

TEMPLATES = ("rename_class",)
"""The templates these tests run (for bin/mutate-templates)."""



class AllOrNothingTests(RefactoringTestCase):

    @inlineCallbacks
    def test_staleRefused(self):
        """
        A preview made stale by a later compile_method is refused on apply,
        and nothing of it is applied.
        """
        preview = yield self.preview(selector="bump:", newSelector="add:")
        changed = TWICE + ".\n\tself bump: 1"
        yield self.succeed("compile_method", className="Account",
                           source=changed)
        message = yield self.refused("rename_selector", selector="bump:",
                                     newSelector="add:",
                                     apply=preview["previewId"])
        self.assertIn("Account>>twice: changed since", message)
        code = self.code()
        self.assertEqual(code.method("Account", "bump:").source, BUMP)
        self.assertIsNone(code.method("Account", "add:"))
        self.assertEqual(code.method("Account", "twice:").source, changed)

    @inlineCallbacks
    def test_failurePartWayTakenBack(self):
        """
        When the stone refuses a write part way (another session committed
        a change to the sender after the preview), what was written before
        it is taken back: nothing of the preview stays.
        """
        preview = yield self.preview(selector="bump:", newSelector="add:")
        other = self.harness.newClient()
        yield self.succeed("get_method_source", harness=other,
                           className="Account", selector="twice:")
        yield self.succeed("compile_method", harness=other,
                           className="Account", source=TWICE + ". ^1")
        yield self.succeed("commit", harness=other)
        self.moveViewBehindTheLedger()
        message = yield self.refused("rename_selector", selector="bump:",
                                     newSelector="add:",
                                     apply=preview["previewId"])
        self.assertIn("Nothing of " + preview["previewId"], message)
        code = self.code()
        self.assertEqual(code.method("Account", "bump:").source, BUMP)
        self.assertEqual(code.method("Account", "bump:").category,
                         "operations")
        self.assertIsNone(code.method("Account", "add:"))


"""
Tests for L{gsmcpd.tools.previews}: a preview's diffs, and the bounded
shelf a session keeps them on.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools import previews
from gsmcpd.tools.ledger import ReadLedger
from gsmcpd.tools.previews import MAX_PREVIEWS, MethodChange, Preview, shelfOf


def preview(previewId, source=""):
    changes = (MethodChange("A", False, "a", "b", None, source, source),)
    return Preview(previewId, "rename_selector", "s", changes, (), {}, {})


class PreviewTests(SynchronousTestCase):

    def test_diffNamesBothSelectors(self):
        change = MethodChange("Account", True, "bump:", "add:", "ops",
                              "bump: n\n\t^n", "add: n\n\t^n")
        self.assertEqual(change.diff(),
                         "--- Account class>>bump:\n+++ Account class>>add:\n"
                         "@@ -1,2 +1,2 @@\n-bump: n\n+add: n\n \t^n")
        self.assertEqual(change.described()["newSelector"], "add:")

    def test_shelfPerLedgerBounded(self):
        """
        Each session (its ledger) has its shelf; it keeps the newest
        MAX_PREVIEWS, and a preview is taken once.
        """
        ledger = ReadLedger()
        shelf = shelfOf(ledger)
        self.assertIs(shelfOf(ledger), shelf)
        self.assertIsNot(shelfOf(ReadLedger()), shelf)
        ids = [shelf.newId() for _ in range(MAX_PREVIEWS + 1)]
        self.assertEqual(len(set(ids)), len(ids))
        for each in ids:
            shelf.keep(preview(each))
        self.assertIsNone(shelf.take(ids[0]))
        self.assertEqual(shelf.take(ids[1]).previewId, ids[1])
        self.assertIsNone(shelf.take(ids[1]))

    def test_shelfBoundedInSize(self):
        """
        Past MAX_PREVIEW_BYTES of sources the oldest previews go; the
        newest stays even alone past it.
        """
        self.patch(previews, "MAX_PREVIEW_BYTES", 100)
        shelf = shelfOf(ReadLedger())
        for each in ("a", "b", "c"):
            shelf.keep(preview(each, "x" * 20))
        self.assertEqual(preview("a", "x" * 20).size, 40)
        self.assertIsNone(shelf.take("a"))
        shelf.keep(preview("d", "x" * 200))
        self.assertIsNone(shelf.take("c"))
        self.assertEqual(shelf.take("d").previewId, "d")

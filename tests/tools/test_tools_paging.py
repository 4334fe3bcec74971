"""
Tests for L{gsmcpd.tools.paging}: the header and the structured page tell
a client exactly which offset fetches the rest.
"""

import jsonschema
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.paging import PAGE_SCHEMA, page, pagingProperties, scanned, window
from tests.toolharness import strictForm

ITEMS = list("abcde")


class PageTests(SynchronousTestCase):

    def assertStructuredValid(self, result):
        jsonschema.validate(result.structured(), strictForm(PAGE_SCHEMA))

    def test_everythingByDefault(self):
        result = page(ITEMS, {})
        self.assertEqual((result.items, result.nextOffset), (ITEMS, None))
        self.assertEqual(result.header(), "(showing 1-5 of 5)")
        self.assertStructuredValid(result)

    def test_firstPageNamesTheNextOffset(self):
        result = page(ITEMS, {"limit": 2})
        self.assertEqual(result.items, ["a", "b"])
        self.assertEqual(result.header(),
                         "(showing 1-2 of 5; pass offset: 2 for the next "
                         "page)")
        self.assertEqual(result.structured(), {
            "offset": 0, "limit": 2, "total": 5, "nextOffset": 2,
            "atLeast": None})
        self.assertStructuredValid(result)

    def test_lastPageHasNoNext(self):
        result = page(ITEMS, {"limit": 2, "offset": 4})
        self.assertEqual((result.items, result.nextOffset), (["e"], None))
        self.assertEqual(result.header(), "(showing 5-5 of 5)")

    def test_limitZeroIsTheCount(self):
        result = page(ITEMS, {"limit": 0})
        self.assertEqual((result.items, result.nextOffset), ([], None))
        self.assertEqual(result.header(),
                         "(5 in all; pass a limit to list them)")
        self.assertStructuredValid(result)

    def test_pastTheEnd(self):
        result = page(ITEMS, {"offset": 9})
        self.assertEqual(result.header(), "(none at offset 9; there are 5)")
        self.assertIsNone(result.nextOffset)

    def test_emptyList(self):
        self.assertEqual(page([], {}).header(), "(none)")

    def test_defaultLimit(self):
        self.assertEqual(window({}, 3), (0, 3))
        self.assertEqual(page(ITEMS, {}, defaultLimit=3).items,
                         ["a", "b", "c"])
        self.assertEqual(page(ITEMS, {"limit": 4}, defaultLimit=3).limit, 4)


class ScannedTests(SynchronousTestCase):
    """
    A scan stops one past the window, so it may not know the total.
    """

    def test_stoppedEarlyDoesNotKnowTheTotal(self):
        result = scanned(["c", "d", "e"], {"offset": 2, "limit": 2}, seen=5)
        self.assertEqual((result.items, result.total), (["c", "d"], None))
        self.assertEqual(result.nextOffset, 4)
        self.assertEqual(result.header(),
                         "(showing 3-4 of at least 5; the total is not "
                         "known; pass offset: 4 for the next page)")
        self.assertEqual(result.structured()["atLeast"], 5)
        jsonschema.validate(result.structured(), strictForm(PAGE_SCHEMA))

    def test_ranToTheEndKnowsTheTotal(self):
        result = scanned(["c"], {"offset": 2, "limit": 2}, seen=3)
        self.assertEqual((result.total, result.nextOffset), (3, None))
        self.assertIsNone(result.structured()["atLeast"])

    def test_unlimited(self):
        result = scanned(ITEMS, {}, seen=5)
        self.assertEqual((result.items, result.total), (ITEMS, 5))


class PagingPropertiesTests(SynchronousTestCase):

    def test_describesTheDefault(self):
        self.assertEqual(pagingProperties(50)["limit"]["default"], 50)
        self.assertEqual("default: all",
                         pagingProperties()["limit"]["description"])

    def test_refusesNegatives(self):
        schema = {"type": "object", "properties": pagingProperties()}
        self.assertRaises(jsonschema.ValidationError, jsonschema.validate,
                          {"limit": -1}, schema)
        self.assertRaises(jsonschema.ValidationError, jsonschema.validate,
                          {"offset": -1}, schema)

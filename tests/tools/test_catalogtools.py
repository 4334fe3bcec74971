"""
Tests for L{gsmcpd.tools.catalogtools}: the compact catalog surface's
tools and what it lists.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.tools.arguments import MAX_TEXT_LENGTH, capped
from gsmcpd.tools.catalog import CORE_TOOLSETS, ToolCatalog, buildToolsets
from gsmcpd.tools.catalogtools import (
    CATALOG_TOOLS,
    EVERYDAY,
    CatalogSurface,
    servedCatalog,
    uncapped,
)
from tests.toolharness import ToolHarness

ALL = tuple(CORE_TOOLSETS)


def surface(names=ALL):
    return CatalogSurface(buildToolsets(names))


class SurfaceTests(SynchronousTestCase):

    def test_advertisesTheEverydaySet(self):
        listed = [tool.name for tool in surface().advertised()]
        self.assertEqual(sorted(listed), sorted(EVERYDAY + CATALOG_TOOLS))

    def test_lists(self):
        """
        The catalog surface lists what it advertises; a full catalog lists
        every tool it serves.
        """
        catalog = surface()
        self.assertEqual(
            {tool.name for tool in catalog if catalog.lists(tool.name)},
            set(EVERYDAY + CATALOG_TOOLS))
        full = ToolCatalog.named()
        self.assertTrue(all(full.lists(tool.name) for tool in full))
        self.assertFalse(full.lists("zebra"))

    def test_everyToolCallable(self):
        """
        Every served tool is in the catalog by name, listed or not.
        """
        catalog = surface()
        for tool in ToolCatalog.named():
            self.assertEqual(catalog.get(tool.name).descriptor(),
                             tool.descriptor())
        self.assertEqual(len(catalog), len(ToolCatalog.named()) + 3)

    def test_listedCompactly(self):
        """
        The listing leaves titles, output schemas and the default caps to
        tool_get; the catalog keeps them, so results are checked against
        the output schemas and arguments against the caps as ever.
        """
        catalog = surface()
        for tool in catalog.advertised():
            listed = tool.descriptor()
            whole = catalog.get(tool.name)
            self.assertEqual(set(listed), {"name", "description",
                                           "inputSchema", "annotations"})
            self.assertIsNotNone(whole.outputSchema)
            self.assertTrue(whole.title and tool.annotations)
            self.assertEqual(tool.inputSchema, whole.inputSchema)
            self.assertEqual(capped(listed["inputSchema"]), whole.inputSchema)
        code = catalog.get("execute_code").inputSchema["properties"]["code"]
        self.assertEqual(code["maxLength"], MAX_TEXT_LENGTH)

    def test_uncappedKeepsOwnCaps(self):
        """
        Only the caps every argument gets by default are left out: one a
        tool sets itself is part of what its argument means.
        """
        schema = {"type": "object", "properties": {
            "limit": {"type": "integer", "maximum": 500},
            "names": {"type": "array", "items": {"type": "string"}}}}
        self.assertEqual(uncapped(capped(schema)), schema)
        self.assertEqual(capped(schema)["properties"]["limit"]["maximum"],
                         500)

    def test_narrowedKeepsTheCatalogTools(self):
        """
        A token's scopes narrow the tools, never the catalog tools, and
        the narrowed catalog's tools search only what it serves.
        """
        catalog = surface()
        narrowed = catalog.narrowed(frozenset({"browsing"}))
        self.assertIsInstance(narrowed, CatalogSurface)
        self.assertIs(catalog.narrowed(frozenset({"browsing"})), narrowed)
        self.assertIsNone(narrowed.get("remove_dictionary"))
        for name in CATALOG_TOOLS:
            self.assertIsNot(narrowed.get(name), catalog.get(name))
        self.assertIs(catalog.narrowed(None), catalog)

    def test_fullIsTheDefault(self):
        toolsets = buildToolsets(ALL)
        self.assertEqual(type(servedCatalog("full", toolsets)), ToolCatalog)
        self.assertIsInstance(servedCatalog("catalog", toolsets),
                              CatalogSurface)
        self.assertEqual(len(ToolCatalog(toolsets).advertised()), 31)


class CatalogToolTests(TestCase):

    def setUp(self):
        self.harness = ToolHarness(ALL, tools=surface())

    @inlineCallbacks
    def test_search(self):
        result = yield self.harness.call("tool_search",
                                         query="delete dictionary")
        found = result["structuredContent"]
        self.assertEqual(found["tools"][0]["name"], "remove_dictionary")
        self.assertFalse(found["tools"][0]["listed"])
        self.assertIn("remove_dictionary: Remove a dictionary",
                      result["content"][0]["text"])
        self.assertNotIn("tool_", result["content"][0]["text"])

    @inlineCallbacks
    def test_searchLimit(self):
        result = yield self.harness.call("tool_search", query="class",
                                         limit=2)
        found = result["structuredContent"]
        self.assertEqual(len(found["tools"]), 2)
        self.assertGreater(found["total"], 2)
        self.assertIn("more: raise limit", result["content"][0]["text"])
        result = yield self.harness.call("tool_search", query="zebra")
        self.assertEqual(result["structuredContent"],
                         {"tools": [], "total": 0})
        self.assertEqual(result["content"][0]["text"],
                         "No served tool matches.")

    @inlineCallbacks
    def test_searchOnlyWhatIsServed(self):
        harness = ToolHarness(("browsing",),
                              tools=surface().narrowed(frozenset({"browsing"})))
        result = yield harness.call("tool_search", query="delete dictionary")
        self.assertNotIn("remove_dictionary",
                         [each["name"] for each in
                          result["structuredContent"]["tools"]])

    @inlineCallbacks
    def test_get(self):
        result = yield self.harness.call("tool_get", name="remove_dictionary")
        tool = result["structuredContent"]["tool"]
        self.assertEqual(tool["name"], "remove_dictionary")
        self.assertIn("outputSchema", tool)
        self.assertIn("inputSchema", tool)

    @inlineCallbacks
    def test_getUnknown(self):
        kind, message = yield self.harness.error("tool_get", name="zebra")
        self.assertEqual(kind, "notFound")
        self.assertIn("tool_search", message)

    @inlineCallbacks
    def test_callOfItselfRefused(self):
        """
        A C{tool_call} the protocol layer does not take as another call
        (one naming C{tool_call}) is refused as invalid.
        """
        kind, message = yield self.harness.error(
            "tool_call", name="tool_call", arguments={"name": "status"})
        self.assertEqual(kind, "invalidParams")

    @inlineCallbacks
    def test_callValidatedByItsSchema(self):
        kind, message = yield self.harness.error("tool_call", arguments={})
        self.assertEqual(kind, "invalidParams")
        self.assertIn("name", message)

"""
Tests for L{gsmcpd.tools.catalog}: nothing is served that the deployment
did not name, and every mistake in naming refuses to start, saying why.
"""

from jsonschema import Draft202012Validator
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.arguments import INTEGER, STRING, uncapped
from gsmcpd.tools.base import (
    METHOD_SCHEMA,
    Tool,
    Toolset,
    annotations,
    closedSchema,
    resultSchema,
)
from gsmcpd.tools.catalog import (
    CORE_TOOLSETS,
    DEFAULT_TOOLSETS,
    OTHER_TOOLSETS,
    AdvertisedTool,
    OutOfScope,
    ToolCatalog,
    ToolsetError,
    advertisedOutput,
    buildToolsets,
    sharedOnce,
    toolsetClass,
    unservedToolsets,
)
from gsmcpd.tools.execution import ExecutionToolset
from gsmcpd.tools.paging import PAGE_SCHEMA
from gsmcpd.tools.sunit import TestingToolset


def tool(name):
    return Tool(name, name.title(), "a tool", closedSchema(),
                annotations(readOnly=True), run=None)


class Named(Toolset):

    def __init__(self, name, *toolNames):
        super().__init__()
        self.name = name
        self._toolNames = toolNames

    def tools(self):
        return [tool(n) for n in self._toolNames]


class ToolsetClassTests(SynchronousTestCase):

    def test_shortNames(self):
        self.assertIs(toolsetClass("execution"), ExecutionToolset)
        self.assertIs(toolsetClass("testing"), TestingToolset)

    def test_everyShippedNameLoads(self):
        for name in [*CORE_TOOLSETS, *OTHER_TOOLSETS]:
            self.assertTrue(issubclass(toolsetClass(name), Toolset), name)

    def test_importPath(self):
        self.assertIs(toolsetClass("gsmcpd.tools.execution:ExecutionToolset"),
                      ExecutionToolset)

    def test_unknownShortNameListsTheChoices(self):
        error = self.assertRaises(ToolsetError, toolsetClass, "browse")
        self.assertIn("'browse'", str(error))
        for name in [*CORE_TOOLSETS, *OTHER_TOOLSETS]:
            self.assertIn(name, str(error))

    def test_pathThatDoesNotLoad(self):
        for path in ("gsmcpd.tools.nowhere:X", "gsmcpd.tools.execution:Nope"):
            error = self.assertRaises(ToolsetError, toolsetClass, path)
            self.assertIn("cannot be loaded", str(error))


class BuildToolsetsTests(SynchronousTestCase):

    def test_inTheOrderNamed(self):
        toolsets = buildToolsets(["testing", "execution"])
        self.assertEqual([type(t) for t in toolsets],
                         [TestingToolset, ExecutionToolset])

    def test_optionsForAToolsetNotServed(self):
        """
        Options for a toolset left out are a mistake, not silently unused.
        """
        error = self.assertRaises(ToolsetError, buildToolsets, ["execution"],
                                  {"search": {"limit": 3}})
        self.assertIn("'search', which is not served", str(error))

    def test_undeclaredOptionRefuses(self):
        error = self.assertRaises(ToolsetError, buildToolsets, ["execution"],
                                  {"execution": {"colour": "red"}})
        self.assertIn("'colour'", str(error))


class ToolCatalogTests(SynchronousTestCase):

    def test_coreByDefault(self):
        catalog = ToolCatalog.named()
        self.assertEqual({type(t).__name__ for t in catalog.toolsets},
                         {toolsetClass(n).__name__ for n in CORE_TOOLSETS})

    def test_shipsNoTestFixture(self):
        """
        Every toolset the catalog names is gsmcpd's own: a test fixture
        (the conformance suite's, in C{gsmcpd.testing}) is served only by
        its import path, and no agent is told to ask for it.
        """
        for path in {**CORE_TOOLSETS, **OTHER_TOOLSETS}.values():
            self.assertTrue(path.startswith("gsmcpd.tools."), path)

    def test_lookupAndSortedIteration(self):
        catalog = ToolCatalog([Named("a", "zeta", "alpha"),
                               Named("b", "mu")])
        self.assertEqual([t.name for t in catalog], ["alpha", "mu", "zeta"])
        self.assertEqual(len(catalog), 3)
        self.assertEqual(catalog.get("mu").name, "mu")
        self.assertIsNone(catalog.get("nu"))

    def test_oneNameTwoToolsetsRefuses(self):
        """
        Two toolsets serving one tool name would make C{tools/call}
        ambiguous.
        """
        error = self.assertRaises(ToolsetError, ToolCatalog,
                                  [Named("a", "run"), Named("b", "run")])
        self.assertIn("'run'", str(error))

    def test_narrowed(self):
        """
        A token's scopes narrow the catalog to some of its toolsets; the
        narrowed catalog is made once per set of names.
        """
        catalog = ToolCatalog.named(("browsing", "execution"))
        browsing = catalog.narrowed(frozenset({"browsing"}))
        self.assertIs(browsing, catalog.narrowed(frozenset({"browsing"})))
        self.assertIs(catalog.narrowed(None), catalog)
        self.assertIsNone(browsing.get("execute_code"))
        self.assertIsNotNone(browsing.get("get_method_source"))
        self.assertEqual(len(catalog.narrowed(frozenset())), 0)

    def test_scoped(self):
        """
        A tool looked up within a token's scopes: one they open, none for
        one not served, L{OutOfScope} for one served that they leave out.
        """
        catalog = ToolCatalog.named(("browsing", "execution"))
        scopes = frozenset({"browsing"})
        self.assertEqual(catalog.scoped("get_method_source", scopes).name,
                         "get_method_source")
        self.assertEqual(catalog.scoped("execute_code", None).name,
                         "execute_code")
        self.assertIsNone(catalog.scoped("nothing", scopes))
        self.assertRaises(OutOfScope, catalog.scoped, "execute_code", scopes)


class AdvertisedTests(SynchronousTestCase):
    """
    Each tool as C{tools/list} describes it.
    """

    def test_defaultToolsets(self):
        """
        A deployment that names none serves the core toolsets and
        debugging; the others shipped are left for an operator to name.
        """
        self.assertEqual(DEFAULT_TOOLSETS, (*CORE_TOOLSETS, "debugging"))
        self.assertEqual(unservedToolsets(DEFAULT_TOOLSETS),
                         ["admin", "changes", "debugger", "refactoring", "tonel"])
        self.assertEqual(unservedToolsets(["browsing", "admin"]), [
            "execution", "listing", "mutation", "search", "session",
            "testing", "changes", "debugger", "debugging", "refactoring", "tonel"])

    def test_advertisedIsTheToolListed(self):
        """
        The catalog advertises every tool, made once, each described
        without its default caps and as L{advertisedOutput} says its
        output; the tool itself keeps them, and validates with them.
        """
        catalog = ToolCatalog.named(["search"])
        advertised = catalog.advertised()
        self.assertIs(catalog.advertised(), advertised)
        self.assertEqual([each.name for each in advertised],
                         [each.name for each in catalog])
        listed = next(each for each in advertised
                      if each.name == "find_senders")
        whole = catalog.get("find_senders")
        self.assertIsInstance(listed, AdvertisedTool)
        self.assertEqual(listed.descriptor()["inputSchema"],
                         uncapped(whole.inputSchema))
        self.assertIn("maxLength", whole.descriptor()["inputSchema"]
                      ["properties"]["selector"])
        self.assertEqual(listed.descriptor()["outputSchema"],
                         advertisedOutput(whole.outputSchema))

    def test_sharedOnce(self):
        """
        A sub-schema held twice is said once in C{$defs} under the name of
        the property it was first met under, and validates as before; a
        small one or one held once stays where it is.
        """
        row = resultSchema(method=STRING, total=INTEGER,
                           share={"type": "number"})
        schema = resultSchema(
            bySelf={"type": "array", "items": row},
            byTotal={"type": "array", "items": row}, n=INTEGER, m=INTEGER)
        shared = sharedOnce(schema)
        self.assertEqual(shared["properties"]["bySelf"],
                         {"$ref": "#/$defs/bySelf"})
        self.assertEqual(shared["properties"]["byTotal"],
                         {"$ref": "#/$defs/bySelf"})
        self.assertEqual(shared["$defs"],
                         {"bySelf": {"type": "array", "items": row}})
        self.assertEqual(shared["properties"]["n"], INTEGER)
        good = {"bySelf": [{"method": "a", "total": 1, "share": 0.5}],
                "byTotal": [], "n": 1, "m": 2}
        bad = dict(good, byTotal=[{"method": 3, "total": 1, "share": 1}])
        for instance, valid in ((good, True), (bad, False)):
            self.assertEqual(Draft202012Validator(shared).is_valid(instance),
                             Draft202012Validator(schema).is_valid(instance))
            self.assertIs(Draft202012Validator(shared).is_valid(instance),
                          valid)
        self.assertEqual(sharedOnce(resultSchema(n=INTEGER)),
                         resultSchema(n=INTEGER))

    def test_advertisedOutput(self):
        """
        A page and a method are left to the instructions; below the root
        an object's or an array's type is left to what implies it; any
        other type stays.
        """
        schema = resultSchema(
            page=PAGE_SCHEMA, methods={"type": "array", "items": METHOD_SCHEMA},
            rows={"type": "array", "items": resultSchema(n=INTEGER)},
            stack={"type": ["object", "null"]}, path={"type": "array"},
            last={"type": ["object", "null"], "properties": {"at": STRING}})
        self.assertEqual(advertisedOutput(schema), {
            "type": "object", "properties": {
                "page": {}, "methods": {"items": {}},
                "rows": {"items": {"properties": {"n": INTEGER}}},
                "stack": {"type": ["object", "null"]},
                "path": {"type": "array"},
                "last": {"type": ["object", "null"],
                         "properties": {"at": STRING}}}})
        self.assertEqual(advertisedOutput(PAGE_SCHEMA)["type"], "object")

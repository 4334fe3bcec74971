"""
Contract tests over the served tool surface: whatever a toolset declares,
these hold for every tool.
"""

import json

import jsonschema
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.jsonrpc import Message
from gsmcpd.tools.base import MCP_DEFAULT_HINTS
from gsmcpd.tools.catalog import (
    CORE_TOOLSETS,
    OTHER_TOOLSETS,
    ToolCatalog,
    toolsetClass,
)
from gsmcpd.tools.instructions import OUTPUT_RULE, stockInstructions
from tests.builders import clientSession, legacyEra
from tests.toolharness import effectiveHints, strictForm

REFERENCE_TOOLS = {
    "execution": {"execute_code"},
    "session": {"abort", "commit", "refresh", "status"},
    "listing": {"list_all_classes", "list_classes", "list_dictionaries",
                "list_dictionary_entries"},
    "browsing": {"describe_class", "export_class_source",
                 "get_class_definition", "get_class_hierarchy",
                 "get_method_source", "list_methods"},
    "search": {"find_implementors", "find_references_to", "find_senders",
               "search_method_source"},
    "mutation": {"add_dictionary", "compile_class_definition",
                 "compile_method", "delete_class", "delete_method",
                 "remove_dictionary", "set_class_comment"},
    "testing": {"describe_test_failure", "list_failing_tests",
                "list_test_classes", "run_test_class", "run_test_method"},
}
"""The reference design's 31 tools, by toolset."""

ANNOTATIONS = ("readOnlyHint", "destructiveHint", "idempotentHint",
               "openWorldHint")


CODE_ARGUMENTS = frozenset({"code", "expression", "source"})
"""The arguments that carry Smalltalk a tool evaluates or compiles."""


def takes(schema):
    """
    The names of every property an input schema takes, at any depth.
    """
    names = set(schema.get("properties", {}))
    for sub in schema.get("properties", {}).values():
        names |= takes(sub)
    if isinstance(schema.get("items"), dict):
        names |= takes(schema["items"])
    return names


def promisesRepeated(schema, path="$"):
    """
    The paths of objects in output schema C{schema} that say C{required} or
    C{additionalProperties}, which the instructions' rule says once for
    every tool.
    """
    problems = [path] if {"required", "additionalProperties"} & set(schema) \
        else []
    for name, sub in schema.get("properties", {}).items():
        problems += promisesRepeated(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        problems += promisesRepeated(schema["items"], f"{path}[]")
    return problems


class SurfaceTests(SynchronousTestCase):

    def setUp(self):
        self.tools = ToolCatalog.named()

    def test_thirtyOneTools(self):
        self.assertEqual(
            {tool.name for tool in self.tools},
            set().union(*REFERENCE_TOOLS.values()))
        self.assertEqual(len(self.tools), 31)

    def test_toolsetsDeclareTheirTools(self):
        for name, tools in REFERENCE_TOOLS.items():
            toolset = toolsetClass(name)()
            self.assertEqual(toolset.name, name)
            self.assertEqual({tool.name for tool in toolset.tools()}, tools,
                             name)
            self.assertTrue(toolset.title and toolset.instructions, name)

    def test_toolsListIsTheRegistry(self):
        response = self.successResultOf(legacyEra(self.tools).answer(
            clientSession(None), Message("request", "tools/list", 1, {},
                                         {})))
        listed = response["result"]["tools"]
        self.assertEqual([tool["name"] for tool in listed],
                         sorted(tool.name for tool in self.tools))

    def test_inputSchemasClosed(self):
        for tool in self.tools:
            schema = tool.inputSchema
            jsonschema.Draft202012Validator.check_schema(schema)
            self.assertEqual(schema["type"], "object", tool.name)
            self.assertIs(schema["additionalProperties"], False, tool.name)
            self.assertTrue(set(schema.get("required", ())) <=
                            set(schema["properties"]), tool.name)

    def test_outputSchemasValid(self):
        """
        Every tool has an output schema, which leaves what a result always
        holds to the instructions' one rule, and whose strict form (what
        the tests check every result against) is a valid schema too.
        """
        for tool in self.tools:
            self.assertIsNotNone(tool.outputSchema, tool.name)
            jsonschema.Draft202012Validator.check_schema(tool.outputSchema)
            jsonschema.Draft202012Validator.check_schema(
                strictForm(tool.outputSchema))
            self.assertEqual(tool.outputSchema["type"], "object", tool.name)
            self.assertEqual(promisesRepeated(tool.outputSchema), [],
                             tool.name)

    def test_surfaceUnderBudget(self):
        """
        The default tools/list (compact JSON, as the bench counts it) and
        the instructions stay under the bench's 25 KB target: every session
        reads them before any work.
        """
        listed = self.successResultOf(legacyEra(self.tools).answer(
            clientSession(None), Message("request", "tools/list", 1, {},
                                         {})))["result"]["tools"]
        size = len(json.dumps(listed, ensure_ascii=False,
                              separators=(",", ":")).encode("utf-8"))
        size += len(stockInstructions(self.tools.toolsets).encode("utf-8"))
        self.assertLess(size, 25_000)

    def test_instructionsStateTheOutputRule(self):
        self.assertIn(OUTPUT_RULE, stockInstructions(self.tools.toolsets))

    def test_strictFormRefusesMissingAndExtra(self):
        """
        The strict form the tests check results against closes every
        object, however deep, and requires all its listed properties.
        """
        schema = strictForm(self.tools.get("list_methods").outputSchema)
        method = {"className": "A", "meta": False, "selector": "b",
                  "category": None}
        page = {"offset": 0, "limit": None, "total": 1, "nextOffset": None,
                "atLeast": None}
        jsonschema.validate({"className": "A", "methods": [method], "page": page},
                            schema)
        for wrong in ({"className": "A", "page": page},
                      {"className": "A", "methods": [], "page": page, "more": 1},
                      {"className": "A", "methods": [dict(method, more=1)], "page": page},
                      {"className": "A", "methods": [method], "page": {}},
                      {"className": "A", "methods": [
                          {k: v for k, v in method.items()
                           if k != "category"}], "page": page}):
            self.assertRaises(jsonschema.ValidationError, jsonschema.validate,
                              wrong, schema)

    def test_annotationsAndTitle(self):
        """
        Every tool has a title, a description and annotations; a hint left
        out means MCP's default, so what is checked is the value a client
        reads, and a hint sent is never one that merely repeats the default.
        A read-only tool sends only C{readOnlyHint} and C{openWorldHint}:
        MCP gives the other two meaning only when C{readOnlyHint} is false.
        """
        for tool in self.tools:
            descriptor = tool.descriptor()
            self.assertTrue(descriptor["title"], tool.name)
            self.assertTrue(descriptor["description"], tool.name)
            self.assertTrue(descriptor["annotations"], tool.name)
            for hint, value in descriptor["annotations"].items():
                self.assertIn(hint, ANNOTATIONS, tool.name)
                self.assertIsNot(value, MCP_DEFAULT_HINTS[hint],
                                 f"{tool.name} {hint}")
            hints = effectiveHints(descriptor["annotations"])
            meaningful = ANNOTATIONS if not hints["readOnlyHint"] else (
                "readOnlyHint", "openWorldHint")
            self.assertEqual(sorted(hints), sorted(meaningful), tool.name)
            for hint in meaningful:
                self.assertIsInstance(hints[hint], bool, f"{tool.name} {hint}")
            self.assertIs(hints["openWorldHint"], False)

    def test_destructiveToolsSaySo(self):
        for name in ("abort", "delete_class", "delete_method",
                     "remove_dictionary", "compile_method",
                     "compile_class_definition"):
            hints = effectiveHints(self.tools.get(name).annotations)
            self.assertIs(hints["destructiveHint"], True, name)

    def test_codeIsNeverReadOnly(self):
        """
        No tool that evaluates code says it is read-only, in any toolset
        shipped: whatever its arguments call code, an expression or a
        source may commit, so a client that lets read-only tools run
        unasked must ask for it.
        """
        every = ToolCatalog.named([*CORE_TOOLSETS, *OTHER_TOOLSETS])
        evaluating = [tool.name for tool in every
                      if CODE_ARGUMENTS & takes(tool.inputSchema)]
        self.assertIn("inspect", evaluating)
        for name in evaluating:
            hints = effectiveHints(every.get(name).annotations)
            self.assertIs(hints["readOnlyHint"], False, name)

    def test_readsAreReadOnly(self):
        for family in ("listing", "browsing", "search"):
            for name in REFERENCE_TOOLS[family]:
                hints = effectiveHints(self.tools.get(name).annotations)
                self.assertIs(hints["readOnlyHint"], True, name)

    def test_oneToolsetServesOnlyItsTools(self):
        for name in CORE_TOOLSETS:
            registry = ToolCatalog.named([name])
            self.assertEqual({tool.name for tool in registry},
                             REFERENCE_TOOLS[name])

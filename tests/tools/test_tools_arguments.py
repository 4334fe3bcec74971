"""
A tool's arguments are checked without jsonschema when its schema is plain
(strings, integers, booleans); the verdict must be jsonschema's whatever
the arguments are.
"""

from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.arguments import (
    MAX_INTEGER,
    MAX_NAME_LENGTH,
    PlainArguments,
    capped,
)
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.templates.outcomes import ToolError

CATALOG = ToolCatalog.named()
PLAIN = [tool for tool in CATALOG
         if PlainArguments.of(tool.inputSchema) is not None]
NAMES = sorted({name for tool in CATALOG
                for name in tool.inputSchema["properties"]} | {"other"})

values = st.one_of(
    st.text(max_size=12), st.sampled_from(["", "Object", "a b", "9x", "x_1"]),
    st.integers(-3, 300), st.booleans(), st.none(), st.floats(0, 5),
    st.lists(st.text(max_size=3), max_size=2))


def argumentsFor(tool):
    """
    Arguments named mostly as C{tool}'s are, so that valid ones are common.
    """
    own = sorted(tool.inputSchema["properties"])
    names = st.sampled_from(own) if own else st.sampled_from(NAMES)
    return st.dictionaries(st.one_of(names, names, st.sampled_from(NAMES)),
                           values, max_size=4)


class PlainArgumentsTests(SynchronousTestCase):

    def test_mostToolsArePlain(self):
        self.assertGreater(len(PLAIN), len(CATALOG) // 2)

    @settings(max_examples=500, deadline=None)
    @given(st.data())
    def test_sameVerdictAsJsonschema(self, data):
        tool = data.draw(st.sampled_from(PLAIN))
        given = data.draw(argumentsFor(tool))
        expected = tool._validator.is_valid(given)
        try:
            tool.validate(given)
        except ToolError:
            accepted = False
        else:
            accepted = True
        self.assertEqual(accepted, expected, (tool.name, given))

    def test_boolIsNotAnInteger(self):
        """
        Python's bool is an int; JSON Schema's boolean is not an integer.
        """
        tool = CATALOG.get("find_senders")
        self.assertRaises(ToolError, tool.validate,
                          {"selector": "x", "limit": True})

    def test_notPlain(self):
        self.assertIsNone(PlainArguments.of(
            CATALOG.get("compile_class_definition").inputSchema))


class CappedTests(SynchronousTestCase):

    def test_nullableArgumentCapped(self):
        """
        An argument that lists its types (a nullable one) is capped as
        each of them is: before, such a schema failed to build at all.
        """
        schema = capped({"type": "object", "properties": {
            "name": {"type": ["string", "null"]},
            "limit": {"type": ["integer", "null"]}}})
        self.assertEqual(schema["properties"], {
            "name": {"maxLength": MAX_NAME_LENGTH,
                     "type": ["string", "null"]},
            "limit": {"maximum": MAX_INTEGER, "type": ["integer", "null"]}})

"""
GemStone sessions behind handles in the 2026 era.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern import envelope
from gsmcpd.protocol.eras.modern.handles import (
    HANDLE_TOOLS,
    LISTED_SESSION_PROPERTY,
    SESSION_PROPERTY,
    ToolSchemas,
    closed,
    needsHandle,
    noSuchHandle,
    opened,
    takeHandle,
)
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError
from gsmcpd.tools.base import (
    NO_SESSION,
    Tool,
    ToolError,
    annotations,
    closedSchema,
)
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.catalogtools import CatalogSurface
from tests.toolharness import checkStructured

DESCRIPTOR = {"name": "compile_method", "inputSchema": closedSchema(
    {"className": {"type": "string"}}, ["className"])}
COMPILE = Tool("compile_method", "t", "d", DESCRIPTOR["inputSchema"],
               annotations(readOnly=False), None)


class SessionArgumentTests(SynchronousTestCase):

    def test_added(self):
        """
        The 2026 schema gains an optional, header-mirrored C{session}; the
        2025 descriptor is untouched.
        """
        schema = ToolSchemas().schemaOf(COMPILE)
        self.assertEqual(sorted(schema["properties"]),
                         ["className", "session"])
        self.assertEqual(schema["required"], ["className"])
        self.assertEqual(envelope.mirroredParameters(schema),
                         {"session": "Session"})
        self.assertEqual(sorted(DESCRIPTOR["inputSchema"]["properties"]),
                         ["className"])

    def test_listedForm(self):
        """
        The compact surface lists the argument bare (the instructions say
        what it is, once); the full surface, and the schema a call's
        headers are checked against, keep its short description, whichever
        form was asked for first.
        """
        full = ToolCatalog.named()
        listed = {tool.name: tool for tool in CatalogSurface(
            full.toolsets).advertised()}
        schemas = ToolSchemas()
        for name in ("compile_method", "status"):
            for tool, session in ((listed[name], LISTED_SESSION_PROPERTY),
                                  (full.get(name), SESSION_PROPERTY)):
                described = schemas.describe(tool)
                self.assertEqual(
                    described["inputSchema"]["properties"]["session"],
                    session)
        self.assertEqual(
            envelope.mirroredParameters(schemas.schemaOf(listed["status"])),
            {"session": "Session"})
        self.assertLess(len(SESSION_PROPERTY["description"]), 40)

    def test_callSchema(self):
        """
        The schema a call's arguments and headers are checked against is
        the tool's whole input schema (its caps kept), with C{session} for
        a tool that takes one, made once per tool.
        """
        full = ToolCatalog.named()
        schemas = ToolSchemas()
        compile = full.get("compile_method")
        schema = schemas.schemaOf(compile)
        self.assertEqual(schema, dict(compile.inputSchema, properties=dict(
            compile.inputSchema["properties"], session=SESSION_PROPERTY)))
        self.assertIs(schemas.schemaOf(compile), schema)
        offline = Tool("offline", "Offline", "d", closedSchema(),
                       annotations(readOnly=True), None, runsOn=NO_SESSION)
        self.assertEqual(schemas.schemaOf(offline), offline.inputSchema)

    def test_mirroredHeaderChecked(self):
        schema = ToolSchemas().schemaOf(COMPILE)
        envelope.checkParameterHeaders(schema, {"session": "h1"},
                                       {"mcp-param-session": ["h1"]},
                                       lambda: True)
        self.assertRaises(JsonRpcError, envelope.checkParameterHeaders, schema,
                          {"session": "h1"}, {}, lambda: True)

    def test_takeHandle(self):
        self.assertEqual(takeHandle({"session": "h", "className": "A"}),
                         ("h", {"className": "A"}))
        self.assertEqual(takeHandle({"className": "A"}),
                         (None, {"className": "A"}))

    def test_handleNotAString(self):
        """
        A handle that is not a string is refused as invalid params naming
        the argument, before it could reach the registry.
        """
        for handle in (["a"], {"a": 1}, 5, True):
            error = self.assertRaises(JsonRpcError, takeHandle,
                                      {"session": handle})
            self.assertEqual(error.code, INVALID_PARAMS)
            self.assertIn("'session'", error.message)


class RefusalTests(SynchronousTestCase):

    def test_needsHandle(self):
        tool = Tool("delete_class", "t", "d", closedSchema(),
                    annotations(readOnly=False), None)
        error = needsHandle(tool)
        self.assertEqual(error.kind, "refused")
        self.assertIn("open_session", error.message)

    def test_noSuchHandle(self):
        """
        A handle a daemon could have minted that names nothing here is a
        JSON-RPC error the 2026 era answers 404, as the 2025 era answers an
        unknown session id.
        """
        handle = "0123456789abcdef" * 2
        error = noSuchHandle(handle)
        self.assertIn(repr(handle), error.message)
        self.assertEqual(error.data, {"kind": "noSuchSession",
                                      "session": handle})
        self.assertEqual(envelope.httpStatus(error.code), 404)

    def test_notAHandle(self):
        """
        A value no daemon mints never named a session: the tool refuses its
        argument, it is not routed anywhere (HTTP 200, a tool error).
        """
        for value in ("abc", "Hello", "0123456789ABCDEF" * 2, "0" * 31):
            error = noSuchHandle(value)
            self.assertIsInstance(error, ToolError)
            self.assertEqual((error.kind, error.details),
                             ("refused", {"session": value}))


class SessionToolsTests(SynchronousTestCase):
    """
    C{open_session} and C{close_session}, whose results meet their output
    schema's strict form as every tool's do.
    """

    def setUp(self):
        self.open, self.close = HANDLE_TOOLS

    def test_open(self):
        result = opened("h2")
        self.assertEqual(result.structured, {"session": "h2"})
        checkStructured(self.open, result.structured)
        self.assertIn("h2", result.text)

    def test_close(self):
        result = closed("h1")
        checkStructured(self.close, result.structured)
        self.assertIn("Closed GemStone session h1", result.text)
        error = noSuchHandle("nope")
        self.assertIsInstance(error, ToolError)
        self.assertIn("open_session", error.message)

    def test_schemas(self):
        self.open.validate({})
        self.close.validate({"session": "h1"})
        self.assertRaises(ToolError, self.close.validate, {})

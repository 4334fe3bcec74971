"""
Tests for L{gsmcpd.protocol.catalogsurface}, and the catalog surface end
to end in memory in both eras, on the simulated stone: C{tools/list} and
the instructions measured as the bench measures them, and C{tool_call}
meeting what a direct call meets.
"""

import json

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.observe.audit import AuditLog
from gsmcpd.protocol.catalogsurface import (
    CATALOG_PARAGRAPH, catalogInstructions, unwrapCall)
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.protocol.instructions import stockInstructions
from gsmcpd.protocol.jsonrpc import Message
from gsmcpd.tools.catalog import CORE_TOOLSETS, ToolCatalog, buildToolsets
from gsmcpd.tools.catalogtools import CatalogSurface
from tests.test_modern import META, ModernTestCase, modern
from tests.test_web import request
from tests.toolharness import StonePool, ToolHarness

ALL = tuple(CORE_TOOLSETS)
BUDGET = 8000
"""Bytes of tools/list (compact JSON) and instructions, as bench/run.py
counts them."""


def call(name, arguments, **params):
    return Message("request", "tools/call", 3, dict(
        params, name=name, arguments=arguments), {})


class UnwrapTests(SynchronousTestCase):

    def setUp(self):
        self.catalog = CatalogSurface(buildToolsets(ALL))

    def test_unwrapped(self):
        message = unwrapCall(self.catalog, call(
            "tool_call", {"name": "find_senders",
                          "arguments": {"selector": "x"}},
            _meta={"progressToken": 9}))
        self.assertEqual(message.params, {
            "name": "find_senders", "arguments": {"selector": "x"},
            "_meta": {"progressToken": 9}})
        self.assertEqual((message.id, message.method), (3, "tools/call"))

    def test_noArguments(self):
        message = unwrapCall(self.catalog, call("tool_call",
                                                {"name": "status"}))
        self.assertEqual(message.params["arguments"], {})

    def test_leftAlone(self):
        """
        Anything but a valid call of another tool through tool_call is
        answered as it came: by the tool_call tool's own validation.
        """
        for message in (call("status", {}),
                        call("tool_call", {"arguments": {}}),
                        call("tool_call", "status"),
                        call("tool_call", {"name": "tool_call"}),
                        Message("request", "tools/list", 1, {}, {})):
            self.assertIs(unwrapCall(self.catalog, message), message)

    def test_fullSurfaceHasNoToolCall(self):
        message = call("tool_call", {"name": "status"})
        self.assertIs(unwrapCall(ToolCatalog.named(), message), message)

    def test_instructions(self):
        toolsets = buildToolsets(ALL)
        text = catalogInstructions(toolsets)
        self.assertTrue(text.startswith(stockInstructions(toolsets)))
        self.assertTrue(text.endswith(CATALOG_PARAGRAPH))
        self.assertIn("tool_search", text)


class ScopeTests(SynchronousTestCase):

    def test_toolCallMeetsTheScopes(self):
        """
        A token whose scopes leave out the mutation toolset cannot reach
        its tools through tool_call either.
        """
        harness = ToolHarness(ALL, tools=CatalogSurface(buildToolsets(ALL)))
        harness.session.principal = Principal(
            "ada", "DataCurator", frozenset(), 0,
            toolsets=frozenset({"browsing"}))
        message = unwrapCall(harness.tools, call(
            "tool_call", {"name": "remove_dictionary",
                          "arguments": {"dictionaryName": "Banking"}}))
        response = self.successResultOf(
            harness.legacy.answer(harness.client, message))
        self.assertIn("unknown tool 'remove_dictionary'",
                      response["error"]["message"])


class CatalogTransportTests(ModernTestCase):

    def makePool(self):
        return StonePool()

    def setUp(self):
        super().setUp()
        toolsets = buildToolsets(ALL)
        self.serve(Handlers(CatalogSurface(toolsets), ServerIdentity(
            instructions=catalogInstructions(toolsets),
            modernInstructions=catalogInstructions(toolsets, True))))

    def makeHandlers(self):
        return Handlers(ToolCatalog.named(), ServerIdentity())

    @inlineCallbacks
    def test_2025UnderBudget(self):
        """
        As the bench counts it: tools/list as compact JSON plus the
        instructions C{initialize} answered.
        """
        handle, opened = yield self.initialize()
        _, body = yield self.post(request("tools/list"), handle)
        tools = body["result"]["tools"]
        size = len(json.dumps(tools, ensure_ascii=False,
                              separators=(",", ":")).encode()) + \
            len(opened["result"]["instructions"].encode())
        self.assertLess(size, BUDGET)
        self.assertEqual(len(tools), 12)

    @inlineCallbacks
    def test_2026UnderBudget(self):
        """
        The same in the 2026 era, with open_session, close_session and the
        session argument: tools/list as compact JSON plus the instructions
        server/discover answered.  The argument is described once, in the
        instructions, and the listing leaves titles and the default caps
        to tool_get.
        """
        _, listed = yield self.send(modern("tools/list"))
        _, discovered = yield self.send(modern("server/discover", 9))
        tools = listed["result"]["tools"]
        instructions = discovered["result"]["instructions"]
        size = len(json.dumps(tools, ensure_ascii=False,
                              separators=(",", ":")).encode()) + \
            len(instructions.encode())
        self.assertLess(size, BUDGET)
        self.assertEqual(len(tools), 14)
        self.assertIn("'session' argument", instructions)
        compile = next(t for t in tools if t["name"] == "compile_method")
        self.assertEqual(compile["inputSchema"]["properties"]["session"],
                         {"type": "string", "x-mcp-header": "Session"})
        self.assertNotIn("title", compile)
        self.assertNotIn("maxLength", json.dumps(compile))

    @inlineCallbacks
    def test_2025GuardrailsThroughToolCall(self):
        """
        Removing a dictionary that holds classes needs them listed first,
        through tool_call as directly; then it is removed, and the
        session's note is there as after a direct call.
        """
        handle, _ = yield self.initialize()
        body = yield self.call(handle, "tool_call", {
            "name": "remove_dictionary",
            "arguments": {"dictionaryName": "Banking"}})
        self.assertTrue(body["result"]["isError"])
        self.assertIn("list_classes", body["result"]["content"][0]["text"])
        body = yield self.call(handle, "tool_call", {
            "name": "list_classes",
            "arguments": {"dictionaryName": "Banking"}})
        self.assertFalse(body["result"].get("isError"), body)
        body = yield self.call(handle, "tool_call", {
            "name": "remove_dictionary",
            "arguments": {"dictionaryName": "Banking"}})
        self.assertEqual(body["result"]["structuredContent"]
                         ["dictionaryName"], "Banking")
        self.assertIn("[session]", body["result"]["content"][-1]["text"])

    @inlineCallbacks
    def test_2025AuditedUnderTheCalledName(self):
        events = []
        self.watch(AuditLog(events.append, "DataCurator"))
        handle, _ = yield self.initialize()
        yield self.call(handle, "tool_call", {"name": "list_dictionaries"})
        self.assertEqual([(event["event"], event["tool"],
                           event.get("outcome")) for event in events],
                         [("callStarted", "list_dictionaries", None),
                          ("toolCall", "list_dictionaries", "ok")])

    @inlineCallbacks
    def test_2025DirectCallOfAnUnlistedTool(self):
        handle, _ = yield self.initialize()
        body = yield self.call(handle, "list_dictionaries", {})
        self.assertFalse(body["result"].get("isError"), body)

    @inlineCallbacks
    def test_2025ValidationThroughToolCall(self):
        handle, _ = yield self.initialize()
        body = yield self.call(handle, "tool_call", {
            "name": "remove_dictionary", "arguments": {"dictionary": "X"}})
        self.assertTrue(body["result"]["isError"])
        self.assertIn("invalid arguments for remove_dictionary",
                      body["result"]["content"][0]["text"])
        _, body = yield self.post(request("tools/call", 5, name="tool_call",
                                          arguments={"name": "zebra"}),
                                  handle)
        self.assertIn("unknown tool 'zebra'", body["error"]["message"])

    @inlineCallbacks
    def test_2026(self):
        """
        In the 2026 era the everyday set, the catalog tools and
        open_session/close_session are listed; a session opened through
        tool_call holds the guardrail's ledger across calls made through
        it, as a direct one does, and its handle is mirrored in the
        Mcp-Param-Session header as for a direct call.
        """
        response, body = yield self.send(modern("tools/list"))
        names = {tool["name"] for tool in body["result"]["tools"]}
        self.assertIn("tool_search", names)
        self.assertIn("open_session", names)
        self.assertNotIn("remove_dictionary", names)
        self.assertNotIn("session", json.dumps(
            [t["inputSchema"] for t in body["result"]["tools"]
             if t["name"].startswith("tool_")]))
        opened = yield self.tool("tool_call", {"name": "open_session"},
                                 mcp_name="tool_call")
        handle = opened["structuredContent"]["session"]
        removal = {"name": "remove_dictionary", "arguments": {
            "dictionaryName": "Banking", "session": handle}}
        response, body = yield self.send(modern(
            "tools/call", 8, name="tool_call", arguments=removal))
        self.assertIn("Mcp-Param-Session is missing",
                      body["error"]["message"])
        routed = {"mcp_param_session": handle}
        result = yield self.tool("tool_call", removal, **routed)
        self.assertIn("list_classes", result["content"][0]["text"])
        yield self.tool("tool_call", {"name": "list_classes", "arguments": {
            "dictionaryName": "Banking", "session": handle}}, **routed)
        result = yield self.tool("tool_call", removal, **routed)
        self.assertFalse(result.get("isError"), result)
        found = yield self.tool("tool_search", {"query": "delete dictionary"})
        self.assertEqual(found["structuredContent"]["tools"][0]["name"],
                         "remove_dictionary")

    @inlineCallbacks
    def test_2026HeaderNamesToolCall(self):
        """
        The Mcp-Name header names the tool the body names: tool_call.
        """
        response, body = yield self.send(modern(
            "tools/call", 4, name="tool_call",
            arguments={"name": "status"}), mcp_name="status")
        self.assertEqual(response.code, 400, body)

"""
Tests for L{gsmcpd.protocol.catalogsurface}, and the catalog surface end
to end in memory in both eras, on the simulated stone: C{tools/list} and
the instructions measured as the bench measures them, and C{tool_call}
meeting what a direct call meets.
"""

import json

import attr
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.observe.audit import AuditLog
from gsmcpd.protocol.catalogsurface import mirroringShown, unwrapCall
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError, Message
from gsmcpd.tools.catalog import CORE_TOOLSETS, ToolCatalog, buildToolsets
from gsmcpd.tools.catalogtools import CatalogSurface
from gsmcpd.tools.instructions import (
    CATALOG_PARAGRAPH,
    catalogInstructions,
    stockInstructions,
)
from tests.toolharness import StonePool, ToolHarness
from tests.transport.test_modern import ModernTestCase, modern
from tests.transport.test_web import request

ALL = tuple(CORE_TOOLSETS)
BUDGET = 8000
"""Bytes of tools/list (compact JSON) and instructions, as
gsmcpd/testing/bench/run.py
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

    def test_lifted(self):
        """
        An argument the era adds to tool_call's schema is passed on among
        the called tool's arguments; given there too, it must agree.
        """
        message = unwrapCall(self.catalog, call(
            "tool_call", {"name": "status", "session": "h"}),
            lifted=("session",))
        self.assertEqual(message.params["arguments"], {"session": "h"})
        message = unwrapCall(self.catalog, call(
            "tool_call", {"name": "status", "session": "h",
                          "arguments": {"session": "h"}}),
            lifted=("session",))
        self.assertEqual(message.params["arguments"], {"session": "h"})
        error = self.assertRaises(
            JsonRpcError, unwrapCall, self.catalog, call(
                "tool_call", {"name": "status", "session": "h",
                              "arguments": {"session": "g"}}),
            lifted=("session",))
        self.assertEqual(error.code, INVALID_PARAMS)
        original = call("tool_call", {"name": "status", "session": "h"})
        self.assertIs(unwrapCall(self.catalog, original), original)

    def test_mirroringShown(self):
        """
        A listed tool's client was shown its headers' declaration; an
        unlisted one's was not; through tool_call, it was when the lifted
        argument was tool_call's own.
        """
        def sent(name, arguments):
            message = call(name, arguments)
            return attr.evolve(message, raw={"params": message.params})

        lifted = ("session",)
        for message, shown in [
                (sent("describe_class", {}), True),
                (sent("list_classes", {}), False),
                (sent("tool_call", {"name": "list_classes",
                                    "session": "h"}), True),
                (sent("tool_call", {"name": "describe_class", "arguments": {
                    "session": "h"}}), False)]:
            unwrapped = unwrapCall(self.catalog, message, lifted)
            self.assertEqual(mirroringShown(self.catalog, unwrapped, lifted),
                             shown, message.params)

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
        open_session/close_session are listed; tool_call takes the handle
        as its own session argument, declared for mirroring as a GemStone
        tool's is, and a session opened through tool_call holds the
        guardrail's ledger across calls made through it, as a direct one
        does.
        """
        response, body = yield self.send(modern("tools/list"))
        listed = {tool["name"]: tool for tool in body["result"]["tools"]}
        self.assertIn("tool_search", listed)
        self.assertIn("open_session", listed)
        self.assertNotIn("remove_dictionary", listed)
        self.assertEqual(
            listed["tool_call"]["inputSchema"]["properties"]["session"],
            {"type": "string", "x-mcp-header": "Session"})
        self.assertNotIn("session", json.dumps(
            [listed[name]["inputSchema"]
             for name in ("tool_search", "tool_get")]))
        opened = yield self.tool("tool_call", {"name": "open_session"},
                                 mcp_name="tool_call")
        handle = opened["structuredContent"]["session"]
        removal = {"name": "remove_dictionary", "session": handle,
                   "arguments": {"dictionaryName": "Banking"}}
        routed = {"mcp_param_session": handle}
        result = yield self.tool("tool_call", removal, **routed)
        self.assertIn("list_classes", result["content"][0]["text"])
        yield self.tool("tool_call", {"name": "list_classes", "arguments": {
            "dictionaryName": "Banking"}, "session": handle}, **routed)
        result = yield self.tool("tool_call", removal, **routed)
        self.assertFalse(result.get("isError"), result)
        found = yield self.tool("tool_search", {"query": "delete dictionary"})
        self.assertEqual(found["structuredContent"]["tools"][0]["name"],
                         "remove_dictionary")

    @inlineCallbacks
    def test_2026ToolCallsSessionIsMirrored(self):
        """
        tool_call's listing declares its session for mirroring, so a call
        giving it there without the header is refused, as a direct call of
        a listed tool is; a header that disagrees is refused too.
        """
        handle = yield self.openSession()
        call = {"name": "list_dictionaries", "session": handle}
        for headers in ({}, {"mcp_param_session": handle + "x"}):
            response, body = yield self.send(modern(
                "tools/call", 4, name="tool_call", arguments=call), **headers)
            self.assertEqual((response.code, body["error"]["code"]),
                             (400, -32020), body)

    @inlineCallbacks
    def test_2026HandleAmongTheCalledToolsArguments(self):
        """
        The handle among the called tool's arguments (as tool_get shows its
        schema) needs no header, since no listing asked the client to
        mirror it there; one sent must agree.  Given in both places, the
        two must be the same.
        """
        handle = yield self.openSession()
        inner = {"name": "list_classes", "arguments": {
            "dictionaryName": "Banking", "session": handle}}
        result = yield self.tool("tool_call", inner)
        self.assertFalse(result.get("isError"), result)
        result = yield self.tool("tool_call", dict(inner, session=handle),
                                 mcp_param_session=handle)
        self.assertFalse(result.get("isError"), result)
        response, body = yield self.send(modern(
            "tools/call", 4, name="tool_call", arguments=inner),
            mcp_param_session="elsewhere")
        self.assertEqual(body["error"]["code"], -32020, body)
        response, body = yield self.send(modern(
            "tools/call", 5, name="tool_call",
            arguments=dict(inner, session="another")),
            mcp_param_session="another")
        self.assertEqual((response.code, body["error"]["code"]),
                         (400, -32602), body)

    @inlineCallbacks
    def test_2026DirectCallOfAnUnlistedTool(self):
        """
        A served tool the surface does not list is called with the handle
        and no header (its client never saw a schema declaring one), in
        the session the handle names; a listed tool still needs the
        header.
        """
        handle = yield self.openSession()
        result = yield self.tool("remove_dictionary", {
            "dictionaryName": "Banking", "session": handle})
        self.assertIn("list_classes", result["content"][0]["text"])
        yield self.tool("list_classes", {"dictionaryName": "Banking",
                                         "session": handle})
        result = yield self.tool("remove_dictionary", {
            "dictionaryName": "Banking", "session": handle})
        self.assertFalse(result.get("isError"), result)
        response, body = yield self.send(modern(
            "tools/call", 4, name="list_classes", arguments={
                "dictionaryName": "Globals", "session": handle}),
            mcp_param_session="elsewhere")
        self.assertEqual(body["error"]["code"], -32020, body)
        response, body = yield self.send(modern(
            "tools/call", 5, name="describe_class", arguments={
                "className": "Account", "session": handle}))
        self.assertIn("Mcp-Param-Session is missing",
                      body["error"]["message"])

    @inlineCallbacks
    def test_2026ToolGetShowsTheSessionArgument(self):
        """
        tool_get answers a tool as this era declares it: with the session
        argument in 2026, without it in 2025.
        """
        result = yield self.tool("tool_get",
                                 {"name": "compile_class_definition"})
        schema = result["structuredContent"]["tool"]["inputSchema"]
        self.assertEqual(schema["properties"]["session"]["x-mcp-header"],
                         "Session")
        self.assertIn("title", result["structuredContent"]["tool"])
        handle, _ = yield self.initialize()
        body = yield self.call(handle, "tool_get",
                               {"name": "compile_class_definition"})
        self.assertNotIn("session", body["result"]["structuredContent"]
                         ["tool"]["inputSchema"]["properties"])

    @inlineCallbacks
    def test_2026InvalidToolCallWithSession(self):
        """
        A call of tool_call that names no tool is refused for that, not
        for the session it was given.
        """
        handle = yield self.openSession()
        result = yield self.tool("tool_call", {"session": handle},
                                 mcp_param_session=handle)
        self.assertTrue(result["isError"])
        text = result["content"][0]["text"]
        self.assertIn("'name' is a required property", text)
        self.assertNotIn("session", text)

    @inlineCallbacks
    def test_2026HeaderNamesToolCall(self):
        """
        The Mcp-Name header names the tool the body names: tool_call.
        """
        response, body = yield self.send(modern(
            "tools/call", 4, name="tool_call",
            arguments={"name": "status"}), mcp_name="status")
        self.assertEqual(response.code, 400, body)

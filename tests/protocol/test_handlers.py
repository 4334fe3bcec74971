"""
Tests for L{gsmcpd.protocol.handlers}, with no HTTP: each MCP method
answered from parsed messages on a 2025 client's session over a fake gem,
through the 2025 era's adapter.  (The transport's tests,
L{tests.transport.test_web} and L{tests.protocol.test_surface}, drive the same
methods through the Klein app, and L{tests.transport.test_modern} in the 2026
era.)
"""

import json

import attr
from twisted.internet.defer import fail, succeed
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.gci.errors import GciError
from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol.eras.legacy.dialect import LegacyDialect
from gsmcpd.protocol.eras.modern.dialect import ModernDialect
from gsmcpd.protocol.eras.modern.handles import HANDLE_TOOLS
from gsmcpd.protocol.eras.modern.results import complete
from gsmcpd.protocol.facts import LEGACY, RequestFacts
from gsmcpd.protocol.handlers import (
    RESOURCE_NOT_FOUND,
    Handlers,
    ServerIdentity,
    answersAsStream,
    unknownTool,
)
from gsmcpd.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    JsonRpcError,
    parseMessage,
)
from gsmcpd.protocol.methods import MethodTable
from gsmcpd.protocol.versions import (
    LATEST_LEGACY_VERSION,
    LEGACY_VERSIONS,
    negotiateVersion,
)
from gsmcpd.sessions.notes import SESSION_NOTE
from gsmcpd.tools.base import Tool, Toolset, annotations, closedSchema
from gsmcpd.tools.catalog import ToolCatalog, buildToolsets
from gsmcpd.tools.offerings import Prompt, Resource, ResourceTemplate
from gsmcpd.tools.templates.outcomes import CallBroken, ToolError
from tests.builders import clientSession, legacyEra
from tests.fakes import FakeGem
from tests.tooldoubles import CHANGING


def message(method, id=1, **params):
    document = {"jsonrpc": "2.0", "method": method, "params": params}
    if id is not None:
        document["id"] = id
    return parseMessage(json.dumps(document).encode())


class Offering(Toolset):
    """
    A toolset offering one of everything, each failing as told.
    """

    name = "offering"
    usesLogging = True

    def __init__(self):
        super().__init__()
        self.failure = None
        self.completions = []

    def answer(self, value):
        return succeed(value) if self.failure is None else fail(self.failure)

    def tools(self):
        return [Tool("streamer", "Streamer", "sends as it runs",
                     closedSchema(), annotations(readOnly=True),
                     run=lambda call, arguments: None, streams=True)]

    def resources(self):
        return [Resource("gemstone://status", "status",
                         read=lambda call, uri: self.answer(
                             [{"uri": uri, "text": "ok"}]))]

    def resourceTemplates(self):
        return [ResourceTemplate(
            "gemstone://class/{className}", "class",
            read=lambda call, uri, className: self.answer(
                [{"uri": uri, "text": className}]),
            complete=lambda name, value: self.answer(
                [c for c in self.completions if c.startswith(value)]))]

    def prompts(self):
        return [Prompt("review", get=lambda arguments: [
            {"role": "user", "content": {"type": "text",
                                         "text": arguments["className"]}}],
            arguments=({"name": "className", "required": True},),
            description="Review a class")]


class HandlersTestCase(SynchronousTestCase):

    def setUp(self):
        self.offering = Offering()
        self.legacy = legacyEra(
            ToolCatalog([*buildToolsets(["execution"]), self.offering]))
        self.handlers = self.legacy.handlers
        self.gem = FakeGem()
        self.client = clientSession(self.gem, "h1", LATEST_LEGACY_VERSION)
        self.session = self.client.work

    def handle(self, method, id=1, **params):
        return self.successResultOf(self.legacy.answer(
            self.client, message(method, id, **params)))

    def errorCode(self, method, **params):
        answer = self.handle(method, **params)
        self.assertEqual(answer["id"], 1)
        return answer["error"]["code"]


class NegotiationTests(SynchronousTestCase):

    def test_echoesWhatItSpeaks(self):
        for version in LEGACY_VERSIONS:
            self.assertEqual(negotiateVersion(version), version)

    def test_otherwiseItsLatest(self):
        for version in ("2024-11-05", "2099-01-01", None):
            self.assertEqual(negotiateVersion(version),
                             LATEST_LEGACY_VERSION)


class DiscoverTests(SynchronousTestCase):
    """
    C{server/discover} in both eras' shapes.
    """

    SERVER = {"name": "gsmcpd", "version": "1.0"}
    CAPABILITIES = {"tools": {"listChanged": False}, "prompts": {}}

    def discover(self, dialect):
        handlers = Handlers(ToolCatalog([]), ServerIdentity(version="1.0"))
        return handlers.discover(RequestFacts(
            "server/discover", {}, 1, dialect, {}))

    def test_modern(self):
        """
        The 2026 shape: all three revisions, capabilities, instructions,
        the server named in C{_meta}, and the dress of a cacheable result.
        """
        self.assertEqual(
            complete("server/discover", self.discover(ModernDialect(
                "Browse before you edit.", self.CAPABILITIES, None, (),
                {}))),
            {"supportedVersions": ["2025-06-18", "2025-11-25", "2026-07-28"],
             "capabilities": self.CAPABILITIES,
             "instructions": "Browse before you edit.",
             "_meta": {"io.modelcontextprotocol/serverInfo": self.SERVER},
             "resultType": "complete", "ttlMs": 3_600_000,
             "cacheScope": "public"})

    def test_legacy(self):
        """
        Inside a 2025 session: the same facts, the server named in the body
        as C{initialize} names it.
        """
        self.assertEqual(
            self.discover(LegacyDialect(None, self.CAPABILITIES)),
            {"supportedVersions": ["2025-06-18", "2025-11-25", "2026-07-28"],
             "capabilities": self.CAPABILITIES, "serverInfo": self.SERVER})


class MethodTests(HandlersTestCase):

    def test_notificationIsNotAnswered(self):
        self.assertIsNone(self.handle("notifications/initialized", id=None))

    def test_ping(self):
        self.assertEqual(self.handle("ping", id="a"),
                         {"jsonrpc": "2.0", "id": "a", "result": {}})

    def test_unknownMethod(self):
        self.assertEqual(self.errorCode("tools/destroy"), METHOD_NOT_FOUND)

    def test_methodsOfWhatIsNotServed(self):
        """
        A server serving no resources has no resource methods at all.
        """
        plain = legacyEra(ToolCatalog.named(["execution"]))
        for method in ("resources/read", "prompts/get", "completion/complete",
                       "logging/setLevel"):
            answer = self.successResultOf(plain.answer(
                self.client, message(method)))
            self.assertEqual(answer["error"]["code"], METHOD_NOT_FOUND)

    def test_initializeTwice(self):
        self.assertEqual(self.errorCode("initialize"), INVALID_REQUEST)

    def test_cursorsWereNeverIssued(self):
        for method in ("tools/list", "resources/list",
                       "resources/templates/list", "prompts/list"):
            self.assertEqual(self.errorCode(method, cursor="x"),
                             INVALID_PARAMS, method)

    def test_setLevel(self):
        self.assertEqual(self.handle("logging/setLevel", level="error")
                         ["result"], {})
        self.assertEqual(self.client.logs.level, "error")
        self.assertEqual(self.errorCode("logging/setLevel", level="loud"),
                         INVALID_PARAMS)

    def test_subscriptions(self):
        self.handle("resources/subscribe", uri="gemstone://status")
        self.assertEqual(self.client.subscriptions, {"gemstone://status"})
        self.handle("resources/unsubscribe", uri="gemstone://status")
        self.assertEqual(self.client.subscriptions, set())
        self.assertEqual(self.errorCode("resources/subscribe"),
                         INVALID_PARAMS)


class ToolsCallTests(HandlersTestCase):

    def call(self, **params):
        return self.handle("tools/call", **params)["result"]

    def test_answer(self):
        result = self.call(name="execute_code", arguments={"code": "3+4"})
        self.assertFalse(result["isError"])
        self.assertEqual(self.gem.calls[0][0], "execute_code")

    def test_uncommittedChangesAreNoted(self):
        self.gem.needsCommit = True
        result = self.call(name="execute_code", arguments={"code": "x"})
        self.assertEqual(result["content"][-1],
                         {"type": "text", "text": SESSION_NOTE})

    def test_viewNoticesGoOutOnce(self):
        self.session.view.notices.append("[view] refreshed")
        first = self.call(name="execute_code", arguments={"code": "x"})
        second = self.call(name="execute_code", arguments={"code": "x"})
        self.assertIn({"type": "text", "text": "[view] refreshed"},
                      first["content"])
        self.assertNotIn({"type": "text", "text": "[view] refreshed"},
                         second["content"])

    def test_noSuchTool(self):
        self.assertEqual(self.errorCode("tools/call", name="nope"),
                         INVALID_PARAMS)
        self.assertEqual(self.errorCode("tools/call"), INVALID_PARAMS)

    def test_badArgumentsAreAToolError(self):
        """
        The model can read and fix bad arguments, so they answer a tool
        result with C{isError}, not a protocol error.
        """
        for arguments in (["x"], {"code": 3}, {"code": "x", "extra": 1}):
            result = self.call(name="execute_code", arguments=arguments)
            self.assertTrue(result["isError"], arguments)
            self.assertEqual(result["structuredContent"]["error"]["kind"],
                             "invalidParams")
        self.assertEqual(self.gem.calls, [])

    def test_breakIsAToolError(self):
        def broken(arguments):
            raise GciError(6003, "a Break occurred")
        self.gem.results["execute_code"] = broken
        result = self.call(name="execute_code", arguments={"code": "x"})
        self.assertTrue(result["isError"])
        self.assertEqual(result["structuredContent"]["error"]["number"], 6003)


class ResourcesReadTests(HandlersTestCase):

    def test_fixedAndTemplated(self):
        self.assertEqual(
            self.handle("resources/read", uri="gemstone://class/Account")
            ["result"]["contents"][0]["text"], "Account")
        self.assertEqual(
            self.handle("resources/read", uri="gemstone://status")
            ["result"]["contents"][0]["text"], "ok")

    def test_unknownUri(self):
        answer = self.handle("resources/read", uri="gemstone://nowhere")
        self.assertEqual(answer["error"]["code"], RESOURCE_NOT_FOUND)
        self.assertEqual(answer["error"]["data"],
                         {"uri": "gemstone://nowhere"})

    def test_failures(self):
        """
        A GemStone failure during a read answers JSON-RPC, never an
        unhandled failure for the transport to turn into a 500.
        """
        for failure, code in [
                (ToolError("notFound", "no class"), RESOURCE_NOT_FOUND),
                (ToolError("other", "broke"), INTERNAL_ERROR),
                (CallBroken(6003), INTERNAL_ERROR)]:
            self.offering.failure = failure
            self.assertEqual(self.errorCode(
                "resources/read", uri="gemstone://class/X"), code, failure)

    def test_uriRequired(self):
        self.assertEqual(self.errorCode("resources/read", uri=""),
                         INVALID_PARAMS)


class PromptAndCompletionTests(HandlersTestCase):

    def test_prompt(self):
        result = self.handle("prompts/get", name="review",
                             arguments={"className": "Account"})["result"]
        self.assertEqual(result["description"], "Review a class")
        self.assertEqual(result["messages"][0]["content"]["text"], "Account")

    def test_promptArguments(self):
        self.assertEqual(self.errorCode("prompts/get", name="review"),
                         INVALID_PARAMS)
        self.assertEqual(self.errorCode("prompts/get", name="nope"),
                         INVALID_PARAMS)

    def complete(self, value):
        return self.handle(
            "completion/complete",
            ref={"type": "ref/resource",
                 "uri": "gemstone://class/{className}"},
            argument={"name": "className", "value": value})

    def test_completionCappedAtAHundred(self):
        self.offering.completions = [f"C{n}" for n in range(150)]
        completion = self.complete("C")["result"]["completion"]
        self.assertEqual((len(completion["values"]), completion["total"],
                          completion["hasMore"]), (100, 150, True))

    def test_completionFailure(self):
        self.offering.failure = ToolError("refused", "no such namespace")
        error = self.complete("C")["error"]
        self.assertEqual((error["code"], error["message"]),
                         (INTERNAL_ERROR, "no such namespace"))

    def test_completionIsAnsweredFromMemory(self):
        """
        A completer is given no gem and no call context, so completion is
        not run as a GemStone call (nothing to end, nothing to stream).
        """
        methods = MethodTable(self.handlers)
        self.assertFalse(methods.find("completion/complete", LEGACY).call)
        self.assertTrue(methods.find("tools/call", LEGACY).call)
        self.assertTrue(methods.find("resources/read", LEGACY).call)

    def test_nothingToComplete(self):
        self.assertEqual(self.errorCode(
            "completion/complete", ref={"type": "ref/prompt", "name": "x"}),
            INVALID_PARAMS)

    def test_shapesThatAreNotObjects(self):
        """
        A C{ref}, C{argument} or prompt C{arguments} that is not an object,
        or a prompt named by no string, is invalid params, not an internal
        error.
        """
        for method, params in (
                ("completion/complete", {"ref": ["ref/prompt"]}),
                ("completion/complete", {
                    "ref": {"type": "ref/resource",
                            "uri": "gemstone://class/{className}"},
                    "argument": "className"}),
                ("completion/complete", {
                    "ref": {"type": "ref/prompt", "name": ["review"]}}),
                ("prompts/get", {"name": "review", "arguments": ["x"]})):
            self.assertEqual(self.errorCode(method, **params),
                             INVALID_PARAMS, (method, params))


class ToolNamedTests(SynchronousTestCase):
    """
    The tool a request calls, as its token's scopes allow.
    """

    def setUp(self):
        self.handlers = Handlers(ToolCatalog(buildToolsets(
            ("execution", "session"))), ServerIdentity())

    def test_inScope(self):
        principal = Principal("a", "Alice", frozenset(), 0.0,
                              toolsets=frozenset({"execution"}))
        self.assertEqual(self.handlers.toolNamed(principal,
                                                 "execute_code").name,
                         "execute_code")

    def test_notInScopeRefused(self):
        """
        A served tool the scopes do not open is refused as C{notInScope},
        told as the tool that does not exist; none by the name is none.
        """
        principal = Principal("a", "Alice", frozenset(), 0.0,
                              toolsets=frozenset({"session"}))
        refusal = self.assertRaises(CallRefused, self.handlers.toolNamed,
                                    principal, "execute_code")
        self.assertEqual((refusal.kind, refusal.error.message), (
            "notInScope", "Invalid params: unknown tool 'execute_code'"))
        self.assertIsNone(self.handlers.toolNamed(principal, "nothing"))
        self.assertIsNone(self.handlers.toolNamed(None, 7))

    def test_toolCalled(self):
        """
        A call's tool is looked up once for either era: its era's own
        first (the 2026 era's handle tools), then the catalog's; none by
        the name, or no name, is answered as such before the call runs.
        """
        own = HANDLE_TOOLS[0]
        legacy = attr.evolve(legacyEra(self.handlers.tools).dialect,
                             handleTools=(own,))
        self.assertIs(self.handlers.toolCalled(
            legacy, None, {"name": own.name}), own)
        self.assertEqual(self.handlers.toolCalled(
            legacy, None, {"name": "execute_code"}).name, "execute_code")
        for params, said in (({"name": "nope"}, "unknown tool 'nope'"),
                             ({}, "needs a tool name")):
            error = self.assertRaises(JsonRpcError, self.handlers.toolCalled,
                                      legacy, None, params)
            self.assertIn(said, error.message)


class NamingTests(SynchronousTestCase):

    def test_unknownTool(self):
        self.assertEqual(unknownTool({"name": "nope"}).code, INVALID_PARAMS)
        self.assertIn("unknown tool 'nope'",
                      unknownTool({"name": "nope"}).message)
        for params in ({}, {"name": 3}, {"name": None}):
            self.assertIn("needs a tool name", unknownTool(params).message)

    def test_answersAsStream(self):
        self.assertFalse(answersAsStream({}, CHANGING))
        self.assertFalse(answersAsStream({}, None))
        self.assertTrue(answersAsStream({"_meta": {"progressToken": 1}},
                                        None))
        self.assertTrue(answersAsStream(
            {}, Tool("s", "S", "d", closedSchema(),
                     annotations(readOnly=True), None, streams=True)))

"""
Resources, prompts, completion, logging, server-to-client requests on a
call's own stream, and resuming a stream with Last-Event-ID: in memory,
through the conformance fixtures.
"""

import json

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.testing.conformance import TOOLSET
from gsmcpd.tools.catalog import ToolCatalog, buildToolsets
from tests.sessions.test_lifetime import events
from tests.transport.test_web import Collector, TransportTestCase, request

SSE = {"accept": ["application/json, text/event-stream"]}


class SurfaceTestCase(TransportTestCase):

    def makeHandlers(self):
        return Handlers(ToolCatalog(buildToolsets(
            ["execution", TOOLSET])), ServerIdentity())

    @inlineCallbacks
    def rpc(self, handle, method, id=1, **params):
        response, body = yield self.post(request(method, id, **params), handle)
        return body

    @inlineCallbacks
    def streamedCall(self, handle, name, id=5, **params):
        """
        POST a tools/call accepting an event stream; the unbuffered
        response and what it has delivered so far.
        """
        response = yield self.treq.post(
            "http://127.0.0.1/mcp", unbuffered=True,
            headers={"content-type": ["application/json"],
                     "mcp-session-id": [handle], **SSE},
            data=json.dumps(request("tools/call", id, name=name,
                                    **params)).encode())
        received = []
        response.deliverBody(Collector(received))
        self.treq.flush()
        return response, received


class CapabilityTests(SurfaceTestCase):

    @inlineCallbacks
    def test_declaredOnlyWhenServed(self):
        _, body = yield self.initialize()
        self.assertEqual(set(body["result"]["capabilities"]),
                         {"tools", "resources", "prompts", "completions",
                          "logging"})
        self.serve(Handlers(ToolCatalog.named(["execution"]),
                              ServerIdentity()))
        _, body = yield self.initialize()
        self.assertEqual(list(body["result"]["capabilities"]), ["tools"])


class ResourceTests(SurfaceTestCase):

    @inlineCallbacks
    def test_listAndRead(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "resources/list")
        self.assertIn("test://static-text",
                      [r["uri"] for r in body["result"]["resources"]])
        body = yield self.rpc(handle, "resources/read",
                              uri="test://static-text")
        self.assertEqual(body["result"]["contents"][0]["mimeType"],
                         "text/plain")

    @inlineCallbacks
    def test_template(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "resources/templates/list")
        self.assertEqual(body["result"]["resourceTemplates"][0]["uriTemplate"],
                         "test://template/{id}/data")
        body = yield self.rpc(handle, "resources/read",
                              uri="test://template/123/data")
        self.assertEqual(json.loads(body["result"]["contents"][0]["text"])
                         ["id"], "123")

    @inlineCallbacks
    def test_unknownResource(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "resources/read", uri="test://nope")
        self.assertEqual(body["error"]["code"], -32002)

    @inlineCallbacks
    def test_subscribe(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "resources/subscribe",
                              uri="test://watched-resource")
        self.assertEqual(body["result"], {})
        self.assertEqual(self.sessions.clients.get(handle).subscriptions,
                         {"test://watched-resource"})
        yield self.rpc(handle, "resources/unsubscribe",
                       uri="test://watched-resource")
        self.assertEqual(self.sessions.clients.get(handle).subscriptions,
                         set())


class PromptTests(SurfaceTestCase):

    @inlineCallbacks
    def test_getWithArguments(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "prompts/get",
                              name="test_prompt_with_arguments",
                              arguments={"arg1": "hello", "arg2": "world"})
        self.assertEqual(
            body["result"]["messages"][0]["content"]["text"],
            "Prompt with arguments: arg1='hello', arg2='world'")

    @inlineCallbacks
    def test_missingArgument(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "prompts/get",
                              name="test_prompt_with_arguments",
                              arguments={"arg1": "hello"})
        self.assertEqual(body["error"]["code"], -32602)
        self.assertIn("arg2", body["error"]["message"])

    @inlineCallbacks
    def test_completion(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(
            handle, "completion/complete",
            ref={"type": "ref/prompt", "name": "test_prompt_with_arguments"},
            argument={"name": "arg1", "value": "par"})
        self.assertEqual(body["result"]["completion"]["values"],
                         ["paris", "park", "party"])


class CallStreamTests(SurfaceTestCase):

    @inlineCallbacks
    def test_logMessagesOnTheCallsStream(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "logging/setLevel", level="debug")
        self.assertEqual(body["result"], {})
        response, received = yield self.streamedCall(
            handle, "test_tool_with_logging", arguments={})
        for _ in range(3):
            self.clock.advance(0.05)
        self.treq.flush()
        messages = events(received)
        logs = [m for m in messages
                if m.get("method") == "notifications/message"]
        self.assertEqual(len(logs), 3)
        self.assertEqual(messages[-1]["id"], 5)

    @inlineCallbacks
    def test_levelFilters(self):
        handle, _ = yield self.initialize()
        yield self.rpc(handle, "logging/setLevel", level="error")
        response, received = yield self.streamedCall(
            handle, "test_tool_with_logging", arguments={})
        for _ in range(3):
            self.clock.advance(0.05)
        self.treq.flush()
        self.assertEqual([m.get("method") for m in events(received)], [None])

    @inlineCallbacks
    def test_badLevel(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "logging/setLevel", level="loud")
        self.assertEqual(body["error"]["code"], -32602)

    @inlineCallbacks
    def test_samplingRequestAnsweredByThePostedResponse(self):
        handle, _ = yield self.initialize()
        response, received = yield self.streamedCall(
            handle, "test_sampling", arguments={"prompt": "hi"})
        [asked] = events(received)
        self.assertEqual(asked["method"], "sampling/createMessage")
        self.assertTrue(asked["id"].startswith("srv-"))
        posted, _ = yield self.post(
            {"jsonrpc": "2.0", "id": asked["id"], "result": {
                "role": "assistant", "model": "m",
                "content": {"type": "text", "text": "hello"}}}, handle)
        self.assertEqual(posted.code, 202)
        self.treq.flush()
        final = events(received)[-1]
        self.assertEqual(final["result"]["content"][0]["text"],
                         "LLM response: hello")

    @inlineCallbacks
    def test_resumeWithLastEventId(self):
        """
        A call whose stream the server closed early is resumed with GET and
        Last-Event-ID, and its result arrives there.
        """
        handle, _ = yield self.initialize()
        response, received = yield self.streamedCall(
            handle, "test_reconnection", arguments={})
        raw = b"".join(received)
        self.assertIn(b"retry: ", raw)
        primed = [line for line in raw.split(b"\n")
                  if line.startswith(b"id: ")][0][4:].decode()
        resumed = yield self.treq.get(
            "http://127.0.0.1/mcp", unbuffered=True,
            headers={"mcp-session-id": [handle], "last-event-id": [primed],
                     **SSE})
        again = []
        resumed.deliverBody(Collector(again))
        self.clock.advance(0.2)
        self.treq.flush()
        self.assertEqual(events(again)[-1]["id"], 5)
        self.assertEqual(events(received), [])


class SurfaceForTests(SynchronousTestCase):
    def test_oncePerCatalog(self):
        """
        A token narrowed to toolsets without resources is offered none;
        each catalog's surface is made once, by the handlers that serve
        it (no module-level cache).
        """
        dispatcher = Handlers(ToolCatalog.named(("browsing", "execution")),
                              ServerIdentity())
        narrow = Principal("a", "Alice", frozenset(), 0.0,
                           frozenset({"execution"}))
        self.assertIs(dispatcher.surfaceFor(None), dispatcher.surface)
        self.assertTrue(dispatcher.surface.templates)
        self.assertIs(dispatcher.surfaceFor(narrow),
                      dispatcher.surfaceFor(narrow))
        self.assertEqual((dispatcher.surfaceFor(narrow).templates,
                          dispatcher.surfaceFor(narrow).resources), ([], {}))

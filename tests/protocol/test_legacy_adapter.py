"""
Tests for L{gsmcpd.protocol.eras.legacy.adapter}: the 2025 era reads its
client's session, looks a called tool up once, decides whether a call may
stream, and frames each answer as a JSON-RPC response.  (Every method,
through this adapter: L{tests.protocol.test_handlers}; over HTTP:
L{tests.transport.test_web}.)
"""

from types import SimpleNamespace

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.eras.legacy import adapter
from gsmcpd.protocol.eras.legacy.adapter import clientNamed
from gsmcpd.protocol.handlers import ServerIdentity
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS
from gsmcpd.sessions.clients import ClientSessions, NoSessionId, NoSuchSession
from gsmcpd.tools.base import Tool, ToolResult, Toolset, annotations, closedSchema
from gsmcpd.tools.catalog import ToolCatalog, buildToolsets
from tests.builders import clientSession, legacyEra
from tests.fakes import FakeGem, RecordingSink
from tests.protocol.test_handlers import message


class Streaming(Toolset):
    name = "streaming"

    def tools(self):
        return [Tool("streamer", "Streamer", "sends as it runs",
                     closedSchema(), annotations(readOnly=True),
                     run=lambda call, arguments: ToolResult("sent"),
                     streams=True)]


def _principal(identity):
    return Principal(identity, identity, frozenset(), 0.0)


class ClientNamedTests(SynchronousTestCase):
    """
    L{clientNamed}: the client session a 2025 request's session id names,
    read from the sessions layer's table.
    """

    def setUp(self):
        self.clients = ClientSessions(None, None, None, Clock())
        for sessionId, owner in {"abc": None,
                                 "alices": _principal("alice")}.items():
            self.clients.byHandle[sessionId] = SimpleNamespace(
                handle=sessionId, work=SimpleNamespace(principal=owner))

    def test_named(self):
        self.assertIs(clientNamed(self.clients, "abc", None),
                      self.clients.byHandle["abc"])

    def test_owner(self):
        self.assertIs(clientNamed(self.clients, "alices",
                                  _principal("alice")),
                      self.clients.byHandle["alices"])

    def test_noSessionId(self):
        self.assertRaises(NoSessionId, clientNamed, self.clients, None, None)

    def test_unknownAndStrangerAlike(self):
        """
        An unknown id and another identity's session are each no such
        session, found by the same steps: one check of the principal.
        """
        checked = []
        self.patch(adapter, "admits", lambda *a, **kw: checked.append(
            kw["exists"]) or False)
        for sessionId, who in [("zzz", None), ("alices", None),
                               ("alices", _principal("mallory"))]:
            self.assertRaises(NoSuchSession, clientNamed, self.clients,
                              sessionId, who)
        self.assertEqual(checked, [False, True, True])


class InitializeTests(SynchronousTestCase):

    def test_leavesOutWhatWasNotChosen(self):
        result = legacyEra(ToolCatalog.named(["execution"])
                           ).initializeResult({})
        self.assertEqual(set(result["serverInfo"]), {"name", "version"})
        self.assertNotIn("instructions", result)
        self.assertEqual(result["capabilities"],
                         {"tools": {"listChanged": False}})

    def test_titleAndInstructions(self):
        result = legacyEra(
            ToolCatalog.named(["execution"]),
            ServerIdentity(title="Prod", instructions="Be careful."),
        ).initializeResult({"protocolVersion": "2025-06-18"})
        self.assertEqual(result["serverInfo"]["title"], "Prod")
        self.assertEqual(result["instructions"], "Be careful.")
        self.assertEqual(result["protocolVersion"], "2025-06-18")


class AnswerTests(SynchronousTestCase):

    def setUp(self):
        self.legacy = legacyEra(ToolCatalog(
            [*buildToolsets(["execution"]), Streaming()]))
        self.gem = FakeGem()
        self.client = clientSession(self.gem)

    def test_streams(self):
        """
        A call is answered as a stream (where the client accepts one) when
        it asked for progress or its tool sends as it runs; nothing else
        is.
        """
        def opened(method="tools/call", **params):
            asked = []
            self.successResultOf(self.legacy.answer(
                self.client, message(method, **params),
                openStream=lambda client: asked.append(client)))
            return asked == [self.client]

        self.assertFalse(opened(name="execute_code",
                                arguments={"code": "1"}))
        self.assertTrue(opened(name="execute_code", arguments={"code": "1"},
                               _meta={"progressToken": 1}))
        self.assertTrue(opened(name="streamer"))
        self.assertFalse(opened("ping", _meta={"progressToken": 1}))

    def test_streamCarriesTheCall(self):
        sink = RecordingSink()
        self.successResultOf(self.legacy.answer(
            self.client, message("tools/call", name="execute_code",
                                 arguments={"code": "1"},
                                 _meta={"progressToken": 1}),
            openStream=lambda client: sink))
        self.assertEqual(self.gem.calls[0][0], "execute_code")

    def test_toolLookedUpOnce(self):
        """
        The era looks the tool up (among those the principal may use) and
        hands it down: the call runs it without looking it up again.
        """
        handlers = self.legacy.handlers
        looked = []
        toolNamed = handlers.toolNamed
        self.patch(handlers, "toolNamed", lambda principal, name: (
            looked.append(principal), toolNamed(principal, name))[1])
        answer = self.successResultOf(self.legacy.answer(
            self.client, message("tools/call", name="execute_code",
                                 arguments={"code": "3 + 4"})))
        self.assertEqual(answer["result"]["content"][0]["text"], "7")
        self.assertEqual(looked, [None])

    def test_unknownAndMissingTool(self):
        for params, said in (({"name": "nope"}, "unknown tool 'nope'"),
                             ({"name": 3}, "needs a tool name"),
                             ({}, "needs a tool name")):
            answer = self.successResultOf(self.legacy.answer(
                self.client, message("tools/call", **params)))
            self.assertEqual(answer["error"]["code"], INVALID_PARAMS)
            self.assertIn(said, answer["error"]["message"])

    def test_cancelledNotification(self):
        """
        C{notifications/cancelled} ends the call it names, and is not
        answered.
        """
        self.gem.held = True
        answering = self.legacy.answer(
            self.client, message("tools/call", 5, name="execute_code",
                                 arguments={"code": "1"}))
        [run] = self.client.work.calls.running.values()
        self.assertIsNone(self.successResultOf(self.legacy.answer(
            self.client, message("notifications/cancelled", None,
                                 requestId=5, reason="no longer needed"))))
        self.assertEqual(run.why, "cancelled")
        self.assertIsNone(self.successResultOf(answering))

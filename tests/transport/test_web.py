"""
The Streamable HTTP transport, in memory: every status code and error kind
of the reference's transport and conformance tables.
"""

import gc
import json

from treq.testing import StubTreq
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IPushProducer
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web.resource import Resource
from twisted.web.server import Request
from twisted.web.test.requesthelper import DummyRequest
from zope.interface.verify import verifyObject

from gsmcpd.daemon.service import eras
from gsmcpd.gci.errors import GciError
from gsmcpd.observe.metrics import UNOBSERVED, Metrics
from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.endpoint import Exchange
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.sessions.listeners import ChangeNotices, SessionListeners
from gsmcpd.sessions.logins import unprepared
from gsmcpd.sessions.notes import SESSION_NOTE
from gsmcpd.sessions.outbound import PendingRequests
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.transport.hosts import HostPolicy, OriginPolicy
from gsmcpd.transport.http import MAX_BODY_BYTES, McpApp, McpSite
from gsmcpd.transport.modern import ModernPost
from tests.fakes import FakePool, SmalltalkRaised
from tests.observe.test_metrics import scrape

JSON = {"content-type": ["application/json"],
        "accept": ["application/json, text/event-stream"]}


def request(method, id=1, **params):
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params}


def mcpApp(sessions, handlers, clock, pending=None, notices=None,
           listeners=None, requestTimeout=None, audit=None, origins=(),
           metrics=UNOBSERVED):
    """
    An L{McpApp} over C{handlers}, each collaborator built once by
    constructor as L{gsmcpd.daemon.service.assemble} builds them (the
    registry's observers are its own to be given).
    """
    pending = PendingRequests(clock) if pending is None else pending
    notices = ChangeNotices() if notices is None else notices
    listeners = SessionListeners(notices) if listeners is None else listeners
    legacy, modern = eras(
        handlers, CallRunner(sessions, clock, requestTimeout, audit, metrics),
        sessions, pending, listeners, clock)
    return McpApp(sessions, legacy, ModernPost(modern, notices, clock),
                  pending, clock, OriginPolicy.fromOptions(origins),
                  HostPolicy.fromOptions(()))


class TransportTestCase(TestCase):
    """
    An L{McpApp} over a L{FakePool}, driven through L{StubTreq}.
    """

    maxSessions = 3
    requestTimeout = None

    def setUp(self):
        self.clock = Clock()
        self.pool = self.makePool()
        self.pending = PendingRequests(self.clock)
        self.notices = ChangeNotices()
        self.listeners = SessionListeners(self.notices)
        self.sessions = SessionRegistry(
            self.pool, self.clock,
            onClose=[self.pending.forget, self.listeners.remove],
            onCommit=[self.notices.resourcesUpdated],
            prepare=self.makePreparation())
        self.serve(self.makeHandlers())

    def makePreparation(self):
        """
        What each new session is prepared with: nothing.
        """
        return unprepared

    def makePool(self):
        return FakePool(self.maxSessions)

    def makeHandlers(self):
        return Handlers(ToolCatalog.named(("execution", "session")),
                        ServerIdentity())

    def serve(self, handlers):
        """
        Answer requests with C{handlers} from now on.
        """
        self.handlers = handlers
        self.app = self.buildApp(handlers)
        self.treq = StubTreq(self.app)

    def serveAs(self, identity):
        """
        Answer requests as the server C{identity} names, from now on.
        """
        self.serve(Handlers(self.handlers.tools, identity))

    def buildApp(self, handlers, audit=None, metrics=UNOBSERVED):
        return mcpApp(self.sessions, handlers, self.clock, self.pending,
                      self.notices, self.listeners, self.requestTimeout,
                      audit, origins=["app.example"], metrics=metrics)

    def watch(self, audit=None, metrics=UNOBSERVED):
        """
        Answer requests from now on with each call recorded in C{audit}
        and counted in C{metrics}.
        """
        self.app = self.buildApp(self.handlers, audit, metrics)
        self.treq = StubTreq(self.app)

    @inlineCallbacks
    def post(self, body, session=None, headers=None):
        """
        POST C{body} (a dict, or raw bytes); the response and its parsed
        JSON body (or L{None} for an empty one).
        """
        allHeaders = dict(JSON)
        if session is not None:
            allHeaders["mcp-session-id"] = [session]
        allHeaders.update(headers or {})
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        response = yield self.treq.post("http://127.0.0.1/mcp", data=data,
                                        headers=allHeaders)
        content = yield response.content()
        return response, (json.loads(content) if content else None)

    @inlineCallbacks
    def initialize(self, version="2025-11-25"):
        response, body = yield self.post(request(
            "initialize", protocolVersion=version, capabilities={},
            clientInfo={"name": "test", "version": "0"}))
        self.assertEqual(response.code, 200, body)
        handle = response.headers.getRawHeaders("mcp-session-id")[0]
        return handle, body

    @inlineCallbacks
    def call(self, session, name, arguments=None, id=2):
        params = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        response, body = yield self.post(request("tools/call", id, **params),
                                         session)
        self.assertEqual(response.code, 200)
        return body


class InitializeTests(TransportTestCase):

    @inlineCallbacks
    def test_sessionIdIs128Bits(self):
        handle, body = yield self.initialize()
        self.assertRegex(handle, r"\A[0-9a-f]{32}\Z")
        other, _ = yield self.initialize()
        self.assertNotEqual(handle, other)

    @inlineCallbacks
    def test_negotiationEchoesSupported(self):
        for version in ("2025-06-18", "2025-11-25"):
            _, body = yield self.initialize(version)
            self.assertEqual(body["result"]["protocolVersion"], version)
            yield self.sessions.closeAll("test")

    @inlineCallbacks
    def test_negotiationAnswersLatestOtherwise(self):
        _, body = yield self.initialize("2024-11-05")
        self.assertEqual(body["result"]["protocolVersion"], "2025-11-25")

    @inlineCallbacks
    def test_toolsIsTheOnlyCapability(self):
        _, body = yield self.initialize()
        self.assertEqual(list(body["result"]["capabilities"]), ["tools"])
        self.assertEqual(body["result"]["serverInfo"]["name"], "gsmcpd")
        self.assertNotIn("title", body["result"]["serverInfo"])

    @inlineCallbacks
    def test_titleWhenConfigured(self):
        self.serveAs(ServerIdentity(title="teststone"))
        _, body = yield self.initialize()
        self.assertEqual(body["result"]["serverInfo"]["title"], "teststone")

    @inlineCallbacks
    def test_sessionLimit(self):
        """
        Past the cap, initialize is refused -32001 sessionLimit and no
        login is attempted; the message says what a client can do, not
        which server flag to change.
        """
        for _ in range(3):
            yield self.initialize()
        response, body = yield self.post(request("initialize",
                                                 protocolVersion="2025-11-25"))
        self.assertEqual(body["error"]["code"], -32001)
        self.assertEqual(body["error"]["data"],
                         {"kind": "sessionLimit", "limit": 3})
        self.assertIn("try again", body["error"]["message"])
        self.assertNotIn("--max-sessions", body["error"]["message"])
        self.assertEqual(len(self.pool.opened), 3)
        self.assertIsNone(response.headers.getRawHeaders("mcp-session-id"))

    @inlineCallbacks
    def test_slotComesBackOnDelete(self):
        handles = []
        for _ in range(3):
            handle, _ = yield self.initialize()
            handles.append(handle)
        response = yield self.treq.delete(
            "http://127.0.0.1/mcp", headers={"mcp-session-id": [handles[0]]})
        self.assertEqual(response.code, 200)
        yield self.initialize()

    @inlineCallbacks
    def test_loginFailureHidesDetails(self):
        self.pool.loginError = GciError(
            4051, "login denied for DataCurator on !tcp@secret-host#server",
            fatal=True)
        response, body = yield self.post(request("initialize"))
        self.assertEqual(body["error"]["code"], -32001)
        self.assertEqual(body["error"]["data"]["kind"], "loginFailed")
        self.assertNotIn("secret-host", json.dumps(body))


    @inlineCallbacks
    def test_loginTheStoneDoesNotAnswer(self):
        """
        C{initialize} whose login the stone does not answer within the
        deadline is answered C{stoneNotAnswering}; the login that answers
        later is logged out.
        """
        self.sessions.opener.loginDeadline = 10
        self.pool.loginDelay = Deferred()
        answering = self.post(request("initialize"))
        self.clock.advance(10)
        self.treq.flush()
        response, body = yield answering
        self.assertEqual(body["error"]["code"], -32001)
        self.assertEqual(body["error"]["data"],
                         {"kind": "stoneNotAnswering", "deadline": 10})
        self.assertIsNone(response.headers.getRawHeaders("mcp-session-id"))
        self.pool.loginDelay.callback(None)
        self.assertTrue(self.pool.opened[0].loggedOut)
        self.assertEqual(len(self.sessions.work), 0)

class GateTests(TransportTestCase):

    @inlineCallbacks
    def test_missingSessionId(self):
        for method in ("post", "get", "delete"):
            if method == "post":
                response, _ = yield self.post(request("ping"))
            else:
                response = yield getattr(self.treq, method)(
                    "http://127.0.0.1/mcp")
            self.assertEqual(response.code, 400, method)

    @inlineCallbacks
    def test_unknownSessionId(self):
        response, _ = yield self.post(request("ping"), session="0" * 32)
        self.assertEqual(response.code, 404)
        for method in ("get", "delete"):
            response = yield getattr(self.treq, method)(
                "http://127.0.0.1/mcp", headers={"mcp-session-id": ["x"]})
            self.assertEqual(response.code, 404, method)

    @inlineCallbacks
    def test_endedSessionIs404(self):
        handle, _ = yield self.initialize()
        response = yield self.treq.delete(
            "http://127.0.0.1/mcp", headers={"mcp-session-id": [handle]})
        self.assertEqual(response.code, 200)
        self.assertTrue(self.pool.opened[0].loggedOut)
        response, _ = yield self.post(request("ping"), handle)
        self.assertEqual(response.code, 404)
        response = yield self.treq.delete(
            "http://127.0.0.1/mcp", headers={"mcp-session-id": [handle]})
        self.assertEqual(response.code, 404)

    @inlineCallbacks
    def test_otherVerbs405(self):
        for method in ("put", "patch", "head"):
            response = yield getattr(self.treq, method)(
                "http://127.0.0.1/mcp")
            self.assertEqual(response.code, 405, method)

    @inlineCallbacks
    def test_foreignOrigin403(self):
        response, _ = yield self.post(
            request("initialize"),
            headers={"origin": ["http://evil.example"]})
        self.assertEqual(response.code, 403)
        self.assertEqual(self.pool.opened, [])

    @inlineCallbacks
    def test_loopbackAndConfiguredOriginsAllowed(self):
        for origin in ("http://localhost:6274", "http://127.0.0.1",
                       "http://[::1]:3000", "https://app.example"):
            response, _ = yield self.post(
                request("initialize"), headers={"origin": [origin]})
            self.assertEqual(response.code, 200, origin)
            yield self.sessions.closeAll("test")

    @inlineCallbacks
    def test_unsupportedProtocolVersion400(self):
        handle, _ = yield self.initialize()
        response, body = yield self.post(
            request("ping"), handle,
            headers={"mcp-protocol-version": ["1999-01-01"]})
        self.assertEqual(response.code, 400)
        self.assertIn("1999-01-01", body["error"]["message"])
        response, _ = yield self.post(
            request("ping"), handle,
            headers={"mcp-protocol-version": ["2025-06-18"]})
        self.assertEqual(response.code, 200)

    @inlineCallbacks
    def test_bodyCap413(self):
        response, body = yield self.post(b" " * (MAX_BODY_BYTES + 1))
        self.assertEqual(response.code, 413)


class MessageTests(TransportTestCase):

    @inlineCallbacks
    def test_malformedJson(self):
        response, body = yield self.post(b"{nope")
        self.assertEqual(response.code, 400)
        self.assertEqual(body["error"]["code"], -32700)
        self.assertIsNone(body["id"])

    @inlineCallbacks
    def test_malformedUtf8(self):
        response, body = yield self.post(b'{"a":"\xff"}')
        self.assertEqual(body["error"]["code"], -32700)
        self.assertIn("byte offset 6", body["error"]["message"])

    @inlineCallbacks
    def test_batchRefused(self):
        response, body = yield self.post(b"[]")
        self.assertEqual(response.code, 400)
        self.assertEqual(body["error"]["code"], -32600)

    @inlineCallbacks
    def test_notification202(self):
        handle, _ = yield self.initialize()
        response, body = yield self.post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, handle)
        self.assertEqual((response.code, body), (202, None))

    @inlineCallbacks
    def test_postedResponse202(self):
        handle, _ = yield self.initialize()
        response, body = yield self.post(
            {"jsonrpc": "2.0", "id": "srv-1", "result": {}}, handle)
        self.assertEqual((response.code, body), (202, None))

    @inlineCallbacks
    def test_ping(self):
        handle, _ = yield self.initialize()
        response, body = yield self.post(request("ping", 9), handle)
        self.assertEqual(body, {"jsonrpc": "2.0", "id": 9, "result": {}})

    @inlineCallbacks
    def test_undeclaredMethods(self):
        handle, _ = yield self.initialize()
        for method in ("resources/list", "prompts/list", "logging/setLevel",
                       "completion/complete", "nonsense"):
            _, body = yield self.post(request(method), handle)
            self.assertEqual(body["error"]["code"], -32601, method)

    @inlineCallbacks
    def test_toolsListOnePage(self):
        handle, _ = yield self.initialize()
        _, body = yield self.post(request("tools/list"), handle)
        names = [tool["name"] for tool in body["result"]["tools"]]
        self.assertEqual(names, sorted(names))
        self.assertEqual(set(names), {"execute_code", "status", "commit",
                                      "abort", "refresh"})
        self.assertNotIn("nextCursor", body["result"])

    @inlineCallbacks
    def test_toolsListCursorRefused(self):
        handle, _ = yield self.initialize()
        _, body = yield self.post(request("tools/list", cursor="abc"), handle)
        self.assertEqual(body["error"]["code"], -32602)


class ToolCallTests(TransportTestCase):

    @inlineCallbacks
    def setUp(self):
        super().setUp()
        self.handle, _ = yield self.initialize()
        self.gem = self.pool.opened[0]

    @inlineCallbacks
    def test_executeCode(self):
        body = yield self.call(self.handle, "execute_code", {"code": "3 + 4"})
        result = body["result"]
        self.assertEqual(result["content"], [{"type": "text", "text": "7"}])
        self.assertFalse(result["isError"])
        self.assertEqual(result["structuredContent"], {
            "printString": "7", "totalCharacters": 1, "truncated": False})
        self.assertEqual(self.gem.calls[-1],
                         ("execute_code", {"code": "3 + 4", "limit": 50000}))

    @inlineCallbacks
    def test_executeCodeTruncationMarker(self):
        self.gem.results["execute_code"] = lambda args: {
            "total": 60002, "text": "x" * args["limit"]}
        body = yield self.call(self.handle, "execute_code", {"code": "big"})
        text = body["result"]["content"][0]["text"]
        self.assertTrue(text.endswith(
            "...[truncated: showing 50000 of 60002 characters]"))
        self.assertTrue(body["result"]["structuredContent"]["truncated"])

    @inlineCallbacks
    def test_sessionNote(self):
        """
        A result whose session holds uncommitted changes carries the
        one-line [session] note, error or not.
        """
        body = yield self.call(self.handle, "execute_code", {"code": "1"})
        self.assertEqual(len(body["result"]["content"]), 1)
        self.gem.needsCommit = True
        body = yield self.call(self.handle, "execute_code", {"code": "1"})
        self.assertEqual(body["result"]["content"][1],
                         {"type": "text", "text": SESSION_NOTE})

        def raises(args):
            raise SmalltalkRaised(2026, "ZeroDivide", "divide by zero")

        self.gem.results["execute_code"] = raises
        body = yield self.call(self.handle, "execute_code", {"code": "1/0"})
        self.assertTrue(body["result"]["isError"])
        self.assertEqual(body["result"]["content"][1]["text"], SESSION_NOTE)

    @inlineCallbacks
    def test_noSessionNoteOnReadOnlyTools(self):
        """
        A read-only tool cannot have added to the uncommitted changes, so
        its result goes without the note (status reports them itself).
        """
        self.gem.needsCommit = True
        body = yield self.call(self.handle, "status", {})
        self.assertNotIn(SESSION_NOTE, [each["text"] for each in
                                        body["result"]["content"]])

    @inlineCallbacks
    def test_smalltalkErrorKinds(self):
        for number, kind in ((1001, "compileError"), (2010, "other")):
            def raises(args, number=number):
                raise SmalltalkRaised(number, "SomeError", "went wrong")

            self.gem.results["execute_code"] = raises
            body = yield self.call(self.handle, "execute_code", {"code": "x"})
            result = body["result"]
            self.assertTrue(result["isError"])
            self.assertEqual(result["structuredContent"]["error"]["kind"],
                             kind)
            self.assertIn("went wrong", result["content"][0]["text"])

    @inlineCallbacks
    def test_unknownArgument(self):
        body = yield self.call(self.handle, "execute_code",
                               {"code": "1", "extra": 2})
        result = body["result"]
        self.assertTrue(result["isError"])
        self.assertEqual(result["structuredContent"]["error"]["kind"],
                         "invalidParams")
        self.assertIn("extra", result["content"][0]["text"])
        self.assertEqual(self.gem.calls, [])

    @inlineCallbacks
    def test_missingArgument(self):
        for arguments in ({}, None):
            body = yield self.call(self.handle, "execute_code", arguments)
            self.assertEqual(
                body["result"]["structuredContent"]["error"]["kind"],
                "invalidParams")
            self.assertIn("code", body["result"]["content"][0]["text"])

    @inlineCallbacks
    def test_wrongArgumentType(self):
        body = yield self.call(self.handle, "execute_code", {"code": 3})
        self.assertEqual(body["result"]["structuredContent"]["error"]["kind"],
                         "invalidParams")

    @inlineCallbacks
    def test_unknownToolAndMissingName(self):
        _, body = yield self.post(request("tools/call", name="nope"),
                                  self.handle)
        self.assertEqual(body["error"]["code"], -32602)
        _, body = yield self.post(request("tools/call"), self.handle)
        self.assertEqual(body["error"]["code"], -32602)

    @inlineCallbacks
    def test_commitConflictIsAFailure(self):
        self.gem.results["commit"] = lambda args: {
            "committed": False,
            "conflicts": {"Write-Write": {"count": 1, "names": ["Account>>owner"]}}}
        body = yield self.call(self.handle, "commit")
        result = body["result"]
        self.assertTrue(result["isError"])
        self.assertEqual(result["structuredContent"]["error"]["kind"],
                         "refused")
        self.assertIn("Write-Write: 1 object (Account>>owner)", result["content"][0]["text"])

    @inlineCallbacks
    def test_sessionTools(self):
        for name, text in (("commit", "Committed."), ("abort", "Aborted"),
                           ("refresh", "Refreshed"), ("status", "user: ")):
            body = yield self.call(self.handle, name)
            self.assertFalse(body["result"]["isError"], name)
            self.assertIn(text, body["result"]["content"][0]["text"])

    @inlineCallbacks
    def test_breakIsAToolError(self):
        def broken(args):
            raise GciError(6003, "a Break occurred")

        self.gem.results["execute_code"] = broken
        body = yield self.call(self.handle, "execute_code", {"code": "x"})
        self.assertEqual(body["result"]["structuredContent"]["error"]["kind"],
                         "other")
        self.assertIsNotNone(self.sessions.work.get(self.handle))

    @inlineCallbacks
    def test_deadGemSessionGone(self):
        """
        A fatal error answers -32001 sessionGone with the request's id,
        unmaps the session, and the next request is 404; the client never
        sees the reason's host details.
        """
        def dies(args):
            raise GciError(4100, "session terminated", fatal=True,
                           reason="gem on !tcp@secret-host#netldi:ldi died")

        self.gem.results["execute_code"] = dies
        _, body = yield self.post(
            request("tools/call", 41, name="execute_code",
                    arguments={"code": "x"}), self.handle)
        self.assertEqual(body["id"], 41)
        self.assertEqual(body["error"]["code"], -32001)
        self.assertEqual(body["error"]["data"]["kind"], "sessionGone")
        self.assertNotIn("secret-host", json.dumps(body))
        self.assertTrue(self.gem.loggedOut)
        response, _ = yield self.post(request("ping"), self.handle)
        self.assertEqual(response.code, 404)
        self.flushLoggedErrors()


class StreamTests(TransportTestCase):

    @inlineCallbacks
    def test_getOpensEventStreamWithKeepalive(self):
        handle, _ = yield self.initialize()
        response = yield self.treq.get(
            "http://127.0.0.1/mcp",
            headers={"mcp-session-id": [handle],
                     "accept": ["text/event-stream"]}, unbuffered=True)
        self.assertEqual(response.code, 200)
        self.assertEqual(response.headers.getRawHeaders("content-type"),
                         ["text/event-stream"])
        received = []
        response.deliverBody(Collector(received))
        self.treq.flush()
        self.clock.advance(15)
        self.treq.flush()
        self.assertIn(b": keepalive\n\n", b"".join(received))
        stream = self.sessions.clients.get(handle).stream
        self.assertTrue(stream.open)
        self.assertTrue(verifyObject(IPushProducer, stream))
        yield self.treq.delete("http://127.0.0.1/mcp",
                               headers={"mcp-session-id": [handle]})
        self.treq.flush()
        self.assertFalse(stream.open)

    @inlineCallbacks
    def test_newestStreamWins(self):
        handle, _ = yield self.initialize()
        headers = {"mcp-session-id": [handle]}
        yield self.treq.get("http://127.0.0.1/mcp", headers=headers,
                            unbuffered=True)
        first = self.sessions.clients.get(handle).stream
        yield self.treq.get("http://127.0.0.1/mcp", headers=headers,
                            unbuffered=True)
        self.assertFalse(first.open)
        self.assertTrue(self.sessions.clients.get(handle).stream.open)


class Collector:
    """
    A body protocol keeping what a streamed response delivers.
    """

    def __init__(self, received):
        self.received = received

    def makeConnection(self, transport):
        pass

    def dataReceived(self, data):
        self.received.append(data)

    def connectionLost(self, reason):
        pass


class SiteMetricsTests(SynchronousTestCase):

    def test_everyResponseCounted(self):
        """
        The site counts each finished response by status class, and the
        bearer gate's refusals by status.
        """
        metrics = Metrics("1", processMetrics=False)
        site = McpSite(Resource(), metrics=metrics)
        for code, refused in ((200, False), (401, True)):
            request = DummyRequest([b"mcp"])
            request.code = code
            if refused:
                request.authRefused = True
            site.log(request)
        samples = scrape(metrics)
        self.assertEqual(samples["gsmcpd_http_responses_total"], {
            (("class", "2xx"),): 1.0, (("class", "4xx"),): 1.0})
        self.assertEqual(samples["gsmcpd_auth_refusals_total"],
                         {(("status", "401"),): 1.0})


class HeapTests(TransportTestCase):
    """
    A POST leaves no reference cycle through its request, its L{Exchange}
    or its body: the daemon freezes its heap (L{gsmcpd.daemon.heap}), and a
    cycle frozen while its POST runs stays until the next thaw.
    """

    CODE = '"' + "a" * 200_000 + '" 3 + 4'

    @inlineCallbacks
    def assertNoCycleHolds(self, *posts):
        """
        Make each of C{posts} (C{post}'s arguments); no garbage the collector
        then finds is a request, an exchange, or holds a large body.
        """
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for args in posts:
                yield self.post(*args)
            gc.collect()
            held = [o for o in gc.garbage if isinstance(o, (Request, Exchange))
                    or any(isinstance(r, (bytes, str)) and len(r) > 100_000
                           for r in gc.get_referents(o))]
        finally:
            gc.set_debug(0)
            del gc.garbage[:]
            gc.enable()
        self.assertEqual(held, [])

    @inlineCallbacks
    def test_legacy(self):
        handle, _ = yield self.initialize()
        yield self.assertNoCycleHolds(
            (request("tools/call", 5, name="execute_code",
                     arguments={"code": self.CODE}), handle),
            (request("ping", 6), handle), (b"{", handle),
            (request("tools/call", 7, name="nosuch"), handle))

    def test_modern(self):
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}
        headers = {"mcp-protocol-version": ["2026-07-28"],
                   "mcp-method": ["tools/call"],
                   "mcp-name": ["execute_code"]}
        return self.assertNoCycleHolds(
            (request("tools/call", 5, name="execute_code", _meta=meta,
                     arguments={"code": self.CODE}), None,
             headers),
            (request("server/discover", 6, _meta=meta), None,
             dict(headers, **{"mcp-method": ["server/discover"],
                              "mcp-name": []})))

"""
The 2026-07-28 era on /mcp, in memory: discovery, the envelope's errors,
GemStone sessions behind handles, input-required rounds, tasks and
subscriptions/listen, beside an untouched 2025 era.
"""

import json

from twisted.internet.defer import Deferred, inlineCallbacks

from gsmcpd.gci.errors import GciError
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.metrics import Metrics
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.sessions.lifetime import LifetimePolicy, Reaper
from gsmcpd.sessions.notes import THROWAWAY_NOTE
from gsmcpd.testing.conformance import TOOLSET
from gsmcpd.testing.simulator.errors import COMMITS_DISABLED
from gsmcpd.tools.catalog import ToolCatalog
from tests.toolharness import StonePool
from tests.transport.test_web import JSON, Collector, TransportTestCase, request

VERSION = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
SOURCE = "gemstone://class/Account/source"
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
         "tasks/get": "taskId", "tasks/update": "taskId",
         "tasks/cancel": "taskId"}


def modern(method, id=1, meta=META, **params):
    return request(method, id, _meta=meta, **params)


class ModernTestCase(TransportTestCase):

    @inlineCallbacks
    def send(self, body, **headers):
        """
        POST C{body} with the headers a 2026 client sends, C{headers}
        replacing them (a value of L{None} drops one).
        """
        sent = {"mcp-protocol-version": [VERSION],
                "mcp-method": [body["method"]]}
        name = body.get("params", {}).get(NAMED.get(body["method"], ""))
        if isinstance(name, str):
            sent["mcp-name"] = [name]
        for key, value in headers.items():
            key = key.replace("_", "-")
            sent.pop(key, None)
            if value is not None:
                sent[key] = [value]
        response, answer = yield self.post(body, headers=sent)
        return response, answer

    @inlineCallbacks
    def tool(self, name, arguments=None, id=7, meta=META, **headers):
        response, body = yield self.send(modern(
            "tools/call", id, meta, name=name, arguments=arguments or {}),
            **headers)
        self.assertEqual((response.code, body["id"]), (200, id), body)
        return body["result"]

    @inlineCallbacks
    def openSession(self):
        result = yield self.tool("open_session")
        return result["structuredContent"]["session"]


class DiscoverTests(ModernTestCase):

    @inlineCallbacks
    def test_discover(self):
        response, body = yield self.send(modern("server/discover", 9))
        self.assertEqual((response.code, body["id"]), (200, 9))
        result = body["result"]
        self.assertEqual(result["supportedVersions"],
                         ["2025-06-18", "2025-11-25", VERSION])
        self.assertEqual(result["_meta"]["io.modelcontextprotocol/serverInfo"]
                         ["name"], "gsmcpd")
        self.assertEqual((result["resultType"], result["cacheScope"]),
                         ("complete", "public"))
        self.assertIn("tools", result["capabilities"])
        self.assertIn("io.modelcontextprotocol/skills",
                      result["capabilities"]["extensions"])

    @inlineCallbacks
    def test_discoverCarriesTheErasInstructions(self):
        """
        server/discover in the 2026 era answers that era's instructions; a
        2025 initialize answers the 2025 text.
        """
        self.serveAs(ServerIdentity(
            instructions="Your MCP session...",
            modernInstructions="Call open_session first."))
        _, body = yield self.send(modern("server/discover", 9))
        self.assertEqual(body["result"]["instructions"],
                         "Call open_session first.")
        _, body = yield self.initialize()
        self.assertEqual(body["result"]["instructions"], "Your MCP session...")

    @inlineCallbacks
    def test_noSessionAnywhere(self):
        """
        No request of the era opens an MCP session.
        """
        response, _ = yield self.send(modern("tools/list"))
        self.assertIsNone(response.headers.getRawHeaders("mcp-session-id"))
        self.assertEqual(len(self.sessions.work), 0)


class EnvelopeErrorTests(ModernTestCase):

    @inlineCallbacks
    def refused(self, body, status, code, **headers):
        response, answer = yield self.send(body, **headers)
        self.assertEqual(
            (response.code, answer["id"], answer["error"]["code"]),
            (status, body["id"], code), answer)
        return answer["error"]

    @inlineCallbacks
    def test_missingMeta(self):
        yield self.refused(request("server/discover", 101), 400, -32602)

    @inlineCallbacks
    def test_unsupportedVersion(self):
        meta = dict(META, **{"io.modelcontextprotocol/protocolVersion":
                             "v999.0.0"})
        error = yield self.refused(modern("server/discover", 301, meta), 400,
                                   -32022, mcp_protocol_version="v999.0.0")
        self.assertEqual(error["data"]["requested"], "v999.0.0")
        self.assertIn(VERSION, error["data"]["supported"])

    @inlineCallbacks
    def test_headerMismatch(self):
        yield self.refused(modern("tools/list", 5), 400, -32020,
                           mcp_method="prompts/list")
        yield self.refused(modern("tools/call", 6, name="execute_code"), 400,
                           -32020, mcp_name="other")

    @inlineCallbacks
    def test_removedMethods(self):
        for method in ("initialize", "ping", "logging/setLevel",
                       "resources/subscribe", "no/such/method"):
            yield self.refused(modern(method, 500), 404, -32601)

    @inlineCallbacks
    def test_openedHandleNamedInAResponseHeader(self):
        """
        open_session's answer names the handle in Mcp-Param-Session, for a
        load balancer to learn which daemon holds it.
        """
        response, body = yield self.send(modern(
            "tools/call", 7, name="open_session", arguments={}))
        handle = body["result"]["structuredContent"]["session"]
        self.assertEqual(response.headers.getRawHeaders("mcp-param-session"),
                         [handle])

    @inlineCallbacks
    def test_mirroredSessionHeader(self):
        """
        A handle in the arguments must be mirrored in Mcp-Param-Session.
        """
        handle = yield self.openSession()
        yield self.refused(modern("tools/call", 8, name="execute_code",
                                  arguments={"code": "1", "session": handle}),
                           400, -32020)


class HandleTests(ModernTestCase):

    @inlineCallbacks
    def test_toolsListDeclaresTheSessionArgument(self):
        _, body = yield self.send(modern("tools/list"))
        tools = {tool["name"]: tool for tool in body["result"]["tools"]}
        self.assertIn("open_session", tools)
        session = tools["execute_code"]["inputSchema"]["properties"]["session"]
        self.assertEqual(session["x-mcp-header"], "Session")
        self.assertEqual(tools["execute_code"]["execution"],
                         {"taskSupport": "optional"})
        self.assertEqual(body["result"]["ttlMs"], 3_600_000)

    @inlineCallbacks
    def test_sessionAcrossCalls(self):
        """
        The handle names one GemStone session, counted like a 2025 one,
        until close_session.
        """
        handle = yield self.openSession()
        self.assertIs(self.sessions.work.get(handle).gem, self.pool.opened[0])
        result = yield self.tool("execute_code",
                                 {"code": "3 + 4", "session": handle},
                                 mcp_param_session=handle)
        self.assertEqual(result["content"][0]["text"], "7")
        self.assertEqual(self.pool.opened[0].calls[-1][0], "execute_code")
        closed = yield self.tool("close_session", {"session": handle},
                                 mcp_param_session=handle)
        self.assertFalse(closed["isError"])
        self.assertIsNone(self.sessions.work.get(handle))
        response, gone = yield self.send(modern(
            "tools/call", 8, name="execute_code",
            arguments={"code": "1", "session": handle}),
            mcp_param_session=handle)
        self.assertEqual((response.code, gone["error"]["code"]),
                         (404, -32004))
        self.assertEqual(gone["error"]["data"],
                         {"kind": "noSuchSession", "session": handle})
        self.assertIn("open_session", gone["error"]["message"])

    @inlineCallbacks
    def test_sessionToolsAuditedAndCounted(self):
        """
        open_session and close_session are tool calls like any other: in
        the audit log and the call metrics.
        """
        events = []
        metrics = Metrics("1", False)
        self.watch(AuditLog(events.append, "DataCurator", set()), metrics)
        handle = yield self.openSession()
        yield self.tool("close_session", {"session": handle},
                        mcp_param_session=handle)
        self.assertEqual(
            [(e["event"], e["tool"], e.get("outcome"), e["session"])
             for e in events],
            [("callStarted", "open_session", None, None),
             ("toolCall", "open_session", "ok", handle[:8]),
             ("callStarted", "close_session", None, None),
             ("toolCall", "close_session", "ok", handle[:8])])
        self.assertEqual(
            [metrics.registry.get_sample_value(
                "gsmcpd_tool_calls_total", {"tool": tool, "outcome": "ok"})
             for tool in ("open_session", "close_session")], [1, 1])

    @inlineCallbacks
    def heldCall(self):
        """
        A call of request id 8 on a new handle, held on its gem: the
        handle, the gem, the call's body and its answer to come.
        """
        handle = yield self.openSession()
        gem = self.pool.opened[0]
        gem.held = True
        body = modern("tools/call", 8, name="execute_code",
                      arguments={"code": "3 + 4", "session": handle})
        return handle, gem, body, self.send(body, mcp_param_session=handle)

    @inlineCallbacks
    def test_idAlreadyRunningOnTheHandleRefused(self):
        """
        Two calls on one handle with one id would share one record (and
        one cancellation): the second is refused, the first runs on.
        """
        handle, gem, body, first = yield self.heldCall()
        response, refused = yield self.send(body, mcp_param_session=handle)
        self.assertEqual((response.code, refused["id"],
                          refused["error"]["code"]), (400, 8, -32600))
        gem.release()
        self.treq.flush()
        _, answered = yield first
        self.assertEqual(answered["result"]["content"][0]["text"], "7")
        self.assertEqual(self.sessions.work.get(handle).calls.running, {})

    @inlineCallbacks
    def test_callIsItsHandlesActivity(self):
        """
        A call on a handle counts as its session's activity (as it runs:
        finding the session reads it, nothing counted).
        """
        handle = yield self.openSession()
        self.clock.advance(30)
        yield self.tool("execute_code", {"code": "3 + 4", "session": handle},
                        mcp_param_session=handle)
        self.assertEqual(
            self.sessions.work.get(handle).liveness.lastActivity,
            self.clock.seconds())

    @inlineCallbacks
    def test_refusedCallAnsweredAsJsonEvenWithProgress(self):
        """
        A call refused admission (its id in flight on its handle) is
        answered as plain JSON with its status though its client asked for
        progress: its stream is opened only once a call is admitted.
        """
        handle, gem, body, first = yield self.heldCall()
        body["params"]["_meta"] = dict(META, progressToken="p8")
        response, refused = yield self.send(body, mcp_param_session=handle)
        self.assertEqual((response.code, refused["error"]["code"]),
                         (400, -32600))
        self.assertEqual(response.headers.getRawHeaders("content-type"),
                         ["application/json"])
        gem.release()
        self.treq.flush()
        yield first

    @inlineCallbacks
    def test_roundRefusedBeforeItRanAnsweredOnItsStream(self):
        """
        A call whose round refuses it before it runs (answers that are no
        object) is answered on the stream its client asked for, as one
        refused as it runs.
        """
        handle = yield self.openSession()
        body = modern("tools/call", 9, dict(META, progressToken="p9"),
                      name="execute_code", inputResponses=[1],
                      arguments={"code": "3 + 4", "session": handle})
        response = yield self.treq.post(
            "http://127.0.0.1/mcp", data=json.dumps(body).encode(),
            headers=dict(JSON, **{"mcp-protocol-version": [VERSION],
                                  "mcp-method": ["tools/call"],
                                  "mcp-name": ["execute_code"],
                                  "mcp-param-session": [handle]}))
        content = yield response.content()
        self.assertEqual(response.headers.getRawHeaders("content-type"),
                         ["text/event-stream"])
        self.assertIn(b"inputResponses must be an object", content)

    @inlineCallbacks
    def test_taskWhoseCodeCommitted(self):
        """
        A call that became a task and whose code committed is the handle's
        last commit once it is over, and its result says it committed.
        """
        handle = yield self.openSession()
        gem = self.pool.opened[0]
        gem.held = True
        gem.moves["execute_code"] = True
        meta = dict(META, **{"io.modelcontextprotocol/clientCapabilities":
                             TASKS})
        created = yield self.tool(
            "execute_code", {"code": "System commitTransaction",
                             "session": handle}, meta=meta,
            mcp_param_session=handle)
        self.assertEqual(created["resultType"], "task")
        self.assertIsNone(self.sessions.work.get(handle).lastCommit)
        gem.release()
        self.treq.flush()
        _, body = yield self.send(modern("tasks/get", 6, meta,
                                         taskId=created["taskId"]))
        self.assertEqual(body["result"]["status"], "completed")
        self.assertEqual(body["result"]["result"]["_meta"],
                         {"gsmcpd/committed": True})
        self.assertEqual(self.sessions.work.get(handle).lastCommit.outcome,
                         "committed")

    @inlineCallbacks
    def test_deadGemNamesTheHandle(self):
        """
        A gem that dies closes its handle, and the error says which and
        what to do.
        """
        handle = yield self.openSession()

        def dies(args):
            raise GciError(4100, "session terminated", fatal=True)

        self.pool.opened[0].results["execute_code"] = dies
        response, body = yield self.send(modern(
            "tools/call", 41, name="execute_code",
            arguments={"code": "x", "session": handle}),
            mcp_param_session=handle)
        self.assertEqual((body["id"], body["error"]["code"]), (41, -32001))
        self.assertIn(handle, body["error"]["message"])
        self.assertIn("open_session", body["error"]["message"])
        self.assertIsNone(self.sessions.work.get(handle))

    @inlineCallbacks
    def test_deadThrowawayGemNamesNoHandle(self):
        """
        A throwaway session's client never knew its handle: its gem's death
        is told without one, and the call may simply be made again.
        """
        def dies(args):
            raise GciError(4100, "session terminated", fatal=True)

        self.pool.configure = lambda gem: gem.results.update(
            execute_code=dies)
        _, body = yield self.send(modern(
            "tools/call", 41, name="execute_code", arguments={"code": "x"}))
        self.assertEqual(body["error"]["data"],
                         {"kind": "sessionGone", "number": 4100})
        self.assertIn("throwaway", body["error"]["message"])
        self.assertNotIn(self.pool.opened[0].name, body["error"]["message"])
        self.assertEqual(len(self.sessions.work), 0)

    @inlineCallbacks
    def test_handleNotAString(self):
        """
        A handle that is not a string (its mirrored header agreeing) is
        invalid params with the request's id, not an internal error.
        """
        response, body = yield self.send(modern(
            "tools/call", 44, name="status", arguments={"session": ["a"]}),
            mcp_param_session="['a']")
        self.assertEqual(
            (response.code, body["id"], body["error"]["code"]),
            (400, 44, -32602))
        self.assertIn("'session'", body["error"]["message"])

    @inlineCallbacks
    def test_lastingChangeWithoutHandleRefused(self):
        """
        A tool whose point is a lasting change is refused without a
        handle, in one short message naming open_session; nothing logs in.
        """
        result = yield self.tool("commit")
        self.assertTrue(result["isError"])
        self.assertEqual(result["content"][0]["text"],
                         "commit needs a session of your own: call "
                         "open_session and pass the handle it answers as "
                         "'session'.")
        self.assertEqual(self.pool.opened, [])

    @inlineCallbacks
    def test_executeWithoutHandleRunsThrowaway(self):
        """
        execute_code without a handle answers on a throwaway session, says
        so in one line; its commits are locked from its login and it is
        logged out when the call ends, a spare logged in in its place.
        """
        self.sessions.warm.perUser = 2
        result = yield self.tool("execute_code", {"code": "3 + 4"})
        self.assertFalse(result["isError"], result)
        self.assertEqual([block["text"] for block in result["content"]],
                         ["7", THROWAWAY_NOTE])
        used, spare = self.pool.opened
        self.assertEqual([name for name, _ in used.calls],
                         ["disable_commits", "execute_code"])
        self.assertTrue(used.loggedOut)
        self.assertEqual([name for name, _ in spare.calls],
                         ["disable_commits"])
        self.assertFalse(spare.loggedOut)

    @inlineCallbacks
    def test_failedLoginAnswersLoginFailed(self):
        """
        A login that fails is answered as in the 2025 era: C{loginFailed},
        its GemStone error's reason kept for the log.
        """
        self.pool.loginError = GciError(
            4051, "login denied on !tcp@secret-host#server", fatal=True)
        for id, name in [(42, "open_session"), (43, "status")]:
            _, body = yield self.send(modern(
                "tools/call", id, name=name, arguments={}))
            self.assertEqual((body["id"], body["error"]["code"]),
                             (id, -32001))
            self.assertEqual(body["error"]["data"],
                             {"kind": "loginFailed", "number": 4051})
            self.assertNotIn("secret-host", json.dumps(body))
        self.assertEqual(len(self.flushLoggedErrors(GciError)), 0)

    @inlineCallbacks
    def test_loginTheStoneDoesNotAnswer(self):
        """
        C{open_session} whose login the stone does not answer within the
        deadline is answered C{stoneNotAnswering}; the login that answers
        later is logged out.
        """
        self.sessions.opener.loginDeadline = 10
        self.pool.loginDelay = Deferred()
        answering = self.send(modern("tools/call", 42, name="open_session",
                                     arguments={}))
        self.clock.advance(10)
        self.treq.flush()
        _, body = yield answering
        self.assertEqual(body["error"]["code"], -32001)
        self.assertEqual(body["error"]["data"],
                         {"kind": "stoneNotAnswering", "deadline": 10})
        self.pool.loginDelay.callback(None)
        self.assertTrue(self.pool.opened[-1].loggedOut)
        self.assertEqual(len(self.sessions.work), 0)

    @inlineCallbacks
    def test_readWithoutHandleRunsOnAFreshSession(self):
        """
        A read-only tool without a handle logs in, runs, and logs out.
        """
        result = yield self.tool("status")
        self.assertFalse(result["isError"], result)
        self.assertEqual(len(self.pool.opened), 1)
        self.assertTrue(self.pool.opened[0].loggedOut)
        self.assertEqual(len(self.sessions.work), 0)

    @inlineCallbacks
    def test_readsWithoutHandleTakeSpares(self):
        """
        With warm reads on, each read's session is logged out and a spare
        logged in ahead for the next, which takes it after one abort; a
        read ended by its deadline leaves no spare.
        """
        self.sessions.warm.perUser = 2
        for _ in range(2):
            result = yield self.tool("status")
            self.assertFalse(result["isError"], result)
        first, second, spare = self.pool.opened
        self.assertEqual([[tag for tag, _ in gem.calls] for gem in
                          self.pool.opened],
                         [["disable_commits", "status"],
                          ["disable_commits", "abort", "status"],
                          ["disable_commits"]])
        self.assertEqual([gem.loggedOut for gem in self.pool.opened],
                         [True, True, False])
        self.assertEqual(len(self.sessions.warm), 1)
        self.app.legacy.calls.work.deadline = 5
        spare.held = True
        answering = self.send(modern("tools/call", 8, META, name="status",
                                     arguments={}))
        spare.release()
        self.clock.advance(5)
        self.treq.flush()
        _, body = yield answering
        self.assertIn("deadline", body["error"]["message"])
        self.assertTrue(spare.loggedOut)
        self.assertEqual(len(self.pool.opened), 3)
        self.assertEqual(len(self.sessions.warm), 0)


class ThrowawayOverTheStoneTests(ModernTestCase):
    """
    Over the simulated stone: a throwaway session keeps nothing, not even a
    commit its user's own code sends.
    """

    def makePool(self):
        return StonePool()

    @inlineCallbacks
    def test_userCommitKeepsNothing(self):
        result = yield self.tool("execute_code", {
            "code": "UserGlobals at: #Kept put: 42. System commitTransaction"})
        self.assertTrue(result["isError"], result)
        self.assertEqual(result["structuredContent"]["error"]["number"],
                         COMMITS_DISABLED)
        self.assertIn("throwaway session", result["content"][0]["text"])
        handle = yield self.openSession()
        seen = yield self.tool("execute_code", {
            "code": "UserGlobals at: #Kept ifAbsent: ['nothing']",
            "session": handle}, mcp_param_session=handle)
        self.assertEqual(seen["content"][0]["text"], "'nothing'")

    @inlineCallbacks
    def test_sessionTempsNotCarriedOver(self):
        """
        What a call leaves in its session's SessionTemps (which an abort
        keeps) is there for the rest of that call, and for no later call
        without a handle: with a spare kept warm or without.
        """
        plant = "SessionTemps current at: #Planted put: 'x'. "
        look = "SessionTemps current at: #Planted ifAbsent: ['nothing']"
        for perUser in (2, 0):
            self.sessions.warm.perUser = perUser
            result = yield self.tool("execute_code", {"code": plant + look})
            self.assertEqual(result["content"][0]["text"], "'x'")
            result = yield self.tool("execute_code", {"code": look})
            self.assertEqual(result["content"][0]["text"], "'nothing'")

    @inlineCallbacks
    def test_warmSessionStaysLocked(self):
        """
        The lock lasts as long as the login: the next call that takes the
        session warm cannot commit either.
        """
        self.sessions.warm.perUser = 1
        yield self.tool("execute_code", {"code": "3 + 4"})
        result = yield self.tool("execute_code", {
            "code": "UserGlobals at: #Kept put: 42. System commitTransaction"})
        spare = self.pool.opened[1]
        self.assertIn("System commitTransaction", spare.sources[-1])
        self.assertEqual(result["structuredContent"]["error"]["number"],
                         COMMITS_DISABLED)

    @inlineCallbacks
    def test_handleSessionCommits(self):
        """
        A session of one's own, behind a handle, is not locked.
        """
        handle = yield self.openSession()
        yield self.tool("execute_code", {
            "code": "UserGlobals at: #Kept put: 42. System commitTransaction",
            "session": handle}, mcp_param_session=handle)
        seen = yield self.tool("execute_code", {
            "code": "UserGlobals at: #Kept ifAbsent: ['nothing']"})
        self.assertEqual(seen["content"][0]["text"], "42")


class ListenTests(ModernTestCase):

    def makeHandlers(self):
        return Handlers(ToolCatalog.named(("browsing", "execution",
                                             "session")), ServerIdentity())

    @inlineCallbacks
    def stream(self, method, body, headers):
        response = yield self.treq.request(
            method, "http://127.0.0.1/mcp", unbuffered=True,
            data=None if body is None else json.dumps(body).encode(),
            headers=headers)
        received = []
        response.deliverBody(Collector(received))
        self.treq.flush()
        return received

    def messages(self, received):
        return [json.loads(line[len(b"data: "):])
                for line in b"".join(received).split(b"\n")
                if line.startswith(b"data: ")]

    @inlineCallbacks
    def test_commitTellsSubscribersOfBothEras(self):
        """
        A 2026 listener is acknowledged first; it and a subscribed 2025
        session are told when another session's commit changed the class.
        """
        modernHeard = yield self.stream("POST", modern(
            "subscriptions/listen", 70, notifications={
                "resourceSubscriptions": [SOURCE]}), dict(
            JSON, **{"mcp-protocol-version": [VERSION],
                     "mcp-method": ["subscriptions/listen"]}))
        legacy, _ = yield self.initialize()
        yield self.post(request("resources/subscribe", uri=SOURCE), legacy)
        legacyHeard = yield self.stream("GET", None, {
            "mcp-session-id": [legacy], "accept": ["text/event-stream"]})
        handle = yield self.openSession()
        self.sessions.work.get(handle).journal.record(
            "compiled", "Account>>withdraw:", "Account")
        yield self.tool("commit", {"session": handle},
                        mcp_param_session=handle)
        self.treq.flush()
        acknowledged, updated = self.messages(modernHeard)
        self.assertEqual(acknowledged["method"],
                         "notifications/subscriptions/acknowledged")
        self.assertEqual(updated["params"], {
            "uri": SOURCE,
            "_meta": {"io.modelcontextprotocol/subscriptionId": 70}})
        self.assertEqual([m["params"] for m in self.messages(legacyHeard)],
                         [{"uri": SOURCE}])

    @inlineCallbacks
    def test_malformedFilter(self):
        response, body = yield self.send(modern(
            "subscriptions/listen", 71, notifications=[]))
        self.assertEqual((response.code, body["error"]["code"]),
                         (400, -32602))

    @inlineCallbacks
    def test_oversizedFilter(self):
        """
        A listen naming more resources than a session may subscribe to is
        refused with the request's id, and opens no stream.
        """
        response, body = yield self.send(modern(
            "subscriptions/listen", 72, notifications={
                "resourceSubscriptions": [SOURCE] * 100_000}))
        self.assertEqual(
            (response.code, body["id"], body["error"]["code"]),
            (400, 72, -32602))
        self.assertEqual(len(self.notices), 0)


class HandleLifetimeTests(ModernTestCase):

    def elapse(self, seconds):
        """
        Let C{seconds} pass, with a maintenance pass every ten.
        """
        for _ in range(int(seconds // 10)):
            self.clock.advance(10)
            self.reaper.maintain()

    @inlineCallbacks
    def test_idleTimeoutNotStreamless(self):
        """
        A session behind a handle never has a stream, so it lives under the
        handle idle timeout, not the minute a 2025 session without one gets.
        """
        policy = LifetimePolicy()
        self.reaper = Reaper(self.sessions, self.app.pending, policy,
                             self.clock)
        handle = yield self.openSession()
        self.elapse(policy.handleIdleTimeout - 10)
        self.assertIsNotNone(self.sessions.work.get(handle))
        self.elapse(20)
        self.assertIsNone(self.sessions.work.get(handle))
        self.assertTrue(self.pool.opened[0].loggedOut)


class ConformanceFixtureTests(ModernTestCase):

    def makeHandlers(self):
        return Handlers(ToolCatalog.named((TOOLSET,)),
                          ServerIdentity())

    @inlineCallbacks
    def test_noWorkSessionForWhatNeverTouchesTheStone(self):
        """
        A call of a tool that never touches the stone carries no work
        session (none is made for it, not even a stand-in), and its
        client's facts, its log level among them, are its own request's.
        """
        seen = []
        runner = self.app.legacy.calls
        answer = runner.answer

        def answering(request, method, opening, **kw):
            def opened():
                # Built once the call is admitted, its stream opened then.
                seen.append((request, opening()))
                return seen[-1][1]
            return answer(request, method, opening=opened, **kw)

        self.patch(runner, "answer", answering)
        meta = dict(META, **{"io.modelcontextprotocol/logLevel": "error"})
        requesting = self.treq.request(
            "POST", "http://127.0.0.1/mcp", unbuffered=True,
            data=json.dumps(modern("tools/call", 7, meta,
                                   name="test_logging_tool",
                                   arguments={})).encode(),
            headers=dict(JSON, **{
                "mcp-protocol-version": [VERSION],
                "mcp-method": ["tools/call"],
                "mcp-name": ["test_logging_tool"]}))
        for _ in range(3):
            self.clock.advance(60)
            self.treq.flush()
        response = yield requesting
        received = []
        response.deliverBody(Collector(received))
        self.treq.flush()
        events = b"".join(received)
        self.assertIn(b"Logging test completed.", events)
        self.assertNotIn(b"notifications/message", events)
        [(request, context)] = seen
        self.assertIsNone(request.work)
        self.assertEqual(request.clientCapabilities, {"elicitation": {}})
        self.assertEqual((context.wantsLog("info"), context.wantsLog("error")),
                         (False, True))
        self.assertEqual((len(self.sessions.work), self.pool.opened), (0, []))

    @inlineCallbacks
    def test_inputRequiredRounds(self):
        first = yield self.tool("test_input_required_result_elicitation")
        self.assertEqual(first["resultType"], "input_required")
        response, body = yield self.send(modern(
            "tools/call", 3, name="test_input_required_result_elicitation",
            arguments={}, requestState=first["requestState"],
            inputResponses={"user_name": {"action": "accept",
                                          "content": {"name": "Ann"}}}))
        self.assertEqual(body["result"]["content"][0]["text"], "Hello, Ann!")

    @inlineCallbacks
    def test_tamperedState(self):
        first = yield self.tool("test_input_required_result_tampered_state")
        response, body = yield self.send(modern(
            "tools/call", 4, name="test_input_required_result_tampered_state",
            arguments={}, requestState=first["requestState"] + "x",
            inputResponses={}))
        self.assertEqual((response.code, body["error"]["code"]), (400, -32602))

    @inlineCallbacks
    def test_missingCapability(self):
        response, body = yield self.send(modern(
            "tools/call", 5, name="test_missing_capability", arguments={}))
        self.assertEqual((response.code, body["error"]["code"]), (400, -32021))

    @inlineCallbacks
    def test_task(self):
        """
        A call that does not finish at once becomes a task the client
        polls; cancelling it ends it.
        """
        meta = dict(META, **{"io.modelcontextprotocol/clientCapabilities":
                             TASKS})
        created = yield self.tool("slow_compute", {"seconds": 60}, meta=meta)
        self.assertEqual((created["resultType"], created["status"]),
                         ("task", "working"))
        taskId = created["taskId"]
        response, body = yield self.send(modern("tasks/get", 6, meta,
                                                taskId=taskId))
        self.assertEqual(body["result"]["status"], "working")
        response, body = yield self.send(modern("tasks/cancel", 7, meta,
                                                taskId=taskId))
        self.assertEqual(body["result"], {"resultType": "complete"})
        response, body = yield self.send(modern("tasks/get", 8, meta,
                                                taskId=taskId))
        self.assertEqual(body["result"]["status"], "cancelled")
        response, body = yield self.send(modern("tasks/get", 9,
                                                taskId=taskId))
        self.assertEqual((response.code, body["error"]["code"]),
                         (400, -32021))


class LegacyUntouchedTests(ModernTestCase):

    maxSessions = 1

    @inlineCallbacks
    def test_initializeEvictsAnIdleReadSession(self):
        """
        A 2025 initialize is not refused while an idle read session holds
        the last slot: that session is logged out first; and a 2025
        session is never kept warm.
        """
        self.sessions.warm.perUser = 2
        yield self.tool("status")
        handle, _ = yield self.initialize()
        self.assertTrue(self.pool.opened[0].loggedOut)
        yield self.treq.delete("http://127.0.0.1/mcp",
                               headers={"mcp-session-id": [handle]})
        self.assertEqual((len(self.sessions.work), len(self.sessions.warm)),
                         (0, 0))

    @inlineCallbacks
    def test_2025ClientUnchanged(self):
        """
        A 2025 client sees its schemas without the session argument and no
        2026 tools; server/discover answers it in the 2025 shape.
        """
        handle, _ = yield self.initialize()
        _, body = yield self.post(request("tools/list"), handle)
        names = [tool["name"] for tool in body["result"]["tools"]]
        self.assertNotIn("open_session", names)
        self.assertNotIn("session", json.dumps(
            body["result"]["tools"][0]["inputSchema"]))
        _, body = yield self.post(request("server/discover"), handle)
        self.assertEqual(body["result"]["serverInfo"]["name"], "gsmcpd")
        self.assertNotIn("resultType", body["result"])


class FullServerTests(ModernTestCase):

    maxSessions = 1

    def makeHandlers(self):
        return Handlers(ToolCatalog.named(("browsing", "session")),
                        ServerIdentity())

    @inlineCallbacks
    def test_resourceReadOnAFullServer(self):
        """
        A resource read while every GemStone session is taken answers the
        full server's C{sessionLimit}, as a tool call does, not an
        internal error.
        """
        yield self.openSession()
        response, body = yield self.send(modern(
            "resources/read", 5, uri="gemstone://class/Object/definition"))
        self.assertEqual((response.code, body["id"], body["error"]["code"],
                          body["error"]["data"]),
                         (200, 5, -32001, {"kind": "sessionLimit",
                                           "limit": 1}))
        self.assertIn("close_session", body["error"]["message"])

"""
Every refusal audited and counted, in both eras, under the same outcome
names (L{gsmcpd.observe.metrics.REFUSALS}), each answered as it always
was; and an input-required round recorded as the question it is.
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.metrics import Metrics
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.sessions.shares import FairShares
from gsmcpd.tools.catalog import ToolCatalog, buildToolsets
from tests.daemon.test_security import _Authenticated
from tests.transport.test_modern import ModernTestCase, modern
from tests.transport.test_web import TransportTestCase, request

MADE_UP = "0123456789abcdef" * 2


class _Recorded(_Authenticated):
    """
    The authenticated transport, every call audited and counted; commits
    confirmed first (an input-required round in the 2026 era).
    """

    def makeApp(self, dispatcher):
        self.metrics = Metrics("1", processMetrics=False)
        toolsets = buildToolsets(("execution", "session", "browsing"),
                                 {"session": {"confirmDestructive": True}})
        return self.buildApp(
            Handlers(ToolCatalog(toolsets), ServerIdentity()),
            AuditLog(self.events.append, "DataCurator"), self.metrics)

    def ended(self):
        """
        The C{toolCall} lines so far: tool, outcome, and whether a
        C{callStarted} line came before.
        """
        started = {event["callId"] for event in self.events
                   if event["event"] == "callStarted"}
        return [(event["tool"], event["outcome"],
                 event["callId"] in started) for event in self.events
                if event["event"] == "toolCall"]

    def counted(self, kind):
        return self.metrics.registry.get_sample_value(
            "gsmcpd_call_refusals_total", {"kind": kind}) or 0

    def calls(self):
        """
        Every tool call counted as one that ran, by outcome.
        """
        counts = {}
        for family in self.metrics.registry.collect():
            for sample in family.samples:
                if sample.name == "gsmcpd_tool_calls_total":
                    outcome = sample.labels["outcome"]
                    counts[outcome] = counts.get(outcome, 0) + sample.value
        return counts


class LegacyRefusalTests(_Recorded, TransportTestCase):

    @inlineCallbacks
    def test_notInScope(self):
        """
        A tool the token's scopes do not open is answered as a tool that
        does not exist, and recorded as refused before it ran; a tool that
        does not exist is a protocol error.
        """
        self.token = self.provider.token(sub="Alice", scope="read")
        handle, _ = yield self.initialize()
        refused = yield self.call(handle, "execute_code", {"code": "1"})
        unknown = yield self.call(handle, "no_such_tool", {})
        self.assertEqual(refused["error"]["message"],
                         "Invalid params: unknown tool 'execute_code'")
        self.assertEqual(unknown["error"]["code"], -32602)
        self.assertEqual(self.ended(), [
            ("execute_code", "refused:notInScope", False),
            ("no_such_tool", "protocolError:-32602", True)])
        self.assertEqual(self.counted("notInScope"), 1)
        self.assertEqual(self.pool.opened[-1].calls, [])


class ModernRefusalTests(_Recorded, ModernTestCase):

    @inlineCallbacks
    def refused(self, name, arguments, **headers):
        response, body = yield self.send(modern(
            "tools/call", 7, name=name, arguments=arguments), **headers)
        return response.code, body

    @inlineCallbacks
    def test_notInScope(self):
        handle = yield self.openSession()
        self.token = self.provider.token(sub="Alice", scope="read")
        status, body = yield self.refused(
            "execute_code", {"code": "1", "session": handle},
            mcp_param_session=handle)
        self.assertEqual((status, body["error"]["message"]), (
            400, "Invalid params: unknown tool 'execute_code'"))
        self.assertEqual(self.ended()[-1],
                         ("execute_code", "refused:notInScope", False))
        self.assertEqual(self.counted("notInScope"), 1)

    @inlineCallbacks
    def test_callsThatCannotBeMade(self):
        """
        A call of no such tool, or with arguments that are not an object,
        is recorded as the protocol error it is answered, as in the 2025
        era.
        """
        for id, name, arguments in ((5, "no_such_tool", {}),
                                    (6, "execute_code", [1])):
            response, body = yield self.send(modern(
                "tools/call", id, name=name, arguments=arguments))
            self.assertEqual((response.code, body["error"]["code"]),
                             (400, -32602))
        self.assertEqual(self.ended(), [
            ("no_such_tool", "protocolError:-32602", True),
            ("execute_code", "protocolError:-32602", True)])

    @inlineCallbacks
    def test_foreignHandleAsUnknown(self):
        """
        Another identity's handle and a made-up one get the same answer;
        only the audit tells them apart, and the metric counts both as
        C{noSuchHandle}.
        """
        handle = yield self.openSession()
        self.token = self.provider.token(sub="Mallory", scope="write")
        answers = []
        for each in (handle, MADE_UP):
            status, body = yield self.refused(
                "execute_code", {"code": "1", "session": each},
                mcp_param_session=each)
            answers.append((status, body["error"]["code"],
                            body["error"]["message"].replace(each, "H")))
        self.assertEqual(answers[0], answers[1])
        self.assertEqual(answers[0][:2], (404, -32004))
        self.assertEqual(self.ended()[-2:], [
            ("execute_code", "refused:foreignHandle", False),
            ("execute_code", "refused:unknownHandle", False)])
        self.assertEqual(self.counted("noSuchHandle"), 2)
        self.assertEqual(self.pool.opened[-1].calls, [])

    @inlineCallbacks
    def test_overItsShare(self):
        """
        A session or a call over its share is recorded as refused before
        it ran and counted, as every refusal is; a 2025 initialize over it
        is counted (no audit line names one).
        """
        self.sessions.shares.caps = FairShares(
            callsPerSession=1, callsPerIdentity=None, sessionsPerIdentity=1)
        handle = yield self.openSession()
        status, body = yield self.refused("open_session", {})
        self.assertEqual((status, body["error"]["data"]["kind"]),
                         (200, "shareCap"))
        self.assertEqual(self.ended()[-1],
                         ("open_session", "refused:shareCap", True))
        self.pool.opened[-1].held = True
        self.send(modern("tools/call", 8, name="execute_code", arguments={
            "code": "1", "session": handle}), mcp_param_session=handle)
        status, body = yield self.refused(
            "execute_code", {"code": "2", "session": handle},
            mcp_param_session=handle)
        self.assertEqual((status, body["error"]["data"]["cap"]),
                         (400, "calls-per-session"))
        self.assertEqual(self.ended()[-1],
                         ("execute_code", "refused:shareCap", False))
        _, body = yield self.post(request(
            "initialize", protocolVersion="2025-11-25", capabilities={},
            clientInfo={"name": "alice", "version": "0"}))
        self.assertEqual(body["error"]["data"]["kind"], "shareCap")
        self.assertEqual(self.counted("shareCap"), 3)

    @inlineCallbacks
    def test_closingAForeignHandle(self):
        handle = yield self.openSession()
        self.token = self.provider.token(sub="Mallory", scope="write")
        status, body = yield self.refused("close_session",
                                          {"session": handle},
                                          mcp_param_session=handle)
        self.assertEqual(status, 404)
        self.assertEqual(self.ended()[-1],
                         ("close_session", "refused:foreignHandle", True))
        self.assertIsNotNone(self.sessions.work.get(handle))

    @inlineCallbacks
    def test_notAHandle(self):
        status, body = yield self.refused(
            "execute_code", {"code": "1", "session": "mine"},
            mcp_param_session="mine")
        self.assertTrue(body["result"]["isError"])
        self.assertEqual(self.ended(),
                         [("execute_code", "refused:unknownHandle", False)])

    @inlineCallbacks
    def test_handleRequired(self):
        """
        A tool whose whole point is a lasting change, called without a
        handle, is refused before any session is lent for it.
        """
        status, body = yield self.refused("commit", {})
        self.assertEqual(body["result"]["structuredContent"]["error"]["kind"],
                         "refused")
        self.assertEqual(self.ended(),
                         [("commit", "refused:handleRequired", False)])
        self.assertEqual(self.counted("handleRequired"), 1)
        self.assertEqual(self.pool.opened, [])

    @inlineCallbacks
    def test_tamperedState(self):
        """
        A C{requestState} this daemon did not seal is refused before a
        session is lent for the call, and recorded as such.
        """
        handle = yield self.openSession()
        response, body = yield self.send(modern(
            "tools/call", 4, name="commit", arguments={"session": handle},
            requestState="s1.e30.forged", inputResponses={}),
            mcp_param_session=handle)
        self.assertEqual((response.code, body["error"]["code"]),
                         (400, -32602))
        self.assertEqual(self.ended()[-1],
                         ("commit", "refused:tamperedState", False))
        self.assertEqual(self.counted("tamperedState"), 1)
        self.assertEqual(self.pool.opened[-1].calls, [])

    @inlineCallbacks
    def test_confirmationIsAQuestion(self):
        """
        A commit's confirmation round is recorded as C{askedForInput} and
        counted apart from errors; the confirmed round commits.
        """
        handle = yield self.openSession()
        first = yield self.tool("commit", {"session": handle},
                                mcp_param_session=handle,
                                accept="application/json")
        self.assertEqual(first["resultType"], "input_required")
        [key] = first["inputRequests"]
        response, body = yield self.send(modern(
            "tools/call", 8, name="commit", arguments={"session": handle},
            requestState=first["requestState"],
            inputResponses={key: {"action": "accept",
                                  "content": {"confirm": True}}}),
            mcp_param_session=handle, accept="application/json")
        self.assertEqual(body["result"]["structuredContent"],
                         {"committed": True}, body)
        self.assertEqual(self.ended()[-2:], [
            ("commit", "askedForInput", True), ("commit", "ok", True)])
        self.assertEqual(self.calls(), {"ok": 2, "askedForInput": 1})

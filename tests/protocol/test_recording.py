"""
Tests for L{gsmcpd.protocol.recording}: a tool call's record, admitted
and begun before it runs, made when the call is really over (whether or
not its client still waits), and a refusal recorded as one.
"""

import hashlib
import json

from twisted.internet.defer import inlineCallbacks
from twisted.logger import capturedLogs
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.gci.errors import GciError
from gsmcpd.observe.audit import AuditLog, CallRefused
from gsmcpd.observe.auditfile import AuditFile
from gsmcpd.observe.calloutcome import (
    ASKED,
    COMMITTED_META,
    DISCARDED_META,
    NO_ANSWER,
    UNSETTLED,
)
from gsmcpd.observe.metrics import Metrics
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError, parseMessage
from gsmcpd.protocol.kinds import KINDS
from gsmcpd.protocol.recording import CANCELLED, CallRecords, outcomeOf, unrefused
from gsmcpd.sessions.notes import MOVED_NOTE
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.base import Tool, ToolError, annotations, closedSchema
from gsmcpd.tools.questions import InputRequired
from tests.fakes import FakeGem
from tests.observe.test_auditfile import Disk
from tests.transport.test_modern import ModernTestCase, modern
from tests.transport.test_web import TransportTestCase, request


def facts(name="commit", work=None):
    """
    A C{tools/call} of C{name}'s facts, in C{work}.
    """
    tool = Tool(name, name, "", closedSchema(), annotations(False), None)
    return RequestFacts("tools/call", {"name": name}, 3, None, {},
                        work=work, tool=tool, arguments={})


class Clocked:
    """
    A clock at a moment in 2027 that the test moves.
    """

    def __init__(self):
        self.now = 1_800_000_000.0

    def seconds(self):
        return self.now


def sample(metrics, name, **labels):
    return metrics.registry.get_sample_value(name, labels) or 0


class OutcomeOfTests(SynchronousTestCase):
    """
    A call's outcome as it is counted and audited.
    """

    def test_inputRequiredIsAQuestion(self):
        """
        An input-required round is recorded as the question it is, never
        as an internal error.
        """
        self.assertIs(outcomeOf(Failure(InputRequired({"confirm": {}}, {}))),
                      ASKED)

    def test_noAnswer(self):
        self.assertIs(outcomeOf(CANCELLED), NO_ANSWER)
        self.assertIs(outcomeOf(None), NO_ANSWER)

    def test_bugIsAnInternalError(self):
        self.assertEqual(outcomeOf(Failure(RuntimeError("a bug"))).code,
                         -32603)

    def test_resultLeftToItsRecord(self):
        """
        A result is answered as it is: its record reads it (in
        L{gsmcpd.observe.observed}), with the handle it names.
        """
        result = {"structuredContent": {"session": "h1"}}
        self.assertIs(outcomeOf(result), result)

    def test_unrefused(self):
        """
        A refusal answers its tool error as the result, or its JSON-RPC
        error; any other outcome is itself.
        """
        answer = unrefused(Failure(CallRefused(
            "handleRequired", ToolError("refused", "needs a session"))))
        self.assertEqual((answer["isError"], answer["structuredContent"][
            "error"]["kind"]), (True, "refused"))
        error = JsonRpcError(INVALID_PARAMS, "Invalid params: unknown tool")
        self.assertIs(unrefused(Failure(CallRefused("notInScope", error)))
                      .value, error)
        self.assertEqual(unrefused({"x": 1}), {"x": 1})


class CallRecordTests(SynchronousTestCase):

    def setUp(self):
        self.events = []
        self.metrics = Metrics("1", processMetrics=False)
        self.clock = Clocked()
        self.records = CallRecords(
            self.clock, AuditLog(self.events.append, "DataCurator"),
            self.metrics)
        self.work = WorkSession("0123456789abcdef" * 2, FakeGem())

    def test_commitBecomesTheLastCommit(self):
        """
        A commit's answer is its session's last commit: the stone's
        answer, when it came, and what the journal held when it began.
        """
        self.work.journal.record("compiled", "Account>>withdraw:", "Account")
        record = self.records.started(facts(work=self.work))
        self.work.journal.committed()
        self.clock.now += 2
        record.ended({"content": [], "isError": False,
                      "structuredContent": {"committed": True}})
        last = self.work.lastCommit
        self.assertEqual((last.outcome, last.at, last.changes), (
            "committed", 1_800_000_002.0, ("compiled Account>>withdraw:",)))
        self.assertEqual(sample(self.metrics, "gsmcpd_commits_total",
                                outcome="committed"), 1)
        self.assertEqual([event["event"] for event in self.events],
                         ["callStarted", "toolCall", "commit"])

    def test_commitEndedByTheServerIsUnknown(self):
        """
        A commit the server ended before the stone answered (its
        deadline, its held commit record, its gem gone) may have
        committed: its session's last commit says C{unknown}, and so do
        the audit and the metrics.
        """
        self.assertLessEqual(UNSETTLED, KINDS)
        for count, kind in enumerate(sorted(UNSETTLED), 1):
            record = self.records.started(facts(work=self.work))
            self.clock.now += 1
            record.ended(Failure(JsonRpcError(
                -32001, "ended", {"kind": kind})))
            self.assertEqual((self.work.lastCommit.outcome,
                              self.work.lastCommit.at),
                             ("unknown", self.clock.now))
            self.assertEqual(self.events[-1]["result"], "unknown")
            self.assertEqual(sample(self.metrics, "gsmcpd_commits_total",
                                    outcome="unknown"), count)

    def test_commitThatNeverRanLeavesTheLastOne(self):
        """
        A commit that never reached the stone (a protocol error) leaves
        the session's last commit as it was.
        """
        record = self.records.started(facts(work=self.work))
        record.ended(Failure(JsonRpcError(-32602, "bad arguments")))
        self.assertIsNone(self.work.lastCommit)

    def test_askedForInputCountedApart(self):
        record = self.records.started(facts(name="delete_method",
                                            work=self.work))
        record.ended(Failure(InputRequired({"confirm": {}}, {})))
        self.assertEqual(self.events[-1]["outcome"], "askedForInput")
        self.assertEqual(sample(
            self.metrics, "gsmcpd_tool_calls_total", tool="delete_method",
            outcome="askedForInput"), 1)
        self.assertEqual(sample(self.metrics, "gsmcpd_tool_calls_total",
                                tool="delete_method", outcome="error"), 0)

    def test_refusalInsideTheCall(self):
        """
        A refusal raised once the call began is recorded under its
        C{callId} as the refusal it is, and counted as one only.
        """
        record = self.records.started(facts(name="execute_code",
                                            work=self.work))
        record.ended(Failure(CallRefused("shareCap", ToolError(
            "refused", "this session has its share of tasks"))))
        started, refused = self.events
        self.assertEqual((refused["callId"], refused["outcome"]),
                         (started["callId"], "refused:shareCap"))
        self.assertEqual(sample(self.metrics, "gsmcpd_call_refusals_total",
                                kind="shareCap"), 1)
        self.assertEqual(sample(self.metrics, "gsmcpd_calls_in_flight"), 0)
        self.assertEqual(sample(self.metrics, "gsmcpd_tool_calls_total",
                                tool="execute_code", outcome="toolError"), 0)

    def test_unwritableTrailRefuses(self):
        """
        A call whose audit line cannot be written does not start: it is
        refused as C{auditUnavailable}, and never counted as a call.
        """
        disk, path = Disk(), self.mktemp()
        audit = AuditLog(AuditFile(path, disk.open), "DataCurator")
        self.addCleanup(audit.close)
        records = CallRecords(self.clock, audit, self.metrics)
        records.admit()
        disk.full = True
        with capturedLogs():
            refusal = self.assertRaises(CallRefused, records.started,
                                        facts(work=self.work))
            self.assertEqual(refusal.kind, "auditUnavailable")
            self.assertEqual(refusal.error.data,
                             {"kind": "auditUnavailable"})
            # The file is for the operator's log, not for clients.
            self.assertNotIn(path, refusal.error.message)
            self.assertRaises(CallRefused, records.admit)
        self.assertEqual(sample(self.metrics, "gsmcpd_calls_in_flight"), 0)


class RealEndTests(TransportTestCase):
    """
    Over the 2025 adapter: a call whose client stops waiting is recorded
    when it is over, with what it did; a commit is not broken by its
    client.
    """

    @inlineCallbacks
    def setUp(self):
        super().setUp()
        self.events = []
        self.metrics = Metrics("1", processMetrics=False)
        self.watch(AuditLog(self.events.append, "DataCurator"), self.metrics)
        self.handle, _ = yield self.initialize()
        self.work = self.sessions.work.get(self.handle)
        self.gem = self.pool.opened[0]

    def start(self, name, id=5, **arguments):
        """
        A call of C{name} on the session, its gem's answer held: the
        client's answer.
        """
        self.gem.held = True
        return self.app.legacy.answer(
            self.sessions.clients.get(self.handle), parseMessage(json.dumps(
                request("tools/call", id, name=name,
                        arguments=arguments)).encode()))

    def ended(self):
        return [(event["event"], event.get("outcome"), event.get("result"))
                for event in self.events if event["event"] != "callStarted"]

    def test_commitWhoseClientHangsUpCommits(self):
        """
        A client that stops waiting for its commit is answered nothing at
        once, but the commit is not broken: once the stone answers, it is
        a committed commit in the audit, the metrics and the session's
        last commit.
        """
        self.work.journal.record("compiled", "Account>>withdraw:", "Account")
        answer = self.start("commit")
        answer.cancel()
        self.assertIsNone(self.successResultOf(answer))
        self.assertEqual((self.gem.interrupts, self.ended()), ([], []))
        self.assertEqual(sample(self.metrics, "gsmcpd_calls_in_flight"), 1)
        self.gem.release()
        self.assertEqual(self.ended(), [("toolCall", "ok", None),
                                        ("commit", None, "committed")])
        self.assertEqual(sample(self.metrics, "gsmcpd_commits_total",
                                outcome="committed"), 1)
        self.assertEqual(sample(self.metrics, "gsmcpd_calls_in_flight"), 0)
        self.assertEqual(self.work.lastCommit.changes,
                         ("compiled Account>>withdraw:",))
        self.assertEqual(self.work.calls.running, {})

    def test_codeThatCommittedWhoseClientHangsUp(self):
        """
        Code whose envelope says a commit moved the view is a committed
        commit in the audit, the metrics and the session's last commit,
        named by its digest, though its client stopped waiting.
        """
        self.gem.moves["execute_code"] = True
        self.gem.ignores = {"soft"}
        self.work.journal.record("compiled", "Account>>withdraw:", "Account")
        answer = self.start("execute_code", code="System commitTransaction")
        answer.cancel()
        self.gem.release()
        self.assertIsNone(self.successResultOf(answer))
        self.assertEqual(self.ended(), [("toolCall", "ok", None),
                                        ("commit", None, "committed")])
        self.assertEqual(sample(self.metrics, "gsmcpd_commits_total",
                                outcome="committed"), 1)
        digest = hashlib.sha256(b"System commitTransaction").hexdigest()
        self.assertEqual(self.work.lastCommit.changes, (
            "compiled Account>>withdraw:", f"execute_code {digest[:12]}"))
        self.assertEqual(len(self.work.journal), 0)

    def test_codeThatMayHaveCommitted(self):
        """
        Code whose envelope says the view moved but not whether by a
        commit is recorded as a commit of unknown outcome in the audit,
        the metrics and the session's last commit; nothing is counted as
        committed.
        """
        self.gem.moves["execute_code"] = None
        answer = self.start("execute_code", code="System abortTransaction")
        self.gem.release()
        result = self.successResultOf(answer)["result"]
        self.assertEqual(result["_meta"], {COMMITTED_META: None})
        self.assertEqual(self.ended(), [("toolCall", "ok", None),
                                        ("commit", None, "unknown")])
        self.assertEqual(sample(self.metrics, "gsmcpd_commits_total",
                                outcome="unknown"), 1)
        self.assertEqual(sample(self.metrics, "gsmcpd_commits_total",
                                outcome="committed"), 0)
        self.assertEqual(self.work.lastCommit.outcome, "unknown")

    def test_lostViewDropsTheChanges(self):
        """
        A call the stone ended by revoking the session's view (3031) lost
        the changes it held: its result says the view moved and nothing is
        held, and the changes a later commit would have named are gone
        from the journal and the audit.
        """
        def lost(arguments):
            raise GciError(3031, "the stone revoked this session's view")
        self.gem.results["execute_code"] = lost
        self.work.journal.record("compiled", "Account>>withdraw:", "Account")
        answer = self.start("execute_code", code="3 + 4")
        self.gem.release()
        result = self.successResultOf(answer)["result"]
        self.assertTrue(result["isError"])
        self.assertEqual(result["_meta"], {DISCARDED_META: True})
        self.assertIn(MOVED_NOTE, [each["text"] for each in result["content"]])
        self.assertEqual(len(self.work.journal), 0)

    def test_commitStillEndedByItsDeadline(self):
        """
        A commit its client stopped waiting for is still ended by its
        deadline, and recorded so: it may have committed, so its outcome
        is C{unknown}, and C{status} says so.
        """
        self.requestTimeout = 30
        self.watch(AuditLog(self.events.append, "DataCurator"), self.metrics)
        answer = self.start("commit")
        answer.cancel()
        self.clock.advance(31)
        self.assertEqual(self.gem.interrupts, [False])
        self.assertEqual(self.ended(), [
            ("toolCall", "protocolError:-32001", None),
            ("commit", None, "unknown")])
        self.assertEqual(self.work.lastCommit.outcome, "unknown")

    def test_commitThatCommittedPastItsDeadline(self):
        """
        A commit whose deadline came while the stone was committing, and
        which took neither break, answers and records what the stone did:
        committed, not the deadline's message (which says uncommitted
        changes survive).
        """
        self.requestTimeout = 30
        self.watch(AuditLog(self.events.append, "DataCurator"), self.metrics)
        self.work.journal.record("compiled", "Account>>withdraw:", "Account")
        self.gem.ignores = {"soft", "hard"}
        answer = self.start("commit")
        self.clock.advance(31)
        self.assertEqual(self.gem.interrupts, [False])
        self.assertNoResult(answer)
        self.gem.release()
        response = self.successResultOf(answer)
        self.assertTrue(response["result"]["structuredContent"]["committed"])
        self.assertEqual(self.ended(), [("toolCall", "ok", None),
                                        ("commit", None, "committed")])
        self.assertEqual(self.work.lastCommit.outcome, "committed")

    def test_cancelledCallBrokenIsNoAnswer(self):
        answer = self.start("execute_code", code="(Delay forSeconds: 9) wait")
        answer.cancel()
        self.assertEqual(self.gem.interrupts, [False])
        self.assertIsNone(self.successResultOf(answer))
        self.assertEqual(self.ended(), [("toolCall", "noAnswer", None)])

    def test_cancelledCallThatFinishedAnyway(self):
        """
        A call that finished despite the break its client's hang-up sent
        is recorded as what it did.
        """
        self.gem.ignores = {"soft"}
        answer = self.start("execute_code", code="3 + 4")
        answer.cancel()
        self.assertEqual(self.ended(), [])
        self.gem.release()
        self.assertIsNone(self.successResultOf(answer))
        self.assertEqual(self.ended(), [("toolCall", "ok", None)])

    @inlineCallbacks
    def test_statusNamesTheLastCommit(self):
        body = yield self.call(self.handle, "status", {})
        self.assertIsNone(body["result"]["structuredContent"]["lastCommit"])
        self.assertIn("last commit: none", body["result"]["content"][0][
            "text"])
        self.work.journal.record("compiled", "Account>>withdraw:", "Account")
        yield self.call(self.handle, "commit", {})
        body = yield self.call(self.handle, "status", {})
        last = body["result"]["structuredContent"]["lastCommit"]
        self.assertEqual(last, {"outcome": "committed",
                                "at": "1970-01-01T00:00:00+00:00",
                                "changes": ["compiled Account>>withdraw:"]})


class AuditUnavailableTests(TransportTestCase):
    """
    While the audit trail cannot be written, no tool call runs.
    """

    @inlineCallbacks
    def setUp(self):
        super().setUp()
        self.disk = Disk()
        self.audit = AuditLog(AuditFile(self.mktemp(), self.disk.open),
                              "DataCurator")
        self.addCleanup(self.audit.close)
        self.metrics = Metrics("1", processMetrics=False)
        self.watch(self.audit, self.metrics)
        self.handle, _ = yield self.initialize()
        self.gem = self.pool.opened[0]

    @inlineCallbacks
    def test_refusedBeforeItRuns(self):
        """
        The first call whose line cannot be written is refused before it
        runs, with an error an agent can act on; so is every one after.
        """
        self.disk.full = True
        with capturedLogs() as logged:
            for id in (2, 3):
                body = yield self.call(self.handle, "execute_code",
                                       {"code": "3 + 4"}, id=id)
                error = body["error"]
                self.assertEqual((error["code"], error["data"]),
                                 (-32001, {"kind": "auditUnavailable"}))
        self.assertIn("Try again later", error["message"])
        self.assertEqual(self.gem.calls, [])
        self.assertEqual(sample(self.metrics, "gsmcpd_call_refusals_total",
                                kind="auditUnavailable"), 2)
        self.assertEqual([event["outcome"] for event in logged
                          if event.get("event") == "toolCall"],
                         ["refused:auditUnavailable"] * 2)


class ModernAuditUnavailableTests(ModernTestCase):
    """
    A 2026 call is refused before a session is lent for it.
    """

    def setUp(self):
        super().setUp()
        disk = Disk()
        disk.full = True
        with capturedLogs():
            audit = AuditLog(AuditFile(self.mktemp(), disk.open),
                             "DataCurator")
        self.addCleanup(audit.close)
        self.watch(audit)

    @inlineCallbacks
    def test_refusedBeforeASessionIsLent(self):
        for name, arguments in (("open_session", {}),
                                ("execute_code", {"code": "3 + 4"})):
            with capturedLogs():
                response, body = yield self.send(modern(
                    "tools/call", 7, name=name, arguments=arguments))
            self.assertEqual((response.code, body["error"]["data"]),
                             (200, {"kind": "auditUnavailable"}))
        self.assertEqual(self.pool.opened, [])


class ModernUnmadeCallTests(ModernTestCase):
    """
    A 2026 call that fails before it runs, and is no refusal, is recorded
    as what its client is told, as the 2025 era records it.
    """

    def setUp(self):
        super().setUp()
        self.events = []
        self.metrics = Metrics("1", processMetrics=False)
        self.watch(AuditLog(self.events.append, "DataCurator"), self.metrics)

    @inlineCallbacks
    def call(self, arguments):
        """
        An C{execute_code} call: its answer, and the audit's events.
        """
        del self.events[:]
        response, body = yield self.send(modern(
            "tools/call", 3, name="execute_code", arguments=arguments))
        return body, [(event["event"], event.get("outcome"))
                      for event in self.events]

    @inlineCallbacks
    def test_loginFailed(self):
        self.pool.loginError = GciError(4051, "login denied")
        body, events = yield self.call({"code": "3 + 4"})
        self.flushLoggedErrors()
        self.assertEqual(body["error"]["data"]["kind"], "loginFailed")
        self.assertEqual(events, [("callStarted", None),
                                  ("toolCall", "protocolError:-32001")])

    @inlineCallbacks
    def test_noSlot(self):
        self.pool.maxSessions = 0
        body, events = yield self.call({"code": "3 + 4"})
        self.assertEqual(body["result"]["structuredContent"]["error"]["kind"],
                         "sessionLimit")
        self.assertEqual(events, [("callStarted", None),
                                  ("toolCall", "error:sessionLimit")])
        self.assertEqual(sample(self.metrics, "gsmcpd_tool_calls_total",
                                tool="execute_code", outcome="toolError"), 1)

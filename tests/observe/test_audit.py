"""
The audit trail: what a tool call's event holds, what it leaves out, and
the commit event naming the session's changes.
"""

import hashlib
import json
import os
import re
from pathlib import Path
from types import SimpleNamespace

from twisted.logger import capturedLogs
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe import calloutcome
from gsmcpd.observe.audit import (
    AuditLog,
    AuditUnavailable,
    CallFacts,
    changeOf,
    outcome,
)
from gsmcpd.observe.auditchain import verify
from gsmcpd.observe.auditfile import AuditFile
from gsmcpd.observe.calloutcome import CHANGED_META, COMMITTED_META, DISCARDED_META
from gsmcpd.observe.metrics import REFUSALS
from gsmcpd.tools.catalog import (
    CORE_TOOLSETS,
    OTHER_TOOLSETS,
    ToolCatalog,
    buildToolsets,
)
from tests.observe.test_auditfile import Disk
from tests.observe.test_metrics import ended

SESSION = "0123456789abcdef0123456789abcdef"
AUTHENTICATION = Path(__file__).resolve().parents[2] / "docs" / \
    "authentication.rst"


def ran(audit, tool, arguments=None, response=None, anonymous=False,
        seconds=0.0):
    """
    Record in C{audit} that a call of C{tool} ran to C{response} (C{ok()}
    by default) with no line before it: as Alice, or as nobody.
    """
    who = dict(identity=None, user=None) if anonymous else {}
    audit.callEnded(facts(tool=tool, arguments={} if arguments is None
                          else arguments, **who), None,
                    ended(ok() if response is None else response), seconds)


def linesOf(path):
    """
    The audit file's events, in order.
    """
    with open(path, "rb") as f:
        return [json.loads(line) for line in f]


def ok(structured=None):
    return {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [], "isError": False,
        "structuredContent": structured or {}}}


def changed():
    """
    A result whose call left a change where the session held none.
    """
    response = ok()
    response["result"]["_meta"] = {CHANGED_META: True}
    return response


def toolError(kind):
    return {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [], "isError": True,
        "structuredContent": {"error": {"kind": kind}}}}


class AuditLogTests(SynchronousTestCase):
    def setUp(self):
        self.events = []
        self.audit = AuditLog(self.events.append, "DataCurator",
                              {"compile_method", "execute_code"})

    def call(self, tool, arguments, response):
        self.audit.callEnded(facts(tool=tool, arguments=arguments), None,
                             ended(response), 0.25)
        return self.events[-1]

    def test_toolCall(self):
        code = "Object new printString"
        event = self.call("execute_code", {"code": code}, ok())
        self.assertEqual(
            {name: event[name] for name in (
                "event", "identity", "gemstoneUser", "session", "tool",
                "argumentBytes", "sourceSha256", "outcome", "seconds")},
            {"event": "toolCall", "identity": "f81d4fae",
             "gemstoneUser": "Alice", "session": "01234567",
             "tool": "execute_code",
             "argumentBytes": {"code": len(json.dumps(code))},
             "sourceSha256": hashlib.sha256(code.encode()).hexdigest(),
             "outcome": "ok", "seconds": 0.25})
        self.assertEqual(event["log_namespace"], "gsmcpd.audit")

    def test_noContents(self):
        event = self.call("execute_code", {"code": "'hunter2' size"}, ok())
        self.assertNotIn("hunter2", repr(event))

    def test_everyCodeArgumentDigested(self):
        """
        Every shipped tool that evaluates Smalltalk it is given (as
        C{code}, or C{inspect}'s C{expression}) has it digested: a new
        such tool cannot slip past the audit.
        """
        shipped = buildToolsets([*CORE_TOOLSETS, *OTHER_TOOLSETS])
        for tool in ToolCatalog(shipped):
            for name in {"code", "expression"} & set(
                    tool.inputSchema.get("properties", {})):
                event = self.call(tool.name, {name: "3 + 4"}, ok())
                self.assertEqual(event["sourceSha256"], hashlib.sha256(
                    b"3 + 4").hexdigest(), tool.name)

    def test_breakpointConditionDigested(self):
        """
        A breakpoint's condition, Smalltalk the stone runs at each break,
        is digested as a debugged run's code is.
        """
        condition = "n > 2"
        event = self.call("breakpoint_set", {
            "className": "Probe", "selector": "twice:", "line": 3,
            "condition": condition}, ok())
        self.assertEqual(event["sourceSha256"],
                         hashlib.sha256(condition.encode()).hexdigest())
        self.assertNotIn(condition, repr(event))

    def test_noSourceDigestForOtherTools(self):
        self.assertIsNone(self.call("list_classes", {"dictionaryName": "X"},
                                    ok())["sourceSha256"])

    def test_malformedCallRecorded(self):
        """
        A call with no tool name, or with arguments that are not an object,
        is recorded (as the protocol error it got) rather than crashing.
        """
        refused = {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32602, "message": "bad"}}
        for tool, arguments in ((7, None), ("compile_method", ["x"]),
                                ("execute_code", "1 + 1")):
            event = self.call(tool, arguments, refused)
            self.assertEqual(event["outcome"], "protocolError:-32602")
            self.assertEqual(event["argumentBytes"], {})
            self.assertIsNone(event["sourceSha256"])
        self.assertIsNone(self.events[0]["tool"])
        event = self.call(None, {"code": "1"}, refused)
        self.assertEqual((event["tool"], event["sourceSha256"]),
                         (None, None))

    def test_toolNameClipped(self):
        """
        A tool name is the client's to choose, so the audit clips it.
        """
        event = self.call("x" * 1_000_000, {}, toolError("unknownTool"))
        self.assertLess(len(event["tool"]), 300)

    def test_outcomes(self):
        self.assertEqual(outcome(ended(toolError("compileError"))),
                         "error:compileError")
        self.assertEqual(outcome(ended({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32602, "message": "unknown tool"}})),
            "protocolError:-32602")
        self.assertEqual(outcome(ended(None)), "noAnswer")

    def test_commitNamesTheChanges(self):
        self.call("compile_method", {"className": "Account",
                                     "source": "deposit: n\n  ^n"}, ok())
        self.call("compile_method", {"className": "Account", "source": "x"},
                  toolError("compileError"))
        event = self.call("commit", {}, ok({"committed": True,
                                            "conflicts": {}}))
        self.assertEqual((event["event"], event["result"], event["changes"]),
                         ("commit", "committed", ["Account>>deposit:"]))
        self.assertEqual(self.call("commit", {}, ok({"committed": True}))
                         ["changes"], [])

    def test_codeThatCommittedIsACommit(self):
        """
        A call whose result says its code committed (even one that failed
        after) is a commit event naming what it committed, the call itself
        with its code's digest last; a commit after it names nothing.
        """
        self.call("compile_method", {"className": "Account",
                                     "source": "deposit: n\n  ^n"}, ok())
        committed = toolError("other")
        committed["result"]["_meta"] = {COMMITTED_META: True}
        code = "System commitTransaction. nil foo"
        event = self.call("execute_code", {"code": code}, committed)
        digest = hashlib.sha256(code.encode()).hexdigest()[:12]
        self.assertEqual((event["event"], event["result"], event["changes"]),
                         ("commit", "committed",
                          ["Account>>deposit:", f"execute_code {digest}"]))
        self.assertEqual(self.events[-2]["outcome"], "error:other")
        self.assertEqual(self.call("commit", {}, ok({"committed": True}))
                         ["changes"], [])

    def test_codeThatMayHaveCommitted(self):
        """
        A call whose result says its code may have committed is a commit
        event of result C{unknown}, naming what it may have committed; as
        after a commit ended by its deadline, a later commit names them
        again.
        """
        self.call("compile_method", {"className": "Account",
                                     "source": "deposit: n\n  ^n"}, ok())
        unknown = ok()
        unknown["result"]["_meta"] = {COMMITTED_META: None}
        code = "System abortTransaction"
        event = self.call("execute_code", {"code": code}, unknown)
        digest = hashlib.sha256(code.encode()).hexdigest()[:12]
        self.assertEqual((event["event"], event["result"], event["changes"]),
                         ("commit", "unknown",
                          ["Account>>deposit:", f"execute_code {digest}"]))
        self.assertEqual(len(self.call("commit", {}, ok(
            {"committed": True}))["changes"]), 2)

    def test_codeThatAbortedDropsTheChanges(self):
        """
        A call whose result says its code aborted what the session held
        drops the changes a later commit would have named.
        """
        self.call("compile_method", {"className": "Account",
                                     "source": "deposit: n\n  ^n"}, ok())
        aborted = ok()
        aborted["result"]["_meta"] = {DISCARDED_META: True}
        self.call("execute_code", {"code": "System abortTransaction"},
                  aborted)
        self.assertEqual(self.call("commit", {}, ok({"committed": True}))
                         ["changes"], [])

    def test_codeNamedOnlyForAChange(self):
        """
        A tool that runs code is among the changes only when it ran code
        and its result says it left a change: not an C{inspect} walking
        ids, nor code that only read.
        """
        self.audit.mutatingTools |= {"inspect", "profile_code"}
        self.call("inspect", {"object": 1234}, ok())
        self.call("inspect", {"object": 1234}, changed())
        self.call("execute_code", {"code": "3 + 4"}, ok())
        self.call("profile_code", {"code": "3 + 4"}, ok())
        self.call("inspect", {"expression": "Account new"}, ok())
        self.assertEqual(self.audit._changes, {})
        expression = "UserGlobals at: #A put: 1"
        self.call("inspect", {"expression": expression}, changed())
        digest = hashlib.sha256(expression.encode()).hexdigest()[:12]
        self.assertEqual(self.call("commit", {}, ok({"committed": True}))
                         ["changes"], [f"inspect {digest}"])

    def test_failedCommitKeepsTheChanges(self):
        self.call("execute_code", {"code": "x := 1"}, changed())
        failed = self.call("commit", {}, toolError("refused"))
        self.assertEqual(failed["result"], "failed")
        self.assertEqual(len(self.call("commit", {}, ok(
            {"committed": True}))["changes"]), 1)

    def test_forget(self):
        self.call("execute_code", {"code": "x := 1"}, changed())
        self.audit.forget(SimpleNamespace(handle=SESSION))
        self.assertEqual(self.call("commit", {}, ok({"committed": True}))
                         ["changes"], [])

    def test_onlyChangesAreKept(self):
        """
        Reads, refusals, aborts and commits of a session that changed
        nothing keep no entry: a handle that made no change (a stand-in's,
        one a client made up) must not hold memory until it is forgotten.
        """
        self.call("get_method_source", {"className": "A", "selector": "b"},
                  ok())
        self.call("execute_code", {"code": "x := 1"}, None)
        self.call("abort", {}, ok({"aborted": True}))
        self.call("commit", {}, ok({"committed": True}))
        self.assertEqual(self.audit._changes, {})

    def test_abortClearsTheChanges(self):
        self.call("execute_code", {"code": "x := 1"}, changed())
        self.call("abort", {}, ok({"aborted": True}))
        self.assertEqual(self.call("commit", {}, ok({"committed": True}))
                         ["changes"], [])

    def test_toFile(self):
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator")
        self.addCleanup(audit.close)
        ran(audit, "status", anonymous=True)
        self.assertEqual(
            [(event["event"], event.get("tool"), event.get("outcome"),
              event.get("identity"), event.get("gemstoneUser"))
             for event in linesOf(path)],
            [("auditOpened", None, None, None, None),
             ("toolCall", "status", "ok", None, "DataCurator")])

    def test_reopen(self):
        """
        After logrotate moves the file away, a reopen writes to a new file
        by the same path; the moved one keeps what came before.
        """
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator")
        self.addCleanup(audit.close)
        ran(audit, "status", anonymous=True)
        os.rename(path, path + ".1")
        audit.reopen()
        ran(audit, "abort", anonymous=True)
        for name, tool in ((path + ".1", "status"), (path, "abort")):
            self.assertEqual([event["tool"] for event in linesOf(name)
                              if event["event"] == "toolCall"], [tool])

    def test_reopenFailureKeepsTheFile(self):
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator")
        self.addCleanup(audit.close)
        os.rename(path, path + ".1")
        os.mkdir(path)
        with capturedLogs():
            audit.reopen()
        ran(audit, "status", anonymous=True)
        self.assertEqual(linesOf(path + ".1")[-1]["tool"], "status")
        self.assertIsNone(audit.failure)

    def test_reopenWithoutFile(self):
        AuditLog().reopen()


class ChangeOfTests(SynchronousTestCase):
    def test_names(self):
        self.assertEqual(changeOf("delete_method", {
            "className": "A", "selector": "b", "meta": True}), "A class>>b")
        self.assertEqual(changeOf("compile_method", {
            "className": "A", "source": "at: i put: v\n ^v"}), "A>>at:put:")
        self.assertEqual(changeOf("delete_class", {"className": "A"}),
                         "delete_class A")
        self.assertEqual(changeOf("add_dictionary", {
            "dictionaryName": "D"}), "add_dictionary D")

    def test_codeNamedByItsDigest(self):
        """
        Code that ran (C{execute_code}, C{profile_code}) is named by its
        source's digest, as its call's event names it.
        """
        for tool in ("execute_code", "profile_code"):
            self.assertEqual(changeOf(tool, {"code": "3 + 4"}),
                             f"{tool} 1a95866b1736")


def facts(**kwargs):
    return CallFacts(**dict(dict(
        tool="execute_code", arguments={"code": "3 + 4"}, identity="f81d4fae",
        user="Alice", session=SESSION[:8], handle=SESSION, requestId=5),
        **kwargs))


def askedForInput():
    return {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": {}}}


class WriteAheadTests(SynchronousTestCase):
    """
    A call's line before it runs and its outcome after, under one id; a
    refusal's line alone.
    """

    def setUp(self):
        self.events = []
        self.audit = AuditLog(self.events.append, "DataCurator",
                              {"compile_method", "execute_code"})

    def test_startedThenEnded(self):
        callId = self.audit.callStarted(facts())
        self.audit.callEnded(facts(), callId, ended(ok()), 0.5)
        started, finished = self.events
        self.assertEqual(
            {name: started[name] for name in (
                "event", "callId", "identity", "gemstoneUser", "session",
                "tool", "argumentBytes", "requestId")},
            {"event": "callStarted", "callId": callId,
             "identity": "f81d4fae", "gemstoneUser": "Alice",
             "session": "01234567", "tool": "execute_code",
             "argumentBytes": {"code": 7}, "requestId": 5})
        self.assertEqual(
            (finished["event"], finished["callId"], finished["outcome"],
             finished["requestId"]), ("toolCall", callId, "ok", 5))
        self.assertRegex(callId, r"\A[0-9a-f]{16}\Z")
        self.assertNotEqual(self.audit.callStarted(facts()), callId)

    def test_plainValues(self):
        """
        Without a user the audit's default is named; a request id the
        client made long is clipped, a number kept.
        """
        self.audit.callStarted(facts(user=None, identity=None, session=None,
                                     handle=None, requestId="x" * 1000))
        [event] = self.events
        self.assertEqual((event["gemstoneUser"], event["identity"],
                          event["session"]), ("DataCurator", None, None))
        self.assertLess(len(event["requestId"]), 300)

    def test_refusal(self):
        """
        A refusal is one line, with no call id (it never ran), no
        duration, and no commit event even for C{commit}.
        """
        self.audit.refusal(facts(tool="commit", arguments={}), "notInScope")
        [event] = self.events
        self.assertEqual(
            (event["event"], event["outcome"], event["callId"],
             event["seconds"], event["tool"]),
            ("toolCall", "refused:notInScope", None, None, "commit"))

    def test_refusalKindsClosed(self):
        self.assertRaises(ValueError, self.audit.refusal, facts(),
                          "because I said so")
        self.assertEqual(self.events, [])

    def test_askedForInputIsNotAnError(self):
        """
        A round that asks the client is C{askedForInput}; for C{commit}
        it makes no commit event, and the changes wait for the commit.
        """
        self.audit.callEnded(facts(), None, ended(changed()), 0.1)
        self.audit.callEnded(facts(tool="commit", arguments={}), None,
                             ended(askedForInput()), 0.1)
        self.assertEqual([(e["event"], e["outcome"]) for e in self.events],
                         [("toolCall", "ok"), ("toolCall", "askedForInput")])
        self.audit.callEnded(facts(tool="commit", arguments={}), None,
                             ended(ok({"committed": True})), 0.1)
        digest = hashlib.sha256(b"3 + 4").hexdigest()[:12]
        self.assertEqual(
            (self.events[-1]["event"], self.events[-1]["result"],
             self.events[-1]["changes"]),
            ("commit", "committed", [f"execute_code {digest}"]))

    def test_commitNamesTheStonesAnswer(self):
        """
        A commit event says what the stone answered: committed, conflict,
        or failed; with no answer from it, the call's outcome.
        """
        conflict = {"error": {"kind": "refused", "conflicts": {}}}
        for response, result in (
                (ok({"committed": True}), "committed"),
                ({"result": {"isError": True,
                             "structuredContent": conflict}}, "conflict"),
                (toolError("refused"), "failed"),
                (None, "noAnswer")):
            self.audit.callEnded(facts(tool="commit", arguments={}), "c1",
                                 ended(response), 0.1)
            self.assertEqual((self.events[-1]["result"],
                              self.events[-1]["callId"]), (result, "c1"))

    def test_outcomeWithoutId(self):
        """
        An outcome with no line before it has a null C{callId}.
        """
        ran(self.audit, "status")
        [event] = self.events
        self.assertEqual((event["event"], event["callId"]),
                         ("toolCall", None))


class FailedAuditTests(SynchronousTestCase):
    """
    An audit whose file cannot be written refuses new calls, and never
    turns a call that ran into an error.
    """

    def setUp(self):
        self.path = self.mktemp()
        self.disk = Disk()
        self.audit = AuditLog(AuditFile(self.path, self.disk.open),
                              "DataCurator")
        self.addCleanup(self.audit.close)

    def test_writableAdmits(self):
        self.audit.admit()
        self.assertIsNone(self.audit.failure)
        self.assertEqual(self.audit.unwritten, 0)

    def test_callStartedUnwrittenDoesNotRun(self):
        """
        A call whose C{callStarted} line cannot be written is refused:
        L{AuditUnavailable} names the file and the error, and every call
        after it is refused before any write is tried.
        """
        self.disk.full = True
        with capturedLogs():
            error = self.assertRaises(AuditUnavailable,
                                      self.audit.callStarted, facts())
            self.assertEqual(error.reason, f"{self.path}: No space left on "
                             "device (ENOSPC)")
            self.assertRaises(AuditUnavailable, self.audit.admit)
            self.assertRaises(AuditUnavailable, self.audit.callStarted,
                              facts())
        self.assertEqual(self.audit.unwritten, 1)

    def test_outcomeUnwrittenIsNoError(self):
        """
        A call that ran is not turned into an error by its line: the
        method returns, and the audit is failed from then on.
        """
        callId = self.audit.callStarted(facts(tool="commit", arguments={}))
        self.disk.full = True
        with capturedLogs() as logged:
            self.audit.callEnded(facts(tool="commit", arguments={}), callId,
                                 ended(ok({"committed": True})), 0.2)
        self.assertEqual(
            [(e.get("event"), e.get("auditUnwritten")) for e in logged
             if e["log_namespace"] == "gsmcpd.audit"],
            [("toolCall", self.path), ("commit", self.path)])
        self.assertRaises(AuditUnavailable, self.audit.admit)
        self.assertEqual(self.audit.unwritten, 2)

    def test_devFull(self):
        """
        C{--audit-log /dev/full} is failed before the first call, which
        is refused; the end of a call that ran does not raise.
        """
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full here")
        with capturedLogs():
            audit = AuditLog.toFile("/dev/full", "DataCurator")
            self.addCleanup(audit.close)
            self.assertIn("/dev/full", audit.failure)
            self.assertRaises(AuditUnavailable, audit.callStarted, facts())
            ran(audit, "commit", response=ok({"committed": True}))
        # The refused call tried no write; the call that ran has two lines.
        self.assertEqual(audit.unwritten, 2)

    def test_reopenAdmitsAgain(self):
        self.disk.full = True
        with capturedLogs():
            self.assertRaises(AuditUnavailable, self.audit.callStarted,
                              facts())
            self.audit.reopen()
            self.assertRaises(AuditUnavailable, self.audit.admit)
            self.disk.full = False
            self.audit.reopen()
        self.audit.admit()
        self.audit.callStarted(facts())
        self.assertEqual([event["event"] for event in linesOf(self.path)],
                         ["auditOpened", "auditOpened", "callStarted"])
        self.assertIsNone(verify([self.path])[0])


OUTCOME_FORM = re.compile(r"^``([A-Za-z]+(?::<[a-z]+>)?)``$", re.M)
REFUSAL_KIND = re.compile(r"^    ``([A-Za-z]+)``$", re.M)
PLACEHOLDERS = {"<kind>": "[A-Za-z]+", "<code>": "-?[0-9]+"}


class OutcomeSetTests(SynchronousTestCase):
    """
    The outcomes are a closed set, the one C{docs/authentication.rst}
    lists.
    """

    def documented(self):
        """
        The outcomes the docs list, and the kinds of refusal under them.
        """
        text = AUTHENTICATION.read_text()
        section = text[text.index("The outcome of a ``toolCall``"):
                       text.index("A refused call has only")]
        return OUTCOME_FORM.findall(section), REFUSAL_KIND.findall(section)

    def produced(self):
        """
        Every outcome the audit writes: one for each way a
        L{calloutcome.CallOutcome} ends, and a refusal of every kind.
        """
        events = []
        audit = AuditLog(events.append)
        for response in (ok(), toolError("compileError"), askedForInput(),
                         {"error": {"code": -32602, "message": "bad"}},
                         None):
            audit.callEnded(facts(), None, ended(response), 0.0)
        for kind in REFUSALS:
            audit.refusal(facts(), kind)
        return {event["outcome"] for event in events}

    def test_everyOutcomeDocumented(self):
        forms, kinds = self.documented()
        self.assertEqual(sorted(forms), sorted([
            "ok", "error:<kind>", "protocolError:<code>", "noAnswer",
            "askedForInput", "refused:<kind>"]))
        self.assertEqual(sorted(kinds), sorted(REFUSALS))
        patterns = []
        for form in forms:
            pattern = re.escape(form)
            for placeholder, matching in PLACEHOLDERS.items():
                pattern = pattern.replace(re.escape(placeholder), matching)
            patterns.append(re.compile(pattern + r"\Z"))
        produced = self.produced()
        for each in produced:
            self.assertEqual(
                len([p for p in patterns if p.match(each)]), 1, each)
        for kind in REFUSALS:
            self.assertIn(f"refused:{kind}", produced)

    def test_everyEndProduced(self):
        """
        The answers L{produced} sends cover every way a call ends, so a
        new one cannot slip past the test above.
        """
        self.assertEqual(
            {ended(response).ended for response in (
                ok(), toolError("x"), askedForInput(), None,
                {"error": {"code": 1}})},
            {calloutcome.OK, calloutcome.TOOL_ERROR,
             calloutcome.ASKED_FOR_INPUT, calloutcome.CANCELLED,
             calloutcome.ERROR})
        self.assertEqual(len(self.produced()), 5 + len(REFUSALS))


EVENT_ENTRY = re.compile(r"^``([A-Za-z]+)``\n((?:    .*\n)+)", re.M)
FIELD = re.compile(r"``([A-Za-z0-9]+)``")
EVERY_LINE = ("time", "event", "message")
"""The fields the docs say every line holds, before the kind's own."""


class DocumentedFieldsTests(SynchronousTestCase):
    """
    Each line of the file holds exactly the fields
    C{docs/authentication.rst} documents for its kind, and nothing of
    Twisted's.
    """

    def documented(self):
        """
        The fields every line holds, and each event kind's own.
        """
        text = AUTHENTICATION.read_text()
        section = text[text.index("Each line's ``event`` is one of"):
                       text.index("The outcome of a ``toolCall``")]
        intro = section[:section.index("\n\n")]
        kinds = {}
        for kind, body in EVENT_ENTRY.findall(section):
            fields = body.split("Fields:")[1]
            kinds[kind] = set(FIELD.findall(fields))
        return set(FIELD.findall(intro)), kinds

    def written(self, key=None):
        """
        A file holding an event of each kind the audit writes.
        """
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator", {"execute_code"}, key)
        callId = audit.callStarted(facts())
        audit.callEnded(facts(), callId, ended(ok()), 0.5)
        audit.refusal(facts(), "notInScope")
        audit.callEnded(facts(tool="commit", arguments={}), None,
                        ended(ok({"committed": True})), 0.1)
        audit.close()
        return linesOf(path)

    def test_everyKindDocumented(self):
        common, kinds = self.documented()
        self.assertEqual(set(kinds),
                         {"auditOpened", "callStarted", "toolCall", "commit"})
        self.assertTrue(set(EVERY_LINE) <= common, common)
        for key, digest in ((None, "previousSha256"),
                            (b"k", "previousHmacSha256")):
            lines = self.written(key)
            self.assertEqual({line["event"] for line in lines}, set(kinds))
            for line in lines:
                self.assertIn(digest, common)
                self.assertEqual(
                    set(line), {*EVERY_LINE, digest, *kinds[line["event"]]},
                    line["event"])

    def test_lineShape(self):
        """
        The repro: no Twisted field (C{log_logger}, C{log_level},
        C{log_flattened} repeating every field); the time as a reader
        reads it, and the message rendered.
        """
        started = self.written()[1]
        self.assertFalse([name for name in started if "log_" in name])
        self.assertRegex(started["time"],
                         r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")
        self.assertRegex(started["message"],
                         r"^call [0-9a-f]{16}: execute_code by f81d4fae as "
                         r"Alice in session 01234567 starts$")

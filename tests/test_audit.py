"""
The audit trail: what a tool call's event holds, what it leaves out, and
the commit event naming the session's changes.
"""

import hashlib
import json
import os

import attr

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.observe.audit import AuditLog, changeOf, outcome

SESSION = "0123456789abcdef0123456789abcdef"


@attr.s
class _Session:
    handle = attr.ib(default=SESSION)
    principal = attr.ib(default=Principal("f81d4fae", "Alice", frozenset(),
                                          0.0))
    label = SESSION[:8]


def ok(structured=None):
    return {"jsonrpc": "2.0", "id": 1, "result": {
        "content": [], "isError": False,
        "structuredContent": structured or {}}}


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
        self.audit.toolCall(session=_Session(), tool=tool,
                            arguments=arguments, response=response,
                            seconds=0.25)
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
        self.assertEqual(outcome(toolError("compileError")),
                         "error:compileError")
        self.assertEqual(outcome({"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32602, "message": "unknown tool"}}),
            "protocolError:-32602")
        self.assertEqual(outcome(None), "noAnswer")

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

    def test_failedCommitKeepsTheChanges(self):
        self.call("execute_code", {"code": "x := 1"}, ok())
        failed = self.call("commit", {}, toolError("refused"))
        self.assertEqual(failed["result"], "error:refused")
        self.assertEqual(len(self.call("commit", {}, ok(
            {"committed": True}))["changes"]), 1)

    def test_forget(self):
        self.call("execute_code", {"code": "x := 1"}, ok())
        self.audit.forget(_Session())
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
        self.call("execute_code", {"code": "x := 1"}, ok())
        self.call("abort", {}, ok({"aborted": True}))
        self.assertEqual(self.call("commit", {}, ok({"committed": True}))
                         ["changes"], [])

    def test_toFile(self):
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator")
        self.addCleanup(audit.close)
        audit.toolCall(session=_Session(principal=None), tool="status",
                       arguments={}, response=ok(), seconds=0.0)
        with open(path) as f:
            event = json.loads(f.readline())
        self.assertEqual(
            (event["tool"], event["outcome"], event["identity"],
             event["gemstoneUser"]), ("status", "ok", None, "DataCurator"))


    def test_reopen(self):
        """
        After logrotate moves the file away, a reopen writes to a new file
        by the same path; the moved one keeps what came before.
        """
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator")
        self.addCleanup(audit.close)
        session = _Session(principal=None)
        audit.toolCall(session=session, tool="status", arguments={},
                       response=ok(), seconds=0.0)
        os.rename(path, path + ".1")
        audit.reopen()
        audit.toolCall(session=session, tool="abort", arguments={},
                       response=ok(), seconds=0.0)
        for name, tool in ((path + ".1", "status"), (path, "abort")):
            with open(name) as f:
                self.assertEqual([json.loads(line)["tool"] for line in f],
                                 [tool])

    def test_reopenFailureKeepsTheFile(self):
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator")
        self.addCleanup(audit.close)
        os.rename(path, path + ".1")
        os.mkdir(path)
        audit.reopen()
        self.assertFalse(audit.file.closed)

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

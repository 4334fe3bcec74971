"""
A record that never lies, against a real C{twistd gsmcp --simulated} (the
simulated stone, a test double): with an audit trail that cannot be
written no tool call runs, in either era; and commits whose clients hang
up at once, and commits sent by code, are committed commits in the audit,
the metrics and each session's C{status}.
"""

import hashlib
import http.client
import io
import json
import os
import random
import socket
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator.control import SimulatorControl
from tests.daemon.test_serve_sockets import samples
from tests.realdaemon import DaemonTestCase, get

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}
SOURCE = "gemstone://class/Account/source"


def modernCall(port, name, arguments):
    """
    One 2026-era C{tools/call} (its handle in its header too, when it
    names one): C{(status, parsed body)}.
    """
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"content-type": "application/json",
               "accept": "application/json",
               "mcp-protocol-version": "2026-07-28",
               "mcp-method": "tools/call", "mcp-name": name}
    if "session" in arguments:
        headers["mcp-param-session"] = arguments["session"]
    try:
        connection.request("POST", "/mcp", json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments,
                       "_meta": MODERN}}), headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def auditEvents(file):
    """
    The events of the whole lines in C{file}, an audit trail (binary) the
    daemon may be writing a line of as it is read: the file is read at
    once, and its last piece, after the last newline, is left for the next
    look.  (Read a line at a time, a line read in part at one end of the
    file has its rest read as a line of its own once the daemon wrote it.)
    """
    return [json.loads(line) for line in file.read().split(b"\n")[:-1]]


def commitEvents(path):
    with open(path, "rb") as f:
        return [event for event in auditEvents(f) if event["event"] == "commit"]


class _Appended(io.RawIOBase):
    """
    A file being appended to: each read answers the next of C{chunks}, an
    empty one where a read met the end of the file in a line.
    """

    def __init__(self, chunks):
        self._chunks = list(chunks)

    def readable(self):
        return True

    def readinto(self, buffer):
        chunk = self._chunks.pop(0) if self._chunks else b""
        buffer[:len(chunk)] = chunk
        return len(chunk)


class AuditReadingTests(SynchronousTestCase):

    def test_lineBeingWritten(self):
        """
        A line the daemon is still writing is not read, nor is its rest
        read as a line once written.
        """
        first = b'{"event": "commit", "result": "committed"}\n'
        file = io.BufferedReader(_Appended(
            [first + b'{"event": "commit", "result": ', b"",
             b'"committed"}\n']))
        self.assertEqual(auditEvents(file),
                         [{"event": "commit", "result": "committed"}])


class UnwritableAuditTests(DaemonTestCase):
    """
    C{--audit-log /dev/full}: the trail is failed before the first call,
    which is refused before it runs; C{/healthz} answers 503.
    """

    def setUp(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full here")
        self.daemon = self.startDaemon("--audit-log", "/dev/full")
        self.control = SimulatorControl(self.daemon.stoneSocket())

    def assertRefused(self, body):
        self.assertEqual((body["error"]["code"], body["error"]["data"]),
                         (-32001, {"kind": "auditUnavailable"}), body)

    def test_healthz(self):
        status, _, body = get(self.daemon.port, "/healthz")
        self.assertEqual(status, 503)
        self.assertIn("the audit trail cannot be written",
                      json.loads(body)["reason"])

    def test_legacyCallNeverRuns(self):
        """
        A 2025 compile_method is refused, and the session's own view of the
        class shows it never ran.
        """
        session = self.daemon.initialize()
        before = self.daemon.rpc("resources/read", session, 1, uri=SOURCE)[2]
        _, _, body = self.daemon.rpc(
            "tools/call", session, 2, name="compile_method",
            arguments={"className": "Account",
                       "source": "withdraw: amount\n  ^#neverRan"})
        self.assertRefused(body)
        after = self.daemon.rpc("resources/read", session, 3, uri=SOURCE)[2]
        self.assertEqual(after["result"], before["result"])
        self.assertNotIn("neverRan", json.dumps(after))
        self.assertIn("refused:auditUnavailable", self.daemon.log())

    def test_modernCallNeverRuns(self):
        """
        A 2026 open_session and a call without a handle are refused (HTTP
        200, as every -32001): the stone saw no login for either.
        """
        loggedIn = len(self.control.call({"op": "sessions"})["sessions"])
        for name, arguments in (("open_session", {}),
                                ("execute_code", {"code": "3 + 4"})):
            status, body = modernCall(self.daemon.port, name, arguments)
            self.assertEqual(status, 200)
            self.assertRefused(body)
        self.assertEqual(
            len(self.control.call({"op": "sessions"})["sessions"]), loggedIn)


class HungUpCommitTests(DaemonTestCase):
    """
    Fifteen commits whose clients hang up 0-5 ms after sending them.
    """

    def setUp(self):
        self.audit = os.path.abspath(self.mktemp())
        self.daemon = self.startDaemon("--audit-log", self.audit,
                                       "--max-sessions", "16")

    def hangUpOnCommit(self, session):
        body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                           "params": {"name": "commit",
                                      "arguments": {}}}).encode()
        with socket.create_connection(("127.0.0.1", self.daemon.port)) as s:
            s.sendall(
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Content-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\n"
                f"Mcp-Session-Id: {session}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            time.sleep(random.uniform(0, 0.005))

    def waitForCommits(self, count):
        deadline = time.monotonic() + 20
        while len(commitEvents(self.audit)) < count:
            self.assertLess(time.monotonic(), deadline, self.daemon.log())
            time.sleep(0.02)

    def test_fifteenCommitted(self):
        """
        Each commit is a committed commit in the audit and the metrics,
        and its session's status names it. (One after the other: each
        changes Account, and GemStone's conflicts are per class.)
        """
        sessions = []
        for n in range(15):
            session = self.daemon.initialize()
            _, _, compiled = self.daemon.rpc(
                "tools/call", session, 1, name="compile_method",
                arguments={"className": "Account",
                           "source": f"probe{n}\n  ^{n}"})
            self.assertFalse(compiled["result"]["isError"], compiled)
            self.hangUpOnCommit(session)
            self.waitForCommits(n + 1)
            sessions.append(session)
        self.assertEqual([event["result"] for event in commitEvents(self.audit)],
                         ["committed"] * 15)
        scraped = samples(get(self.daemon.port, "/metrics")[2].decode())
        self.assertEqual(scraped[("gsmcpd_commits_total",
                                  (("outcome", "committed"),))], 15)
        for n, session in enumerate(sessions):
            _, _, status = self.daemon.rpc("tools/call", session, 2,
                                           name="status", arguments={})
            last = status["result"]["structuredContent"]["lastCommit"]
            self.assertEqual((last["outcome"], last["changes"]),
                             ("committed", [f"compiled Account>>probe{n}"]))


class CodeCommitTests(DaemonTestCase):
    """
    Code that sends C{System commitTransaction} from C{execute_code},
    C{inspect} and C{profile_code}, in a 2025 session and behind a 2026
    handle: each commit is in the audit, the metrics and its session's
    C{status}, and its result says it committed.  The first commits in a
    session as it was prepared (its #commitResult #readOnly), each later
    one after a refresh: the stone can tell a commit from an abort only
    when the last commit's result was not #success before it.
    """

    def setUp(self):
        self.audit = os.path.abspath(self.mktemp())
        self.daemon = self.startDaemon("--audit-log", self.audit,
                                       "--toolsets",
                                       "execution session debugging")

    def commitEvents(self):
        return [(event["result"], event["changes"])
                for event in commitEvents(self.audit)]

    def assertCommitted(self, result, tool, code):
        self.assertIn("[session] Committed:", json.dumps(result["content"]))
        self.assertEqual(result["_meta"], {"gsmcpd/committed": True})
        return [f"{tool} {hashlib.sha256(code.encode()).hexdigest()[:12]}"]

    def test_legacySession(self):
        session = self.daemon.initialize()
        expected = []
        for n, (tool, argument) in enumerate((
                ("execute_code", "code"), ("inspect", "expression"),
                ("profile_code", "code"))):
            code = f"UserGlobals at: #ByCode{n} put: {n}. " \
                "System commitTransaction. 3"
            if n:
                self.daemon.rpc("tools/call", session, 8, name="refresh",
                                arguments={})
            _, _, body = self.daemon.rpc("tools/call", session, n + 1,
                                         name=tool,
                                         arguments={argument: code})
            changes = self.assertCommitted(body["result"], tool, code)
            expected.append(("committed", changes))
            _, _, status = self.daemon.rpc("tools/call", session, 9,
                                           name="status", arguments={})
            last = status["result"]["structuredContent"]["lastCommit"]
            self.assertEqual((last["outcome"], last["changes"]),
                             ("committed", changes))
            self.assertIn("last commit: committed at", status["result"][
                "content"][0]["text"])
        self.assertEqual(self.commitEvents(), expected)
        scraped = samples(get(self.daemon.port, "/metrics")[2].decode())
        self.assertEqual(scraped[("gsmcpd_commits_total",
                                  (("outcome", "committed"),))], 3)
        # Another session reads what the code committed.
        other = self.daemon.initialize()
        _, _, read = self.daemon.rpc(
            "tools/call", other, 1, name="execute_code",
            arguments={"code": "ByCode0 + ByCode1 + ByCode2"})
        self.assertEqual(read["result"]["content"][0]["text"], "3")

    def test_modernHandle(self):
        status, opened = modernCall(self.daemon.port, "open_session", {})
        handle = opened["result"]["structuredContent"]["session"]
        code = "UserGlobals at: #ByHandle put: 1. System commitTransaction"
        status, body = modernCall(self.daemon.port, "execute_code",
                                  {"code": code, "session": handle})
        changes = self.assertCommitted(body["result"], "execute_code", code)
        status, body = modernCall(self.daemon.port, "status",
                                  {"session": handle})
        last = body["result"]["structuredContent"]["lastCommit"]
        self.assertEqual((last["outcome"], last["changes"]),
                         ("committed", changes))
        self.assertEqual(self.commitEvents(), [("committed", changes)])
        scraped = samples(get(self.daemon.port, "/metrics")[2].decode())
        self.assertEqual(scraped[("gsmcpd_commits_total",
                                  (("outcome", "committed"),))], 1)

    def test_abortMayHaveCommitted(self):
        """
        A session that committed, whose code aborts the change it held
        after another session committed: the stone cannot tell that abort
        from a commit (#success before and after), so the result says it may have
        committed, and the audit, the metrics and C{status} record a commit
        of unknown outcome, never a committed one.
        """
        session, other = self.daemon.initialize(), self.daemon.initialize()
        self.daemon.rpc("tools/call", session, 3, name="execute_code",
                        arguments={"code": "UserGlobals at: #Mine put: 0"})
        self.daemon.rpc("tools/call", session, 4, name="commit", arguments={})
        self.daemon.rpc("tools/call", other, 1, name="refresh", arguments={})
        self.daemon.rpc("tools/call", other, 2, name="execute_code",
                        arguments={"code": "UserGlobals at: #Elsewhere put: 1."
                                   " System commitTransaction"})
        held = "UserGlobals at: #Held put: 1"
        self.daemon.rpc("tools/call", session, 1, name="execute_code",
                        arguments={"code": held})
        code = "System abortTransaction. 3"
        _, _, body = self.daemon.rpc("tools/call", session, 2,
                                     name="execute_code",
                                     arguments={"code": code})
        self.assertIn("[session] The view moved and it may have committed",
                      json.dumps(body["result"]["content"]))
        self.assertEqual(body["result"]["_meta"], {"gsmcpd/committed": None})
        _, _, status = self.daemon.rpc("tools/call", session, 3,
                                       name="status", arguments={})
        last = status["result"]["structuredContent"]["lastCommit"]
        self.assertEqual(last["outcome"], "unknown")
        digest = [hashlib.sha256(each.encode()).hexdigest()[:12]
                  for each in (held, code)]
        self.assertEqual(self.commitEvents()[-1], ("unknown", [
            f"execute_code {each}" for each in digest]))
        scraped = samples(get(self.daemon.port, "/metrics")[2].decode())
        self.assertEqual((scraped[("gsmcpd_commits_total",
                                   (("outcome", "committed"),))],
                          scraped[("gsmcpd_commits_total",
                                   (("outcome", "unknown"),))]), (2, 1))

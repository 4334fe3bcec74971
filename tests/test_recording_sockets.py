"""
A record that never lies, against a real C{twistd gsmcp --simulated} (the
simulated stone, a test double): with an audit trail that cannot be
written no tool call runs, in either era; and commits whose clients hang
up at once are committed commits in the audit, the metrics and each
session's C{status}.
"""

import http.client
import json
import os
import random
import socket
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator.control import SimulatorControl
from tests.daemon import Daemon, get
from tests.test_serve_sockets import samples

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}
SOURCE = "gemstone://class/Account/source"


def modernCall(port, name, arguments):
    """
    One 2026-era C{tools/call}: C{(status, parsed body)}.
    """
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", "/mcp", json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments,
                       "_meta": MODERN}}), {
            "content-type": "application/json",
            "accept": "application/json",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call", "mcp-name": name})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


class UnwritableAuditTests(SynchronousTestCase):
    """
    C{--audit-log /dev/full}: the trail is failed before the first call,
    which is refused before it runs; C{/healthz} answers 503.
    """

    def setUp(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full here")
        directory = self.mktemp()
        os.makedirs(directory)
        self.daemon = Daemon(directory, "--audit-log", "/dev/full")
        self.addCleanup(self.daemon.stop)
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


class HungUpCommitTests(SynchronousTestCase):
    """
    Fifteen commits whose clients hang up 0-5 ms after sending them.
    """

    def setUp(self):
        directory = os.path.abspath(self.mktemp())
        os.makedirs(directory)
        self.audit = os.path.join(directory, "audit.log")
        self.daemon = Daemon(directory, "--audit-log", self.audit,
                             "--max-sessions", "16")
        self.addCleanup(self.daemon.stop)

    def commitEvents(self):
        with open(self.audit) as f:
            return [event for event in map(json.loads, f)
                    if event["event"] == "commit"]

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
        while len(self.commitEvents()) < count:
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
        self.assertEqual([event["result"] for event in self.commitEvents()],
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

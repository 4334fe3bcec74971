"""
The message trace of a real C{twistd gsmcp --simulated} over HTTPS with
authentication, driven by the official Python SDK client in both eras with
a bearer token from the test identity provider: every message is traced,
and the token is nowhere in the file.  And one whose trace file cannot be
written: the daemon serves on.
"""

import json
import os
import re

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.auditchain import verify
from tests.auth.test_auth_daemon_sockets import TlsDaemonTestCase
from tests.realdaemon import Daemon, get


class TraceDaemonTests(TlsDaemonTestCase):

    def setUp(self):
        self.tracePath = os.path.abspath(self.mktemp())
        self.arguments = ("--trace-log", self.tracePath, "--surface",
                          "catalog")
        super().setUp()

    def traced(self, token):
        """
        The trace's lines once the daemon has stopped (and so written
        everything queued), after checking no part of C{token} is there.
        """
        self.daemon.stop()
        with open(self.tracePath, encoding="utf-8") as f:
            text = f.read()
        for part in token.split("."):
            self.assertNotIn(part, text)
        self.assertEqual(os.stat(self.tracePath).st_mode & 0o777, 0o600)
        return [json.loads(line) for line in text.splitlines()]

    def test_bothErasTracedWithoutTheToken(self):
        token = self.token(sub="Alice", scope="gemstone:write")
        seen = self.client(token)
        self.assertEqual(seen["status"]["structured"]["user"], "Alice")
        seen = self.client(token, "auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertIn("tool_search", seen["tools"])
        self.assertNotIn("remove_dictionary", seen["tools"])
        self.https("POST", token=token + "x", body={
            "jsonrpc": "2.0", "id": 1, "method": "ping"})
        lines = self.traced(token)
        methods = [line["method"] for line in lines
                   if line["direction"] == "in"]
        for method in ("initialize", "tools/list", "tools/call",
                       "server/discover", "ping"):
            self.assertIn(method, methods)
        self.assertTrue(all(line["direction"] in ("in", "out")
                            for line in lines))
        self.assertGreater(len([line for line in lines
                                if line["direction"] == "out"]), 4)


class UnwritableTraceTests(SynchronousTestCase):
    """
    A real daemon whose trace file takes nothing (C{/dev/full}) and whose
    audit trail is keyed.
    """

    def test_traceLostAuditKept(self):
        """
        The trace costs its lines and one critical log line, not one a
        message; C{/healthz} stays 200 and the metric counts the lines;
        the keyed audit trail verifies with its key alone.
        """
        directory = os.path.abspath(self.mktemp())
        os.mkdir(directory)
        audit, key = (os.path.join(directory, name)
                      for name in ("audit.log", "audit.key"))
        with open(os.open(key, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("k3y\n")
        daemon = Daemon(directory, "--trace-log", "/dev/full", "--audit-log",
                        audit, "--audit-key-file", key)
        self.addCleanup(daemon.stop)
        session = daemon.initialize()
        for id in range(2, 22):
            daemon.rpc("tools/call", session, id, name="status",
                       arguments={})
        self.assertEqual(get(daemon.port, "/healthz")[0], 200)
        lost = re.search(rb"^gsmcpd_trace_lines_lost_total (\S+)$",
                         get(daemon.port, "/metrics")[2], re.M)
        self.assertGreaterEqual(float(lost.group(1)), 40)
        daemon.stop()
        log = daemon.log()
        self.assertEqual(log.count("cannot be written"), 1, log)
        self.assertNotIn("Traceback", log)
        self.assertIsNone(verify([audit], b"k3y")[0])
        self.assertIn("give the trail's key", verify([audit])[0])

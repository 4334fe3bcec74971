"""
C{SIGHUP} to a real plain-HTTP daemon (on the simulated stone, a test
double): it keeps serving, and its audit file is reopened for logrotate.
"""

import json
import os
import signal
import time

from tests.realdaemon import GSMCPD_SERVE, TWISTD_GSMCP, DaemonTestCase, get


def catchesHangups(pid):
    """
    Whether process C{pid} has a handler for C{SIGHUP} (its default ends
    the process).
    """
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) & 1 << signal.SIGHUP - 1)
    return False


class HangupSocketTests(DaemonTestCase):

    def hangUpWhileStarting(self, command):
        """
        Start the daemon with C{command} and send C{SIGHUP} the moment it
        has a handler, long before it listens: it starts all the same, and
        says so.
        """
        sent = []

        def hangUp(process):
            spawned = time.monotonic()
            while not catchesHangups(process.pid):
                self.assertIsNone(process.poll())
                time.sleep(0.001)
            process.send_signal(signal.SIGHUP)
            process.send_signal(signal.SIGHUP)
            sent.append(time.monotonic() - spawned)

        daemon = self.startDaemon(command=command, spawned=hangUp)
        self.assertEqual(get(daemon.port, "/healthz")[0], 200)
        log = daemon.log()
        self.assertIn("arrived while the daemon was starting", log)
        self.assertLess(log.index("SIGHUP"), log.index("serving MCP on"))
        return sent[0]

    def test_hangupWhileTwistdStarts(self):
        self.hangUpWhileStarting(TWISTD_GSMCP)

    def test_hangupWhileServeStarts(self):
        self.hangUpWhileStarting(GSMCPD_SERVE)

    def test_hangupReopensAndNeverStops(self):
        audit = os.path.abspath(self.mktemp())
        daemon = self.startDaemon("--audit-log", audit)
        session = daemon.initialize()
        daemon.rpc("tools/call", session, 2, name="status", arguments={})
        os.rename(audit, audit + ".1")
        daemon.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 10
        while not os.path.exists(audit) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIsNone(daemon.process.poll(), daemon.log())
        self.assertEqual(get(daemon.port, "/healthz")[0], 200)
        daemon.rpc("tools/call", session, 3, name="abort", arguments={})
        for name, tool in ((audit + ".1", "status"), (audit, "abort")):
            with open(name) as f:
                self.assertEqual([json.loads(line)["tool"] for line in f
                                  if '"toolCall"' in line], [tool])

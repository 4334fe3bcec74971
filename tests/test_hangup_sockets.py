"""
C{SIGHUP} to a real plain-HTTP daemon (on the simulated stone, a test
double): it keeps serving, and its audit file is reopened for logrotate.
"""

import json
import os
import signal
import time

from twisted.trial.unittest import SynchronousTestCase

from tests.daemon import Daemon, get


class HangupSocketTests(SynchronousTestCase):

    def test_hangupReopensAndNeverStops(self):
        directory = os.path.abspath(self.mktemp())
        os.mkdir(directory)
        audit = os.path.join(directory, "audit.log")
        daemon = Daemon(directory, "--audit-log", audit)
        self.addCleanup(daemon.stop)
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

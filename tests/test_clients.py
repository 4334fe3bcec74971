"""
A real C{twistd gsmcp --simulated} process driven by real MCP clients.
"""

import json
import os
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

from tests.daemon import Daemon

CLIENTS = os.path.join(os.path.dirname(__file__), "clients")


class PythonSdkClientTests(SynchronousTestCase):

    def setUp(self):
        directory = self.mktemp()
        os.makedirs(directory)
        self.daemon = Daemon(directory)
        self.addCleanup(self.daemon.stop)

    def test_initializeListCallTerminate(self):
        """
        The official Python SDK client initializes, lists the tools, gets
        C{7} for C{3 + 4}, and terminates its session on exit.
        """
        finished = subprocess.run(
            [sys.executable, os.path.join(CLIENTS, "python_sdk_client.py"),
             self.daemon.url, "3 + 4"],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(finished.returncode, 0, finished.stderr)
        seen = json.loads(finished.stdout.splitlines()[-1])
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertIn("simulated", seen["serverInfo"]["title"])
        self.assertEqual(seen["tools"], ["abort", "commit", "execute_code",
                                         "refresh", "status"])
        self.assertEqual((seen["isError"], seen["text"]), (False, ["7"]))
        self.assertEqual(seen["structured"]["printString"], "7")
        # twistd ends by re-raising the SIGTERM it shut down for.
        self.assertIn(self.daemon.stop(), (0, -15))
        log = self.daemon.log()
        self.assertIn("closed: the client deleted it", log)
        self.assertIn("stopped the simulated stone", log)
        self.assertIn("Server Shut Down.", log)

    def test_refusesBadConfigurationInOneLine(self):
        directory = self.mktemp()
        os.makedirs(directory)
        finished = subprocess.run(
            [sys.executable, "-c",
             "from twisted.scripts.twistd import run; run()", "--nodaemon",
             "--pidfile=", "gsmcp", "--simulated", "--max-sessions", "0"],
            capture_output=True, text=True, timeout=60, cwd=directory)
        self.assertNotEqual(finished.returncode, 0)
        self.assertEqual(finished.stderr.strip().splitlines(), [
            "gsmcpd: refusing to start: --max-sessions '0': expected a "
            "positive count or 'none'"])

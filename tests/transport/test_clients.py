"""
A real C{twistd gsmcp --simulated} process driven by real MCP clients.
"""

import json
import os
import subprocess
import sys

from tests.realdaemon import CLIENTS, DaemonTestCase
from tests.structure.test_contract import REFERENCE_TOOLS


class PythonSdkClientTests(DaemonTestCase):

    def setUp(self):
        self.daemon = self.startDaemon()

    def client(self, *arguments):
        finished = subprocess.run(
            [sys.executable, os.path.join(CLIENTS, "python_sdk_client.py"),
             self.daemon.url, *arguments],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(finished.returncode, 0, finished.stderr)
        return json.loads(finished.stdout.splitlines()[-1])

    def test_initializeListCallTerminate(self):
        """
        The official Python SDK client initializes, lists the default
        surface's 33 tools (the reference design's 31, inspect and
        profile_code; each with an output schema and annotations), gets
        C{7} for C{3 + 4}, and terminates its session on exit.
        """
        seen = self.client("basic", "3 + 4")
        self.assertEqual(seen["protocolVersion"], "2025-11-25")
        self.assertIn("simulated", seen["serverInfo"]["title"])
        allTools = sorted(set().union(*REFERENCE_TOOLS.values(),
                                      {"inspect", "profile_code"}))
        self.assertEqual(len(allTools), 33)
        self.assertEqual(seen["tools"], allTools)
        self.assertEqual(seen["withOutputSchema"], allTools)
        self.assertEqual(seen["withAnnotations"], allTools)
        self.assertEqual((seen["isError"], seen["text"]), (False, ["7"]))
        self.assertEqual(seen["structured"]["printString"], "7")
        # twistd ends by re-raising the SIGTERM it shut down for.
        self.assertIn(self.daemon.stop(), (0, -15))
        log = self.daemon.log()
        self.assertIn("closed: the client deleted it", log)
        self.assertIn("stopped the simulated stone", log)
        self.assertIn("Server Shut Down.", log)

    def test_browseCompileTestCommit(self):
        """
        A compile_method over a method this session has not read is
        refused; after reading it, the fix compiles, the test class passes,
        and the commit lands.
        """
        steps = self.client("roundtrip")
        blind = steps["blindWrite"]
        self.assertTrue(blind["isError"])
        self.assertEqual(blind["structured"]["error"]["kind"], "refused")
        self.assertIn("get_method_source", blind["text"][0])
        self.assertEqual(steps["before"]["structured"]["failures"], 1)
        self.assertFalse(steps["read"]["isError"])
        self.assertFalse(steps["compile"]["isError"], steps["compile"])
        after = steps["after"]["structured"]
        self.assertEqual((after["failures"], after["passed"]), (0, 2))
        self.assertFalse(steps["commit"]["isError"])

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


class ProgressClientTests(DaemonTestCase):

    def test_runTestClassReportsProgress(self):
        """
        A Python SDK client that sends a progress token to run_test_class
        hears notifications/progress before the result.
        """
        daemon = self.startDaemon()
        finished = subprocess.run(
            [sys.executable, os.path.join(CLIENTS, "python_sdk_client.py"),
             daemon.url, "progress"],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(finished.returncode, 0, finished.stderr)
        seen = json.loads(finished.stdout.splitlines()[-1])
        self.assertEqual([(r["progress"], r["total"])
                          for r in seen["reports"]], [(1, 3), (2, 3), (3, 3)])
        self.assertEqual(seen["structured"]["run"], 3)

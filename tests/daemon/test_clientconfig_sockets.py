"""
The snippets C{gsmcpd client-config} prints, run as printed against a real
C{twistd gsmcp --simulated}: every one that can run here (the Python SDK's;
the TypeScript SDK's when the Node clients of C{bin/run-conformance} are
installed).
"""

import os
import shutil
import subprocess
import sys

from twisted.trial.unittest import SkipTest, SynchronousTestCase

from gsmcpd.daemon.clientconfig import TYPESCRIPT_FILE, Target, snippet
from tests.realdaemon import Daemon

NODE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "node")


class PrintedSnippetTests(SynchronousTestCase):

    def setUp(self):
        self.directory = os.path.abspath(self.mktemp())
        os.makedirs(self.directory)
        self.daemon = Daemon(self.directory)
        self.addCleanup(self.daemon.stop)

    def runAsPrinted(self, name, text, command):
        path = os.path.join(self.directory, name)
        with open(path, "w") as f:
            f.write(text)
        finished = subprocess.run([*command, path], capture_output=True,
                                  text=True, timeout=120,
                                  cwd=self.directory)
        self.assertEqual(finished.returncode, 0, finished.stderr[-2000:])
        return finished.stdout.splitlines()

    def test_python(self):
        """
        The Python SDK's snippet, in the SDK's default mode (2026-07-28),
        opens a session, prints 7 and closes it.
        """
        printed = self.runAsPrinted("snippet.py", snippet(
            "python", Target(self.daemon.url)), [sys.executable])
        self.assertEqual(printed, ["7"])
        log = self.daemon.log()
        self.assertIn("closed: the client closed it (close_session)", log)

    def test_typescript(self):
        """
        The TypeScript SDK's snippet (its v2 line), saved as the file it
        names, in a package of either module type, prints the tools and 7,
        then ends its session.
        """
        modules = os.path.join(NODE, "node_modules")
        if shutil.which("node") is None or not os.path.isdir(
                os.path.join(modules, "@modelcontextprotocol", "client")):
            missing = ("the TypeScript SDK's v2 line is not installed in "
                       "tests/node (bin/setup-node)")
            if os.environ.get("CI"):
                self.fail(missing)
            raise SkipTest(missing)
        os.symlink(modules, os.path.join(self.directory, "node_modules"))
        text = snippet("typescript", Target(self.daemon.url))
        self.assertTrue(text.startswith(f"// {TYPESCRIPT_FILE}: "))
        printed = self.runAsPrinted(TYPESCRIPT_FILE, text, ["node"])
        self.assertIn("execute_code", printed[0].split())
        self.assertEqual(printed[-1], "7")
        with open(os.path.join(self.directory, "package.json"), "w") as f:
            f.write('{"type": "module"}\n')
        self.assertEqual(self.runAsPrinted(TYPESCRIPT_FILE, text, ["node"])[-1], "7")
        self.assertEqual(self.daemon.log().count("closed: the client deleted it"), 2)

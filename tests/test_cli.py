"""
The C{gsmcpd} command as an operator runs it (in a child process, since
C{check} runs a reactor of its own).
"""

import json
import os
import subprocess
import sys
import tempfile

from twisted.trial.unittest import TestCase

from gsmcpd import __version__
from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.launch import launch

GSMCPD = ("-c", "from gsmcpd.daemon.cli import run; run()")


def gsmcpd(*arguments, environ=None):
    """
    Run C{gsmcpd ARGUMENTS}: C{(exit status, stdout, stderr)}.
    """
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("GSMCP_")}
    environment.update(environ or {})
    done = subprocess.run([sys.executable, *GSMCPD, *arguments],
                          capture_output=True, text=True, timeout=120,
                          env=environment)
    return done.returncode, done.stdout, done.stderr


class CommandTests(TestCase):

    def test_version(self):
        self.assertEqual(gsmcpd("--version"),
                         (0, f"gsmcpd {__version__}\n", ""))

    def test_noCommandIsAUsageError(self):
        status, out, err = gsmcpd()
        self.assertEqual(status, 2)
        self.assertIn("name a command", err)

    def test_clientConfigFromThePortSetting(self):
        status, out, err = gsmcpd(
            "client-config", "cursor",
            environ={"GSMCP_PORT": "tcp:9123:interface=127.0.0.1"})
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["mcpServers"]["gemstone"]["url"],
                         "http://127.0.0.1:9123/mcp")

    def test_clientConfigWithAuthentication(self):
        status, out, err = gsmcpd(
            "client-config", "claude-code",
            environ={"GSMCP_AUTH_ISSUER": "https://idp.example",
                     "GSMCP_AUTH_AUDIENCE": "https://gs.example:8443/mcp"})
        self.assertEqual(status, 0, err)
        self.assertEqual(out, "claude mcp add --transport http gemstone "
                         "https://gs.example:8443/mcp --header "
                         '"Authorization: Bearer $GSMCP_TOKEN"\n')

    def test_clientConfigUnknownClient(self):
        status, out, err = gsmcpd("client-config", "emacs")
        self.assertEqual(status, 2)
        self.assertIn("choose one of: claude-code", err)


class CheckCommandTests(TestCase):

    timeout = 120

    def test_simulatedStoneAllOk(self):
        status, out, err = gsmcpd("check", "--simulated")
        lines = out.splitlines()
        self.assertEqual(status, 0, out + err)
        self.assertEqual(len(lines), 9, out)
        self.assertTrue(all(line.startswith("OK  ") for line in lines), out)

    def test_wrongStoneNameFailsWithAFix(self):
        directory = tempfile.mkdtemp()
        socketPath = os.path.join(directory, "stone")
        stone = launch(socketPath)
        self.addCleanup(stone.stop)
        passwordFile = os.path.join(directory, "password")
        with open(passwordFile, "w") as f:
            f.write("swordfish\n")
        os.chmod(passwordFile, 0o600)
        status, out, err = gsmcpd(
            "check", "--gci-library", libraryPath(), "--password-file",
            passwordFile, "--stone", os.path.join(directory, "nostone"))
        self.assertEqual(status, 1, out + err)
        failing = [line for line in out.splitlines()
                   if line.startswith("FAIL")]
        self.assertEqual(len(failing), 1, out)
        self.assertIn("FAIL  login: as 'DataCurator' on stone", failing[0])
        self.assertIn(" -- fix: ", failing[0])

    def test_badSettingIsOneFailingLine(self):
        status, out, err = gsmcpd("check", "--simulated", "--max-sessions",
                                  "zero")
        self.assertEqual(status, 1)
        self.assertEqual(out, "FAIL  settings: --max-sessions 'zero': "
                         "expected a positive count or 'none'\n")

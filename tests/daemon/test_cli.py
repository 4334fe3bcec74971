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
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.auditchain import GENESIS, lineDigest
from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.launch import launch
from tests.observe.test_audit import ran

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

    def test_versionEverywhere(self):
        """
        Every command's --version is gsmcpd's, not Twisted's.
        """
        for command in ("serve", "check", "client-config"):
            self.assertEqual(gsmcpd(command, "--version")[:2],
                             (0, f"gsmcpd {__version__}\n"), command)

    def test_checkHelpIsGsmcpds(self):
        status, out, err = gsmcpd("check", "--help")
        self.assertEqual(status, 0, err)
        self.assertTrue(out.startswith("Usage: gsmcpd [--config FILE] check"),
                        out)
        self.assertIn("\nSessions:", out)

    def test_serveHelpIsGsmcpds(self):
        status, out, err = gsmcpd("serve", "--help")
        self.assertEqual(status, 0, err)
        self.assertTrue(out.startswith("Usage: gsmcpd [--config FILE] serve"),
                        out)
        self.assertNotIn("twistd", out.splitlines()[0])
        for title in ("Connection:", "Sessions:", "Authentication",
                      "Operations:"):
            self.assertIn(f"\n{title}", out)
        self.assertNotIn("Twisted version", out)
        self.assertLess(len(out.splitlines()), 125)

    def test_clientConfigNamesTheClients(self):
        status, out, err = gsmcpd("client-config")
        self.assertEqual(status, 2)
        self.assertIn("Usage: gsmcpd client-config [options] CLIENT", err)
        self.assertIn("gsmcpd: name a client: claude-code, claude-desktop, "
                      "cursor", err)

    def test_clientConfigBarePort(self):
        status, out, err = gsmcpd("client-config", "--port", "40100",
                                  "cursor")
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["mcpServers"]["gemstone"]["url"],
                         "http://127.0.0.1:40100/mcp")

    def test_clientConfigOptionsAfterTheClient(self):
        """
        Options may follow the client's name, flags and parameters alike.
        """
        status, out, err = gsmcpd("client-config", "cursor", "--port", "8001",
                                  "--bearer", "--name=gs")
        self.assertEqual(status, 0, err)
        server = json.loads(out)["mcpServers"]["gs"]
        self.assertEqual(server["url"], "http://127.0.0.1:8001/mcp")
        self.assertIn("Authorization", server["headers"])
        status, out, err = gsmcpd("client-config", "cursor", "--nosuch")
        self.assertEqual(status, 2)
        self.assertIn("option --nosuch not recognized", err)
        status, out, err = gsmcpd("client-config", "cursor", "vscode")
        self.assertEqual(status, 2)

    def test_configBeforeTheCommand(self):
        """
        gsmcpd --config FILE COMMAND reads its settings from FILE.
        """
        path = tempfile.mktemp()
        with open(path, "w") as f:
            f.write('port = 40101\nauth-issuer = "https://idp.example"\n')
        self.addCleanup(os.remove, path)
        status, out, err = gsmcpd("--config", path, "client-config",
                                  "cursor")
        self.assertEqual(status, 0, err)
        server = json.loads(out)["mcpServers"]["gemstone"]
        self.assertEqual(server["url"], "http://127.0.0.1:40101/mcp")
        self.assertIn("Authorization", server["headers"])

    def test_clientConfigUnknownKey(self):
        path = tempfile.mktemp()
        with open(path, "w") as f:
            f.write("prot = 40101\n")
        self.addCleanup(os.remove, path)
        status, out, err = gsmcpd("client-config", "cursor",
                                  environ={"GSMCP_CONFIG": path})
        self.assertEqual((status, err), (2, (
            f"gsmcpd client-config: {path}: 'prot' is not a setting (did "
            "you mean 'port'?)\n")))

    def test_noCommandIsAUsageError(self):
        status, out, err = gsmcpd()
        self.assertEqual(status, 2)
        self.assertIn("name a command", err)

    def test_auditVerify(self):
        """
        C{gsmcpd audit verify FILE} exits 0 on an intact trail, and 1
        naming the line after one removed.
        """
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator")
        for tool in ("status", "abort", "status"):
            ran(audit, tool, anonymous=True)
        audit.close()
        with open(path, "rb") as f:
            lines = f.readlines()
        status, out, err = gsmcpd("audit", "verify", path)
        self.assertEqual((status, out, err), (0, (
            f"the chain holds through {path}; its last line hashes to "
            f"{lineDigest(lines[-1].rstrip())}\n"), ""))
        with open(path, "wb") as f:
            f.writelines(lines[:1] + lines[2:])
        status, out, err = gsmcpd("audit", "verify", path)
        self.assertEqual(status, 1)
        self.assertTrue(out.startswith(f"{path}:2: breaks the chain"), out)
        status, out, err = gsmcpd("audit", "verify", path + ".none")
        self.assertEqual(status, 1)
        self.assertIn("No such file", err)
        status, out, err = gsmcpd("audit", "verify")
        self.assertEqual(status, 2)
        self.assertIn("name the audit file", err)

    def test_auditVerifyCutHead(self):
        """
        A trail cut at its head, by one line or five, fails; so does it
        with its head given back by a file that does not start the trail,
        unless C{--continues} names what it continues.
        """
        path = self.mktemp()
        audit = AuditLog.toFile(path, "DataCurator")
        for tool in ("status", "abort") * 4:
            ran(audit, tool, anonymous=True)
        audit.close()
        with open(path, "rb") as f:
            lines = f.readlines()
        for cut in (1, 5):
            with open(path, "wb") as f:
                f.writelines(lines[cut:])
            status, out, err = gsmcpd("audit", "verify", path)
            self.assertEqual(status, 1)
            self.assertIn(f"{path}:1: not the head of a trail file", out)
        with open(path, "wb") as f:
            f.writelines(lines)
        status, out, err = gsmcpd("audit", "verify", "--continues",
                                  "0" * 64, path)
        self.assertEqual(status, 1)
        self.assertIn("continues " + GENESIS, out)

    def test_auditVerifyWithKey(self):
        """
        A keyed trail verifies with its key; without it, or with another,
        it does not; a key file others may read is refused.
        """
        path, keyFile, other = self.mktemp(), self.mktemp(), self.mktemp()
        for name, text in ((keyFile, "k3y\n"), (other, "other\n")):
            with open(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600),
                      "w") as f:
                f.write(text)
        audit = AuditLog.toFile(path, "DataCurator", key=b"k3y")
        ran(audit, "status", anonymous=True)
        audit.close()
        status, out, err = gsmcpd("audit", "verify", "--audit-key-file",
                                  keyFile, path)
        self.assertEqual(status, 0, out)
        status, out, err = gsmcpd("audit", "verify", path)
        self.assertEqual(status, 1)
        self.assertIn("give the trail's key (--audit-key-file)", out)
        status, out, err = gsmcpd("audit", "verify", "--audit-key-file",
                                  other, path)
        self.assertEqual(status, 1)
        self.assertIn(f"{path}:2: breaks the chain", out)
        os.chmod(keyFile, 0o644)
        status, out, err = gsmcpd("audit", "verify", "--audit-key-file",
                                  keyFile, path)
        self.assertEqual(status, 2)
        self.assertIn("chmod 600", err)

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
        self.assertEqual(lines[0], "OK    --simulated: on (from --simulated)")
        self.assertEqual(len(lines), 11, out)
        self.assertTrue(all(line.startswith("OK  ") for line in lines), out)

    def test_auditKeyChecked(self):
        """
        C{gsmcpd check} refuses an audit key file others may read, or one
        without an audit file to chain.
        """
        key = tempfile.mktemp()
        with open(key, "w") as f:
            f.write("k3y\n")
        self.addCleanup(os.remove, key)
        for mode, more, refusal in (
                (0o644, ("--audit-log", key + ".log"), "chmod 600"),
                (0o600, (), "needs --audit-log")):
            os.chmod(key, mode)
            status, out, err = gsmcpd("check", "--simulated",
                                      "--audit-key-file", key, *more)
            self.assertEqual(status, 1)
            self.assertIn(refusal, out)

    def test_settingsFromTheFile(self):
        """
        gsmcpd --config FILE check reads FILE, and says so.
        """
        path = tempfile.mktemp()
        with open(path, "w") as f:
            f.write("simulated = true\nmax-sessions = 2\n")
        self.addCleanup(os.remove, path)
        status, out, err = gsmcpd("--config", path, "check")
        self.assertEqual(status, 0, out + err)
        self.assertIn(f"OK    --max-sessions: 2 (from {path} "
                      "(max-sessions))\n", out)
        self.assertIn("session limit: --max-sessions 2 ", out)

    def test_noHomeIsOneLine(self):
        """
        A user who cannot write a cache (the service user, whose home is
        /nonexistent) gets a line saying what to set, not a traceback.
        """
        blocker = tempfile.mktemp()
        with open(blocker, "w") as f:
            f.write("not a directory")
        self.addCleanup(os.remove, blocker)
        status, out, err = gsmcpd("check", "--simulated", environ={
            "GSMCP_CACHE_DIR": os.path.join(blocker, "cache")})
        self.assertEqual((status, err), (1, ""))
        self.assertIn("FAIL  libgcits: --simulated: cannot build the "
                      "simulated stone's libgcits in ", out)
        self.assertIn("set GSMCP_CACHE_DIR to a directory this user may "
                      "write\n", out)
        self.assertIn("SKIP  login: skipped: libgcits failed\n", out)

    def test_simulatedWithAnotherStone(self):
        status, out, err = gsmcpd("check", "--simulated", "--stone",
                                  "nosuchstone")
        self.assertEqual((status, out), (1, (
            "FAIL  settings: --simulated starts its own stone, gs64stone, so "
            "--stone nosuchstone cannot apply\n")))

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

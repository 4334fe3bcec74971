"""
Tests for L{gsmcpd.daemon.check}: the preflight against the simulated stone
(a test double, not GemStone), through the daemon's real ctypes path.
"""

import os
import tempfile
from datetime import UTC, datetime, timedelta

from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks, succeed
from twisted.internet.threads import deferToThread
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.check import Preflight, parseGemNrs, settingsFindings
from gsmcpd.daemon.options import Options
from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.control import SimulatorControl
from gsmcpd.testing.simulator.launch import launch
from gsmcpd.testing.simulator.stone import Stone
from tests.daemon.test_certificate import makeCertificate
from tests.toolharness import InProcessGem


def configFor(*arguments):
    options = Options()
    options.parseOptions(list(arguments))
    return options.config(environ={})


class SimulatedStoneTests(TestCase):
    """
    C{gsmcpd check} as an operator runs it, on the simulated stone.
    """

    timeout = 60

    def runCheck(self, config, **kwargs):
        lines = []
        preflight = Preflight(config, reactor, lambda f: lines.append(f),
                              environ={}, **kwargs)
        return preflight.run().addCallback(lambda _: (preflight, lines))

    def realStone(self, maxLogins=12):
        """
        A simulated stone the check reaches as it would a real one: by
        --gci-library, --stone and --password-file.
        """
        directory = tempfile.mkdtemp()
        socketPath = os.path.join(directory, "stone")
        stone = launch(socketPath, maxLogins=maxLogins)
        self.addCleanup(deferToThread, stone.stop)
        passwordFile = os.path.join(directory, "password")
        with open(passwordFile, "w") as f:
            f.write("swordfish\n")
        os.chmod(passwordFile, 0o600)
        return socketPath, passwordFile

    def stoneArguments(self, socketPath, passwordFile, *more):
        return configFor("--gci-library", libraryPath(), "--stone",
                         socketPath, "--password-file", passwordFile, *more)

    @inlineCallbacks
    def test_simulatedAllOk(self):
        preflight, lines = yield self.runCheck(configFor("--simulated"))
        self.assertFalse(preflight.failed, [f.line() for f in lines])
        subjects = [f.subject for f in lines]
        self.assertEqual(subjects, [
            "GEMSTONE", "libgcits", "login", "stopping gems",
            "session limit", "optional messages", "one-time passwords",
            "certificate", "JWKS", "fair shares"])
        self.assertTrue(all(f.line().startswith("OK  ") for f in lines))
        self.assertIn("apply only with bearer-token auth", lines[-1].detail)

    @inlineCallbacks
    def test_wrongStoneNameFails(self):
        socketPath, passwordFile = self.realStone()
        config = self.stoneArguments(socketPath + "-wrong", passwordFile)
        preflight, lines = yield self.runCheck(config)
        self.assertTrue(preflight.failed)
        login, = [f for f in lines if f.subject == "login"]
        self.assertFalse(login.ok)
        self.assertIn("-wrong", login.detail)
        self.assertIn("GemStone error", login.detail)
        self.assertTrue(login.line().startswith("FAIL  login: "))
        self.assertIn(" -- fix: ", login.line())
        self.assertEqual(
            [f.line() for f in lines if f.mark == "SKIP"],
            [f"SKIP  {subject}: skipped: login failed" for subject in (
                "stopping gems", "session limit", "one-time passwords")])

    @inlineCallbacks
    def test_libraryFailureSkipsTheStoneChecks(self):
        """
        When libgcits cannot load, the checks that need it show as skipped
        rather than vanish; those that do not still run.
        """
        _, passwordFile = self.realStone()
        preflight, lines = yield self.runCheck(configFor(
            "--gci-library", "/nonexistent/libgcits.so", "--password-file",
            passwordFile))
        self.assertTrue(preflight.failed)
        self.assertEqual(
            [(f.subject, f.mark) for f in lines],
            [("GEMSTONE", None), ("libgcits", None), ("NetLDI", "SKIP"),
             ("login", "SKIP"), ("stopping gems", "SKIP"),
             ("session limit", "SKIP"), ("one-time passwords", "SKIP"),
             ("certificate", None), ("JWKS", None),
             ("fair shares", None)])
        self.assertEqual(lines[2].detail, "skipped: libgcits failed")

    @inlineCallbacks
    def checkRealStone(self, subject, *arguments, maxLogins=12):
        """
        Check a simulated stone reached as a real one, with C{arguments};
        answer the preflight and the one finding about C{subject}.
        """
        socketPath, passwordFile = self.realStone(maxLogins)
        preflight, lines = yield self.runCheck(
            self.stoneArguments(socketPath, passwordFile, *arguments))
        finding, = [f for f in lines if f.subject == subject]
        return preflight, finding

    @inlineCallbacks
    def test_sessionLimitBeyondTheStones(self):
        """
        A stone that allows fewer sessions than --max-sessions (plus the
        daemon's own) is a warning: the daemon runs, and logins past the
        stone's limit fail.
        """
        preflight, limit = yield self.checkRealStone(
            "session limit", "--max-sessions", "3", maxLogins=4)
        self.assertFalse(preflight.failed)
        self.assertTrue(limit.line().startswith("WARN  session limit: "
                                                "--max-sessions 3 plus"))
        self.assertIn("lower --max-sessions to 2", limit.fix)

    @inlineCallbacks
    def test_userWhoCannotStopGems(self):
        socketPath, passwordFile = self.realStone()
        SimulatorControl(socketPath).call({
            "op": "addUser", "user": "Curator", "password": "swordfish",
            "privileges": ["CodeModification"]})
        preflight, lines = yield self.runCheck(self.stoneArguments(
            socketPath, passwordFile, "--user", "Curator"))
        stopping, = [f for f in lines if f.subject == "stopping gems"]
        self.assertFalse(stopping.ok)
        self.assertIn("(AllUsers userWithId: 'Curator') addPrivilege: "
                      "#SystemControl", stopping.fix)

    @inlineCallbacks
    def test_workerUserGranted(self):
        preflight, worker = yield self.checkRealStone(
            "worker login", "--worker-user", "McpReadOnly")
        self.assertFalse(preflight.failed, [f.line() for f in
                                            preflight.findings])
        self.assertIn("CodeModification", worker.detail)

    @inlineCallbacks
    def test_workerUserNotGranted(self):
        _, minting = yield self.checkRealStone(
            "one-time passwords", "--worker-user", "Stranger")
        self.assertFalse(minting.ok)
        self.assertIn("addOnetimePasswordUserId: 'Stranger'", minting.fix)

    def authConfig(self, *more):
        return configFor("--simulated", "--auth-issuer",
                         "https://idp.example", "--auth-audience",
                         "http://127.0.0.1:8000/mcp", *more)

    @inlineCallbacks
    def test_jwksFetched(self):
        preflight = Preflight(self.authConfig(), reactor, lambda f: None,
                              environ={})
        preflight._remoteKeys = lambda config: FakeKeys([{}, {}])
        yield preflight.checkJwks()
        self.assertEqual(preflight.findings[-1].line(),
                         "OK    JWKS: 2 signing keys from the metadata of "
                         "https://idp.example")

    def test_identitySharesWithAuthentication(self):
        """
        With bearer-token auth, the shares per identity apply, a
        percentage of --max-sessions counted out.
        """
        preflight = Preflight(self.authConfig(
            "--max-sessions", "10", "--calls-per-session", "none"),
            reactor, lambda f: None, environ={})
        preflight.checkShares()
        self.assertEqual(preflight.findings[-1].line(), (
            "OK    fair shares: no cap on calls in flight a session, 64 an "
            "identity; 5 GemStone sessions an identity"))

    @inlineCallbacks
    def test_jwksUnreachable(self):
        preflight = Preflight(self.authConfig(), reactor, lambda f: None,
                              environ={})
        preflight._remoteKeys = lambda config: FakeKeys([])
        yield preflight.checkJwks()
        self.assertFalse(preflight.findings[-1].ok)
        self.assertIn("no usable signing key", preflight.findings[-1].detail)


class FakeKeys:
    """
    Stands in for L{gsmcpd.auth.keys.RemoteKeys}: what a refresh found.
    """

    def __init__(self, found):
        self._found = found
        self.keys = ()

    def refresh(self):
        self.keys = self._found
        return succeed(None)


class CertificateTests(TestCase):

    def test_audienceHostChecked(self):
        """
        The certificate is judged against the host of --auth-audience.
        """
        now = datetime.now(UTC)
        path = makeCertificate(self.mktemp(), ["other.example.com"],
                               now - timedelta(days=1),
                               now + timedelta(days=90))
        config = configFor(
            "--simulated", "--port", f"ssl:8443:privateKey={path}:"
            f"certKey={path}:interface=127.0.0.1", "--auth-issuer",
            "https://idp.example", "--auth-audience",
            "https://mcp.example.com:8443/mcp")
        lines = []
        Preflight(config, reactor, lines.append).checkCertificate()
        self.assertFalse(lines[0].ok)
        self.assertIn("not mcp.example.com, the host of --auth-audience",
                      lines[0].detail)


class GemNrsTests(TestCase):

    def test_defaults(self):
        self.assertEqual(parseGemNrs(None), ("localhost", "gs64ldi"))

    def test_hostAndNetldi(self):
        self.assertEqual(
            parseGemNrs("!tcp@db.example#netldi:50377#task!gemnetobject"),
            ("db.example", "50377"))


class OptionalMessagesTests(TestCase):
    """
    The check's line about the optional messages the templates send.
    """

    def finding(self, stone):
        found = []
        preflight = Preflight(configFor("--simulated"), reactor, found.append, environ={})
        self.successResultOf(preflight.checkCapabilities(InProcessGem(stone)))
        [finding] = found
        return finding

    def test_allPresent(self):
        self.assertEqual(self.finding(Stone()).line(), "OK    optional messages: this stone "
                         "has every optional message the templates send")

    def test_lackingNamed(self):
        """
        A stone told to lack one names it and what is lost, without
        failing the check: gsmcpd serves without it.
        """
        finding = self.finding(Stone(lacking={"System class>>sessionsReferencingOldestCr"}))
        self.assertTrue(finding.ok)
        self.assertEqual(finding.detail, (
            "this stone lacks System sessionsReferencingOldestCr (the sessions holding the "
            "oldest commit record are read from each session's description, which needs "
            "SessionAccess); gsmcpd serves without it"))


class SettingsFindingsTests(TestCase):

    def test_whereEachValueCameFrom(self):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("simulated = true\nmax-sessions = 5\n")
        options = Options()
        options.parseOptions(["--config", path, "--port", "40191",
                              "--request-timeout", "9"])
        options.config({"GSMCP_ALLOWED_ORIGINS": "a.example b.example"})
        self.assertEqual([finding.line() for finding in
                          settingsFindings(options)], [
            "OK    --port: 40191 (from --port)",
            f"OK    --simulated: on (from {path} (simulated))",
            f"OK    --max-sessions: 5 (from {path} (max-sessions))",
            "OK    --call-timeout: 9 (from --request-timeout)",
            "OK    --allowed-origin: a.example b.example (from "
            "GSMCP_ALLOWED_ORIGINS)",
            "WARN  settings: --request-timeout is deprecated and will be "
            "removed: use --call-timeout"])

    def test_allDefaults(self):
        options = Options()
        options.parseOptions(["--simulated"])
        options.config({})
        self.assertEqual([finding.line() for finding in
                          settingsFindings(options)],
                         ["OK    --simulated: on (from --simulated)"])

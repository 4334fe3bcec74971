"""
Tests for L{gsmcpd.daemon.options}: the daemon's settings, from options or
the environment, and the refusals of those that cannot work.
"""

import io
import json
import os
import re
import sys

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd import __version__
from gsmcpd.daemon.options import Config, ConfigError, Options
from gsmcpd.daemon.settings import declaredSettings
from gsmcpd.sessions.shares import FairShares


class ConfigTests(SynchronousTestCase):

    def configure(self, argv, environ=None):
        options = Options()
        options.parseOptions(argv)
        return options.config(environ or {})

    def refusal(self, argv, environ=None):
        return str(self.assertRaises(ConfigError, self.configure, argv,
                                     environ))

    def passwordFile(self, text="swordfish\n"):
        path = self.mktemp()
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(text)
        return path

    def test_defaults(self):
        config = self.configure(["--simulated"])
        self.assertEqual(config.port, "tcp:8000:interface=127.0.0.1")
        self.assertEqual(config.maxSessions, 10)
        self.assertEqual(config.allowedOrigins, ())

    def test_environmentMeansTheSame(self):
        config = self.configure([], {
            "GSMCP_SIMULATED": "yes", "GSMCP_PORT": "tcp:9000:interface=127.0.0.1",
            "GSMCP_MAX_SESSIONS": "none",
            "GSMCP_ALLOWED_ORIGINS": "a.example b.example"})
        self.assertEqual((config.simulated, config.port, config.maxSessions,
                          config.allowedOrigins),
                         (True, "tcp:9000:interface=127.0.0.1", None, ("a.example", "b.example")))

    def test_commandLineWins(self):
        config = self.configure(["--simulated", "--port", "tcp:1:interface=localhost"],
                                {"GSMCP_PORT": "tcp:2"})
        self.assertEqual(config.port, "tcp:1:interface=localhost")

    def test_repeatableOrigin(self):
        config = self.configure(["--simulated", "--allowed-origin", "a",
                                 "--allowed-origin", "b"])
        self.assertEqual(config.allowedOrigins, ("a", "b"))

    def test_realStoneNeedsPasswordFile(self):
        self.assertIn("--password-file", self.refusal([]))

    def test_passwordReadFromFile(self):
        config = self.configure(["--password-file", self.passwordFile(),
                                 "--host", "db1", "--netldi", "50377"])
        self.assertEqual(config.password, "swordfish")
        self.assertEqual(config.stoneNrs, "!tcp@db1#server!gs64stone")
        self.assertEqual(config.gemServiceNrs,
                         "!tcp@db1#netldi:50377#task!gemnetobject")
        self.assertNotIn("swordfish", repr(config))

    def test_fullNrsKept(self):
        config = self.configure(["--password-file", self.passwordFile(),
                                 "--stone", "!@db2!devstone"])
        self.assertEqual((config.stoneNrs, config.gemServiceNrs),
                         ("!@db2!devstone", None))

    def test_emptyPasswordFile(self):
        self.assertIn("empty", self.refusal(
            ["--password-file", self.passwordFile("")]))

    def test_missingPasswordFile(self):
        self.assertIn("--password-file", self.refusal(
            ["--password-file", "/nonexistent/pw"]))

    def test_simulatedContradictsRealStone(self):
        self.assertIn("--gci-library", self.refusal(
            ["--simulated", "--gci-library", "/x.so"]))

    def test_simulatedContradictsAnotherStone(self):
        """
        The simulated stone is gs64stone; naming another is a contradiction,
        not a setting to ignore.
        """
        self.assertEqual(
            self.refusal(["--simulated", "--stone", "nosuchstone"]),
            "--simulated starts its own stone, gs64stone, so --stone "
            "nosuchstone cannot apply")
        self.assertEqual(self.configure(["--simulated", "--stone",
                                         "gs64stone"]).stone, "gs64stone")

    def test_barePortMeansLoopback(self):
        config = self.configure(["--simulated", "--port", "40191",
                                 "--admin-port", "40192"])
        self.assertEqual((config.port, config.adminPort),
                         ("tcp:40191:interface=127.0.0.1",
                          "tcp:40192:interface=127.0.0.1"))
        self.assertEqual(
            self.configure([], {"GSMCP_SIMULATED": "1",
                                "GSMCP_PORT": "40191"}).port,
            "tcp:40191:interface=127.0.0.1")

    def test_stoneDeadline(self):
        """
        The control session's pass has 10 seconds by default; C{none}
        lets it wait for ever.
        """
        options = Options()
        options.parseOptions(["--simulated"])
        self.assertEqual(options.config({}).stoneDeadline, 10)
        options = Options()
        options.parseOptions(["--simulated", "--stone-deadline", "none"])
        self.assertIsNone(options.config({}).stoneDeadline)

    def test_timeoutsRenamed(self):
        """
        --call-timeout and --http-read-timeout; their former names still
        work, with a warning naming the new one.
        """
        options = Options()
        options.parseOptions(["--simulated", "--call-timeout", "5",
                              "--http-read-timeout", "7"])
        config = options.config({})
        self.assertEqual((config.callTimeout, config.httpReadTimeout,
                          config.connectionLimits.requestDeadline,
                          options.warnings), (5, 7, 7, []))
        options = Options()
        options.parseOptions(["--simulated", "--request-timeout", "5"])
        config = options.config({"GSMCP_REQUEST_DEADLINE": "7"})
        self.assertEqual((config.callTimeout, config.httpReadTimeout),
                         (5, 7))
        self.assertEqual(options.warnings, [
            "--request-timeout is deprecated and will be removed: use "
            "--call-timeout",
            "GSMCP_REQUEST_DEADLINE is deprecated and will be removed: use "
            "GSMCP_HTTP_READ_TIMEOUT"])

    def test_newNameWinsOverTheFormer(self):
        config = self.configure(["--simulated", "--request-timeout", "5",
                                 "--call-timeout", "6"])
        self.assertEqual(config.callTimeout, 6)

    def test_formerNameRefusalNamesIt(self):
        self.assertEqual(
            self.refusal(["--simulated", "--request-deadline", "soon"]),
            "--request-deadline 'soon': expected seconds or 'none'")

    def test_configurationFile(self):
        """
        A TOML file gives any setting under its option's name; the
        environment and the command line win over it.
        """
        path = self.mktemp()
        with open(path, "w") as f:
            f.write('simulated = true\nport = 40191\nmax-sessions = 5\n'
                    'allowed-origin = ["http://localhost:3000"]\n'
                    'toolsets = ["execution", "browsing"]\n'
                    'toolset-options = {}\ncall-timeout = 2.5\n')
        options = Options()
        options.parseOptions(["--config", path, "--max-sessions", "4"])
        config = options.config({"GSMCP_CALL_TIMEOUT": "9"})
        self.assertEqual(
            (config.simulated, config.port, config.maxSessions,
             config.allowedOrigins, config.toolsetNames, config.callTimeout),
            (True, "tcp:40191:interface=127.0.0.1", 4,
             ("http://localhost:3000",), ("execution", "browsing"), 9))
        self.assertEqual(
            {name: source.kind for name, source in options.sources.items()
             if source.kind != "default"},
            {"simulated": "file", "port": "file", "maxSessions": "option",
             "allowedOrigins": "file", "toolsetNames": "file",
             "toolsetOptions": "file", "callTimeout": "environment"})

    def test_configurationFileFromTheEnvironment(self):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("simulated = true\nmax-sessions = 6\n")
        self.assertEqual(self.configure([], {"GSMCP_CONFIG": path})
                         .maxSessions, 6)

    def test_unknownKeyRefused(self):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("simulated = true\nmax-session = 6\n")
        self.assertEqual(self.refusal(["--config", path]),
                         f"{path}: 'max-session' is not a setting (did you "
                         "mean 'max-sessions'?)")

    def test_fileValueRefusalNamesFileAndKey(self):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("simulated = true\nmax-sessions = 0\n")
        self.assertEqual(self.refusal(["--config", path]),
                         f"{path}: max-sessions = '0': expected a positive "
                         "count or 'none'")

    def test_version(self):
        """
        twistd gsmcp --version is gsmcpd's.
        """
        out = io.StringIO()
        self.patch(sys, "stdout", out)
        exit = self.assertRaises(SystemExit, Options().parseOptions,
                                 ["--version"])
        self.assertEqual((exit.code, out.getvalue()),
                         (0, f"gsmcpd {__version__}\n"))

    def test_simulatedRepository(self):
        """
        C{--simulated-repository} (C{GSMCP_SIMULATED_REPOSITORY}) names the
        simulated stone's code: demo by default, or kernel.
        """
        self.assertEqual(self.configure(["--simulated"]).simulatedRepository, "demo")
        self.assertEqual(self.configure(["--simulated"], {
            "GSMCP_SIMULATED_REPOSITORY": "kernel"}).simulatedRepository, "kernel")
        self.assertIn("demo, kernel", self.refusal(
            ["--simulated", "--simulated-repository", "huge"]))

    def test_simulatedRepositoryNeedsSimulated(self):
        self.assertIn("--simulated-repository", self.refusal(
            ["--password-file", self.passwordFile(), "--simulated-repository", "kernel"]))

    def test_gemNrsContradictsNetldi(self):
        self.assertIn("--gem-nrs", self.refusal(
            ["--password-file", self.passwordFile(), "--gem-nrs", "!x",
             "--netldi", "ldi"]))

    def test_hostPasswordNeedsHostUser(self):
        self.assertIn("--host-user", self.refusal(
            ["--password-file", self.passwordFile(),
             "--host-password-file", self.passwordFile()]))

    def test_badFlagWord(self):
        self.assertIn("GSMCP_SIMULATED", self.refusal(
            [], {"GSMCP_SIMULATED": "maybe"}))

    def test_environmentRefusalNamesTheVariable(self):
        self.assertEqual(
            self.refusal(["--simulated"], {"GSMCP_MAX_SESSIONS": "many"}),
            "GSMCP_MAX_SESSIONS='many': expected a positive count or "
            "'none'")

    def test_maxSessionsRefusal(self):
        self.assertEqual(self.refusal(["--simulated", "--max-sessions", "0"]),
                         "--max-sessions '0': expected a positive count or "
                         "'none'")

    def test_lifetimeSettings(self):
        config = self.configure(
            ["--simulated", "--toolsets", "execution", "--idle-timeout",
             "none", "--probe-after", "600", "--call-timeout", "2",
             "--max-commits-behind", "none", "--worker-user", "McpReadOnly"])
        self.assertEqual(
            (config.lifetime.idleTimeout, config.lifetime.probeAfter,
             config.callTimeout, config.maxCommitsBehind,
             config.workerUser),
            (None, 600, 2, None, "McpReadOnly"))

    def test_unworkableLifetimeRefused(self):
        self.assertIn("--probe-after", self.refusal(
            ["--simulated", "--toolsets", "execution", "--idle-timeout",
             "100", "--probe-after", "200"]))
        self.assertIn("--call-timeout", self.refusal(
            ["--simulated", "--toolsets", "execution", "--call-timeout",
             "soon"]))
        self.assertIn("--max-commits-behind", self.refusal(
            ["--simulated", "--toolsets", "execution",
             "--max-commits-behind", "0"]))

    def test_toolsetsChosen(self):
        config = self.configure(["--simulated", "--toolsets",
                                 "execution,session"])
        self.assertEqual([t.name for t in config.toolsets],
                         ["execution", "session"])

    def test_unknownToolsetRefused(self):
        self.assertIn("unknown toolset 'browse'", self.refusal(
            ["--simulated", "--toolsets", "browse"]))

    def test_thirdPartyToolset(self):
        config = self.configure(
            ["--simulated", "--toolsets",
             "execution tests.example_toolset:GreetingToolset",
             "--toolset-options",
             '{"tests.example_toolset:GreetingToolset": {"greeting": "Hi"}}'])
        self.assertEqual(config.toolsets[1].optionNamed("greeting", None),
                         "Hi")

    def test_undeclaredOptionRefused(self):
        message = self.refusal(
            ["--simulated", "--toolsets",
             "tests.example_toolset:GreetingToolset", "--toolset-options",
             '{"tests.example_toolset:GreetingToolset": {"greting": "x"}}'])
        self.assertIn("'greting'", message)
        self.assertIn("accepts: greeting", message)

    def test_optionsForUnservedToolsetRefused(self):
        self.assertIn("not served", self.refusal(
            ["--simulated", "--toolsets", "execution", "--toolset-options",
             '{"session": {}}']))

    def test_toolsetOptionsMustBeJsonObjects(self):
        for text in ("{", "[]", '{"execution": 1}'):
            self.assertIn("--toolset-options", self.refusal(
                ["--simulated", "--toolsets", "execution",
                 "--toolset-options", text]))

    def test_identity(self):
        config = self.configure(
            ["--password-file", self.passwordFile(), "--toolsets",
             "execution", "--server-name", "acme-db", "--server-version",
             "2.5.0", "--server-title", "Acme sandbox"])
        identity = config.identity
        self.assertEqual((identity.name, identity.version, identity.title),
                         ("acme-db", "2.5.0", "Acme sandbox"))

    def test_noDefaultTitle(self):
        config = self.configure(["--password-file", self.passwordFile(),
                                 "--toolsets", "execution"])
        self.assertIsNone(config.identity.title)

    def test_simulatedTitleSaysSo(self):
        self.assertIn("simulated", self.configure(
            ["--simulated", "--toolsets", "execution"]).identity.title)
        self.assertIn("simulated", self.configure(
            ["--simulated", "--toolsets", "execution", "--server-title",
             "demo"]).identity.title)

    def test_stockInstructionsFollowTheSurface(self):
        """
        The stock instructions name commit only when the session toolset
        is served.
        """
        narrow = self.configure(["--simulated", "--toolsets", "execution"])
        wide = self.configure(["--simulated", "--toolsets",
                               "execution session"])
        self.assertNotIn("Only commit, abort and refresh", narrow.identity.instructions)
        self.assertIn("Only commit, abort and refresh", wide.identity.instructions)

    def test_eachEraItsOwnInstructions(self):
        """
        The 2026-07-28 text starts with open_session and the handle; the
        2025 text speaks of the MCP session; both list the toolsets.
        """
        identity = self.configure(["--simulated", "--toolsets",
                                   "execution session"]).identity
        self.assertTrue(identity.modernInstructions.startswith(
            "Call open_session first"))
        self.assertIn("Your MCP session has its own GemStone session",
                      identity.instructions)
        self.assertIn("Only commit, abort and refresh", identity.modernInstructions)

    def test_instructionsFile(self):
        path = self.passwordFile("Acme labels. Read-only.")
        config = self.configure(["--simulated", "--toolsets", "execution",
                                 "--instructions-file", path])
        self.assertEqual(config.identity.instructions,
                         "Acme labels. Read-only.")
        self.assertEqual(config.identity.modernInstructions,
                         "Acme labels. Read-only.")

    def test_emptyInstructionsFileSendsNone(self):
        config = self.configure(["--simulated", "--toolsets", "execution",
                                 "--instructions-file",
                                 self.passwordFile("")])
        self.assertIsNone(config.identity.instructions)

    def test_oversizedInstructionsRefused(self):
        self.assertIn("32768", self.refusal(
            ["--simulated", "--toolsets", "execution", "--instructions-file",
             self.passwordFile("x" * 32_769)]))

    def test_catalogSurface(self):
        """
        C{--surface catalog} adds how to reach unlisted tools to the stock
        instructions; the full surface is the default; another is refused.
        """
        config = self.configure(["--simulated", "--surface", "catalog"])
        self.assertEqual(config.surface, "catalog")
        self.assertIn("tool_search", config.identity.instructions)
        config = self.configure(["--simulated"])
        self.assertEqual(config.surface, "full")
        self.assertNotIn("tool_search", config.identity.instructions)
        self.assertIn("full, catalog",
                      self.refusal(["--simulated", "--surface", "compact"]))

    def test_noPasswordOption(self):
        """
        There is no way to pass a password on the command line.
        """
        self.assertNotIn("password", [p[0] for p in Options.optParameters])

    def test_everySettingOffered(self):
        """
        Each declared setting is an option whose help names its variable.
        """
        help = str(Options())
        for name, declared in declaredSettings(Config):
            self.assertIn(f"--{declared.option}", help)
            self.assertTrue(declared.environ.startswith("GSMCP_"), name)
            self.assertIn(f"[{declared.environ}]", declared.usage)

    def test_environmentVariablesKept(self):
        """
        The variables operators' environment files already use.
        """
        self.assertEqual(
            {declared.environ for _, declared in declaredSettings(Config)}
            | {"GSMCP_" + declared.formerly.upper().replace("-", "_")
               for _, declared in declaredSettings(Config)
               if declared.formerly},
            {"GSMCP_PORT", "GSMCP_STONE", "GSMCP_HOST", "GSMCP_NETLDI",
             "GSMCP_GEM_NRS", "GSMCP_USER", "GSMCP_PASSWORD_FILE",
             "GSMCP_HOST_USER", "GSMCP_HOST_PASSWORD_FILE",
             "GSMCP_GCI_LIBRARY", "GSMCP_SIMULATED", "GSMCP_SIMULATED_REPOSITORY",
             "GSMCP_MAX_SESSIONS",
             "GSMCP_WARM_READS",
             "GSMCP_TOOLSETS", "GSMCP_TOOLSET_OPTIONS", "GSMCP_DEBUG_PROCESSES",
             "GSMCP_SURFACE",
             "GSMCP_TRACE_LOG", "GSMCP_TRACE_MAX_BODY",
             "GSMCP_TRACE_ROTATE_BYTES", "GSMCP_TRACE_KEEP",
             "GSMCP_SERVER_NAME",
             "GSMCP_SERVER_VERSION", "GSMCP_SERVER_TITLE",
             "GSMCP_INSTRUCTIONS_FILE", "GSMCP_IDLE_TIMEOUT", "GSMCP_HANDLE_IDLE_TIMEOUT",
             "GSMCP_ADMIN_PORT", "GSMCP_AGENT_PORT", "GSMCP_DRAIN_GRACE", "GSMCP_LOG_FORMAT",
             "GSMCP_PROBE_AFTER", "GSMCP_STREAMLESS_IDLE_TIMEOUT",
             "GSMCP_STREAM_LOSS_GRACE", "GSMCP_MAX_LIFETIME",
             "GSMCP_CALLS_PER_SESSION", "GSMCP_CALLS_PER_IDENTITY",
             "GSMCP_SESSIONS_PER_IDENTITY", "GSMCP_TASK_RETENTION",
             "GSMCP_TASKS_KEPT",
             "GSMCP_REQUEST_TIMEOUT", "GSMCP_MAX_COMMITS_BEHIND",
             "GSMCP_STUCK_VIEW_GRACE", "GSMCP_PINNED_VIEW_GRACE",
             "GSMCP_WORKER_USER", "GSMCP_ACCESS_LOG",
             "GSMCP_ALLOWED_ORIGINS", "GSMCP_AUTH_ISSUER",
             "GSMCP_AUTH_AUDIENCE", "GSMCP_AUTH_JWKS_URL",
             "GSMCP_AUTH_JWKS_FILE", "GSMCP_AUTH_REQUIRED_SCOPES",
             "GSMCP_AUTH_USER_CLAIM", "GSMCP_AUTH_USER_MAP",
             "GSMCP_AUTH_SCOPE_TOOLSETS", "GSMCP_READ_ONLY",
             "GSMCP_ALLOW_UNAUTHENTICATED_REMOTE", "GSMCP_AUDIT_LOG", "GSMCP_AUDIT_KEY_FILE",
             "GSMCP_ALLOWED_HOSTS",
             "GSMCP_REQUEST_DEADLINE", "GSMCP_HTTP_READ_TIMEOUT",
             "GSMCP_CALL_TIMEOUT", "GSMCP_STONE_DEADLINE", "GSMCP_MAX_CONNECTIONS",
             "GSMCP_MAX_CONNECTIONS_PER_PEER"})

    def test_toolsetOptionsExampleWorks(self):
        """
        The example in C{--toolset-options}'s help is accepted, with the
        toolset it names served.
        """
        [declared] = [each for _, each in declaredSettings(Config)
                      if each.option == "toolset-options"]
        example = re.search(r"e\.g\. (\{.*\}\})", declared.help).group(1)
        [toolset] = json.loads(example)
        config = self.configure(["--simulated", "--toolsets", toolset,
                                 "--toolset-options", example])
        self.assertEqual(config.toolsets[0].name, toolset)

    def test_lifetimeRefusalNamesOptions(self):
        """
        The lifetime policy names its fields as the daemon calls them.
        """
        self.assertIn("--streamless-idle-timeout cannot exceed "
                      "--idle-timeout", self.refusal(
                          ["--simulated", "--idle-timeout", "30",
                           "--probe-after", "20"]))

    def test_secretsNotInRepr(self):
        config = self.configure(["--password-file", self.passwordFile(),
                                 "--host-user", "gs", "--host-password-file",
                                 self.passwordFile("hunter2\n")])
        self.assertEqual(config.hostPassword, "hunter2")
        self.assertNotIn("hunter2", repr(config))


class FairShareTests(SynchronousTestCase):
    """
    The fair shares' settings (L{gsmcpd.sessions.shares}), and the
    refusal of caps that contradict each other.
    """

    configure = ConfigTests.configure
    refusal = ConfigTests.refusal

    def test_defaults(self):
        config = self.configure(["--simulated"])
        self.assertEqual(config.shares, FairShares(16, 64, 5))
        self.assertEqual((config.taskRetention, config.tasksKept),
                         (600.0, 100))

    def test_percentageOfMaxSessions(self):
        """
        A percentage is of --max-sessions, rounded down but at least 1;
        with no session cap there is no share either.
        """
        for maxSessions, share, held in (("10", "30%", 3), ("3", "50%", 1),
                                         ("1", "50%", 1), ("none", "50%",
                                                           None)):
            config = self.configure(["--simulated", "--max-sessions",
                                     maxSessions, "--sessions-per-identity",
                                     share])
            self.assertEqual(config.shares.sessionsPerIdentity, held)

    def test_given(self):
        config = self.configure([], {
            "GSMCP_SIMULATED": "1", "GSMCP_CALLS_PER_SESSION": "2",
            "GSMCP_CALLS_PER_IDENTITY": "none",
            "GSMCP_SESSIONS_PER_IDENTITY": "3",
            "GSMCP_TASK_RETENTION": "30", "GSMCP_TASKS_KEPT": "none"})
        self.assertEqual(config.shares, FairShares(2, None, 3))
        self.assertEqual((config.taskRetention, config.tasksKept),
                         (30.0, None))

    def test_malformed(self):
        for argv, expected in (
                (["--calls-per-session", "0"], "positive count"),
                (["--sessions-per-identity", "150%"], "1% to 100%"),
                (["--sessions-per-identity", "half"], "percentage"),
                (["--task-retention", "0"], "positive seconds"),
                (["--task-retention", "none"], "expected seconds"),
                (["--tasks-kept", "-1"], "positive count")):
            message = self.refusal(["--simulated"] + argv)
            self.assertIn(argv[0], message)
            self.assertIn(expected, message)

    def test_contradictory(self):
        """
        An identity's share of calls under one session's, or a share of
        sessions that leaves no one else room, is refused naming both
        settings.
        """
        message = self.refusal(["--simulated", "--calls-per-session", "8",
                                "--calls-per-identity", "4"])
        self.assertIn("--calls-per-identity 4 is less than "
                      "--calls-per-session 8", message)
        for share in ("10", "11"):
            message = self.refusal(["--simulated", "--sessions-per-identity",
                                    share])
            self.assertIn(f"--sessions-per-identity {share} leaves no room "
                          "under --max-sessions 10", message)
        config = self.configure(["--simulated", "--max-sessions", "1",
                                 "--sessions-per-identity", "1"])
        self.assertEqual(config.shares.sessionsPerIdentity, 1)
        config = self.configure(["--simulated", "--calls-per-session",
                                 "none", "--calls-per-identity", "4"])
        self.assertEqual(config.shares, FairShares(None, 4, 5))

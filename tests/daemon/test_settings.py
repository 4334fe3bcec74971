"""
Tests for L{gsmcpd.daemon.settings}: a setting declared once becomes an
option, an environment variable, a help line and an attribute.
"""

import os

import attr
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.settings import (
    AUTH,
    OPERATIONS,
    ConfigError,
    countOrNone,
    declaredSettings,
    fileKeys,
    flag,
    optionOf,
    optionsFor,
    repeatable,
    secretFile,
    setting,
)


@attr.s(frozen=True, kw_only=True)
class Example:
    """
    A class of one setting of each kind.
    """

    limit = setting("connection-limit", "most connections at once",
                    parse=countOrNone, default="10", formerly="max-conns")
    token = setting("token-file", "the token", parse=secretFile, secret=True,
                    group=AUTH)
    verbose = flag("verbose", "say more")
    hosts = repeatable("host", "a host (repeatable)", environ="GSMCP_HOSTS")
    derived = attr.ib(init=False, default="not a setting")


ExampleOptions = optionsFor(Example, "Options of the example.")


class Reading:
    """
    Reading the example's settings from options, variables and a file.
    """

    def read(self, argv=(), environ=None, toml=None):
        options = ExampleOptions()
        if toml is not None:
            path = self.mktemp()
            with open(path, "w") as f:
                f.write(toml)
            argv = ["--config", path, *argv]
        options.parseOptions(list(argv))
        return options.config(environ or {})


class DeclarationTests(Reading, SynchronousTestCase):

    def test_defaults(self):
        example = self.read()
        self.assertEqual((example.limit, example.token, example.verbose,
                          example.hosts), (10, None, False, ()))

    def test_declaredOnce(self):
        """
        The option, the variable and the attribute follow from one
        declaration; attributes not declared as settings are left out.
        """
        self.assertEqual(
            [(name, each.option, each.environ)
             for name, each in declaredSettings(Example)],
            [("limit", "connection-limit", "GSMCP_CONNECTION_LIMIT"),
             ("token", "token-file", "GSMCP_TOKEN_FILE"),
             ("verbose", "verbose", "GSMCP_VERBOSE"),
             ("hosts", "host", "GSMCP_HOSTS")])
        self.assertEqual(optionOf(Example, "limit"), "--connection-limit")

    def test_helpNamesVariableAndDefault(self):
        help = str(ExampleOptions())
        self.assertIn("[GSMCP_CONNECTION_LIMIT]", help)
        self.assertIn("(default: 10)", help)
        self.assertIn("[GSMCP_HOSTS] (repeatable)", help)

    def test_commandLineWinsOverEnvironment(self):
        example = self.read(["--connection-limit", "5"],
                            {"GSMCP_CONNECTION_LIMIT": "7"})
        self.assertEqual(example.limit, 5)
        self.assertEqual(self.read([], {"GSMCP_CONNECTION_LIMIT": "7"}).limit,
                         7)

    def test_emptyVariableIsUnset(self):
        example = self.read([], {"GSMCP_CONNECTION_LIMIT": "",
                                 "GSMCP_TOKEN_FILE": "", "GSMCP_HOSTS": "",
                                 "GSMCP_VERBOSE": ""})
        self.assertEqual((example.limit, example.token, example.verbose,
                          example.hosts), (10, None, False, ()))

    def test_refusalNamesTheSource(self):
        self.assertEqual(
            str(self.assertRaises(ConfigError, self.read,
                                  ["--connection-limit", "lots"])),
            "--connection-limit 'lots': expected a positive count or 'none'")
        self.assertEqual(
            str(self.assertRaises(ConfigError, self.read, [],
                                  {"GSMCP_CONNECTION_LIMIT": "lots"})),
            "GSMCP_CONNECTION_LIMIT='lots': expected a positive count or "
            "'none'")

    def test_flag(self):
        self.assertTrue(self.read(["--verbose"]).verbose)
        self.assertTrue(self.read([], {"GSMCP_VERBOSE": "Yes"}).verbose)
        self.assertFalse(self.read([], {"GSMCP_VERBOSE": "off"}).verbose)
        self.assertIn("GSMCP_VERBOSE='maybe'", str(self.assertRaises(
            ConfigError, self.read, [], {"GSMCP_VERBOSE": "maybe"})))

    def test_repeatable(self):
        self.assertEqual(self.read(["--host", "a", "--host", "b"]).hosts,
                         ("a", "b"))
        self.assertEqual(self.read([], {"GSMCP_HOSTS": "a b"}).hosts,
                         ("a", "b"))
        self.assertEqual(self.read(["--host", "c"],
                                   {"GSMCP_HOSTS": "a b"}).hosts, ("c",))

    def test_secretKeptOutOfRepr(self):
        path = self.mktemp()
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("hunter2\nignored\n")
        example = self.read(["--token-file", path])
        self.assertEqual(example.token, "hunter2")
        self.assertNotIn("hunter2", repr(example))

    def test_groups(self):
        """
        A setting names the part of --help it belongs to; operations unless
        it says.
        """
        self.assertEqual([each.group for _, each in declaredSettings(Example)],
                         [OPERATIONS, AUTH, OPERATIONS, OPERATIONS])


class FileTests(Reading, SynchronousTestCase):
    """
    The configuration file: below the environment, above the default.
    """

    def test_fileBelowEnvironmentAndOptions(self):
        toml = 'connection-limit = 4\nverbose = true\nhost = ["a", "b"]\n'
        example = self.read([], {}, toml)
        self.assertEqual((example.limit, example.verbose, example.hosts),
                         (4, True, ("a", "b")))
        self.assertEqual(self.read([], {"GSMCP_CONNECTION_LIMIT": "6"},
                                   toml).limit, 6)
        self.assertEqual(self.read(["--connection-limit", "7"],
                                   {"GSMCP_CONNECTION_LIMIT": "6"},
                                   toml).limit, 7)
        self.assertEqual(self.read(["--host", "c"], {}, toml).hosts, ("c",))

    def test_fileFlagOff(self):
        self.assertFalse(self.read([], {}, "verbose = false\n").verbose)
        self.assertTrue(self.read(["--verbose"], {},
                                  "verbose = false\n").verbose)

    def test_fileTypesRefused(self):
        self.assertIn("expected true or false", str(self.assertRaises(
            ConfigError, self.read, [], {}, 'verbose = "yes"\n')))
        self.assertIn("expected text or a number", str(self.assertRaises(
            ConfigError, self.read, [], {}, "connection-limit = true\n")))

    def test_unknownKeyRefused(self):
        error = str(self.assertRaises(ConfigError, self.read, [], {},
                                      "colour = 1\n"))
        self.assertRegex(error, r": 'colour' is not a setting \(gsmcpd "
                         r"serve --help lists them\)$")

    def test_notToml(self):
        self.assertIn("not TOML", str(self.assertRaises(
            ConfigError, self.read, [], {}, "= =\n")))

    def test_missingFile(self):
        path = self.mktemp()
        self.assertEqual(str(self.assertRaises(
            ConfigError, self.read, ["--config", path])),
            f"--config {path}: No such file or directory")

    def test_formerName(self):
        """
        A renamed setting is found under its former option, variable and
        key, after the current name at each level, with a warning.
        """
        options = ExampleOptions()
        options.parseOptions(["--max-conns", "3"])
        self.assertEqual(options.config({}).limit, 3)
        self.assertEqual(options.warnings, [
            "--max-conns is deprecated and will be removed: use "
            "--connection-limit"])
        self.assertEqual(self.read([], {"GSMCP_MAX_CONNS": "4"}).limit, 4)
        self.assertEqual(self.read([], {}, "max-conns = 5\n").limit, 5)
        self.assertEqual(self.read([], {"GSMCP_MAX_CONNS": "4",
                                        "GSMCP_CONNECTION_LIMIT": "6"}).limit,
                         6)
        self.assertEqual(fileKeys(Example), ["connection-limit", "max-conns",
                                             "token-file", "verbose", "host"])


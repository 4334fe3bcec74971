"""
Tests for L{gsmcpd.daemon.settings}: a setting declared once becomes an
option, an environment variable, a help line and an attribute.
"""

import os

import attr
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.settings import (
    ConfigError, count, countOrNone, declaredSettings, flag, optionOf,
    optionsFor, parseFlag, positiveSecondsOrNone, repeatable, seconds,
    secondsOrNone, secretFile, setting, words)


@attr.s(frozen=True, kw_only=True)
class Example:
    """
    A class of one setting of each kind.
    """

    limit = setting("connection-limit", "most connections at once",
                    parse=countOrNone, default="10")
    token = setting("token-file", "the token", parse=secretFile, secret=True)
    verbose = flag("verbose", "say more")
    hosts = repeatable("host", "a host (repeatable)", environ="GSMCP_HOSTS")
    derived = attr.ib(init=False, default="not a setting")


ExampleOptions = optionsFor(Example, "Options of the example.")


class DeclarationTests(SynchronousTestCase):

    def read(self, argv=(), environ=None):
        options = ExampleOptions()
        options.parseOptions(list(argv))
        return options.config(environ or {})

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


class ParserTests(SynchronousTestCase):

    def test_count(self):
        self.assertEqual((count("0"), count("2")), (0, 2))
        for bad in ("-1", "none", "many"):
            self.assertRaises(ValueError, count, bad)

    def test_countOrNone(self):
        self.assertEqual(countOrNone("5"), 5)
        self.assertIsNone(countOrNone("None"))
        for bad in ("0", "-1", "many"):
            self.assertRaises(ValueError, countOrNone, bad)

    def test_seconds(self):
        self.assertEqual(seconds("0"), 0.0)
        self.assertEqual(seconds("2.5"), 2.5)
        for bad in ("-1", "soon", "none"):
            self.assertRaises(ValueError, seconds, bad)

    def test_secondsOrNone(self):
        self.assertIsNone(secondsOrNone(" none "))
        self.assertEqual(secondsOrNone("0"), 0.0)
        self.assertIn("or 'none'", str(self.assertRaises(
            ValueError, secondsOrNone, "soon")))

    def test_positiveSecondsOrNone(self):
        self.assertEqual(positiveSecondsOrNone("3"), 3.0)
        self.assertIsNone(positiveSecondsOrNone("none"))
        self.assertRaises(ValueError, positiveSecondsOrNone, "0")

    def test_words(self):
        self.assertEqual(words("a, b c"), ("a", "b", "c"))
        self.assertEqual(words(" "), ())

    def test_flagWords(self):
        self.assertEqual([parseFlag(w) for w in ("1", "TRUE", "on", "", "no")],
                         [True, True, True, False, False])
        self.assertRaises(ValueError, parseFlag, "maybe")

    def test_secretFile(self):
        self.assertIn("No such file", str(self.assertRaises(
            ValueError, secretFile, self.mktemp())))
        empty = self.mktemp()
        os.close(os.open(empty, os.O_WRONLY | os.O_CREAT, 0o600))
        self.assertEqual(str(self.assertRaises(ValueError, secretFile, empty)),
                         "the file is empty")

    def test_secretFileOthersMayRead(self):
        shared = self.mktemp()
        with open(shared, "w") as f:
            f.write("hunter2\n")
        os.chmod(shared, 0o640)
        self.assertIn("chmod 600", str(self.assertRaises(
            ValueError, secretFile, shared)))

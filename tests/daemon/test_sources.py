"""
Tests for L{gsmcpd.daemon.sources}: where a setting's text comes from, and
the configuration file.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.sources import (
    DEFAULT_SOURCE,
    ENVIRONMENT,
    FILE,
    FLAG,
    LIST,
    OPTION,
    VALUE,
    SettingsFile,
    SettingsFileError,
    Source,
    shaped,
)

IN_FILE = Source(FILE, "max-sessions", "/etc/gsmcpd/gsmcpd.toml")


class SourceTests(SynchronousTestCase):

    def test_prefixNamesTheSource(self):
        self.assertEqual(Source(OPTION, "--port").prefix(), "--port ")
        self.assertEqual(Source(ENVIRONMENT, "GSMCP_PORT").prefix(),
                         "GSMCP_PORT=")
        self.assertEqual(IN_FILE.prefix(),
                         "/etc/gsmcpd/gsmcpd.toml: max-sessions = ")

    def test_describe(self):
        self.assertEqual(IN_FILE.describe(),
                         "/etc/gsmcpd/gsmcpd.toml (max-sessions)")
        self.assertEqual(DEFAULT_SOURCE.describe(), "default")
        self.assertEqual(Source(ENVIRONMENT, "GSMCP_PORT").describe(),
                         "GSMCP_PORT")


class ShapedTests(SynchronousTestCase):

    def test_fileValues(self):
        """
        A number is its text, a list its words, a table JSON.
        """
        self.assertEqual(shaped(VALUE, 5, IN_FILE), "5")
        self.assertEqual(shaped(VALUE, 2.5, IN_FILE), "2.5")
        self.assertEqual(shaped(VALUE, ["a", "b"], IN_FILE), "a b")
        self.assertEqual(shaped(VALUE, {"a": {"b": True}}, IN_FILE),
                         '{"a": {"b": true}}')
        self.assertEqual(shaped(LIST, "a b", IN_FILE), ["a", "b"])
        self.assertIs(shaped(FLAG, False, IN_FILE), False)

    def test_otherSources(self):
        self.assertEqual(shaped(LIST, "a b", Source(ENVIRONMENT, "X")),
                         ["a", "b"])
        self.assertEqual(shaped(FLAG, "yes", Source(ENVIRONMENT, "X")), "yes")
        self.assertIs(shaped(FLAG, 1, Source(OPTION, "--x")), True)
        self.assertIs(shaped(FLAG, None, DEFAULT_SOURCE), False)
        self.assertEqual(shaped(LIST, None, DEFAULT_SOURCE), [])

    def test_wrongTypesRefused(self):
        for kind, value in ((VALUE, True), (VALUE, [1]), (FLAG, "yes"),
                            (LIST, 3)):
            error = self.assertRaises(SettingsFileError, shaped, kind, value,
                                      IN_FILE)
            self.assertTrue(str(error).startswith(
                "/etc/gsmcpd/gsmcpd.toml: max-sessions = "), str(error))


class SettingsFileTests(SynchronousTestCase):

    def write(self, text):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_noFile(self):
        self.assertEqual(SettingsFile.load(None, []).find("port"),
                         (None, None))

    def test_find(self):
        path = self.write("port = 8001\n")
        value, source = SettingsFile.load(path, ["port"]).find("port")
        self.assertEqual((value, source), (8001, Source(FILE, "port", path)))
        self.assertEqual(source.given, 8001)

    def test_unknownKeySuggestsTheClosest(self):
        path = self.write("prot = 8001\n")
        self.assertEqual(str(self.assertRaises(
            SettingsFileError, SettingsFile.load, path, ["port", "stone"])),
            f"{path}: 'prot' is not a setting (did you mean 'port'?)")

    def test_sectionsAreUnknownKeys(self):
        path = self.write("[daemon]\nport = 8001\n")
        self.assertIn("'daemon' is not a setting", str(self.assertRaises(
            SettingsFileError, SettingsFile.load, path, ["port"])))

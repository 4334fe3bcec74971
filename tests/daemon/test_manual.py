"""
Tests for L{gsmcpd.daemon.manual}: C{gsmcpd serve --help}, the manual page
and the example configuration file, all from the declarations.
"""

import pathlib
import re
import tomllib

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.manual import (
    TITLES,
    argument,
    exampleFile,
    helpText,
    manPage,
    summary,
)
from gsmcpd.daemon.options import Config, Options
from gsmcpd.daemon.settings import FLAG, declaredSettings

ROOT = pathlib.Path(__file__).parents[2]
DECLARED = dict(declaredSettings(Config))
REGENERATE = "regenerate it: python -m gsmcpd.daemon.manual {} > {}"


class HelpTests(SynchronousTestCase):

    def test_everySettingOnceInItsGroup(self):
        text = helpText(Config)
        for declared in DECLARED.values():
            self.assertEqual(len(re.findall(
                rf"^  --{declared.option}(?![\w-])", text, re.M)), 1,
                declared.option)
        positions = [text.index(f"\n{TITLES[group]}:")
                     for group in ("connection", "sessions", "auth",
                                   "operations")]
        self.assertEqual(positions, sorted(positions))

    def test_short(self):
        text = helpText(Config)
        # A line or two a setting: under 125 for 63 settings.
        self.assertLess(len(text.splitlines()), 125)
        self.assertTrue(all(len(line) <= 79 for line in text.splitlines()))
        self.assertTrue(text.startswith("Usage: gsmcpd [--config FILE] serve"))
        self.assertNotIn("request-timeout", text)

    def test_summaryIsTheFirstClause(self):
        self.assertEqual(summary(DECLARED["port"]),
                         "Twisted endpoint to listen on")
        self.assertEqual(summary(DECLARED["maxSessions"]),
                         "most GemStone sessions open at once, or 'none'")

    def test_argument(self):
        self.assertEqual(
            [argument(DECLARED[name]) for name in
             ("maxSessions", "callTimeout", "password", "port", "simulated",
              "auditLog", "user")],
            ["N", "SECONDS", "FILE", "ENDPOINT", "", "FILE", "TEXT"])


class ManPageTests(SynchronousTestCase):

    def test_upToDate(self):
        self.assertEqual(
            (ROOT / "docs" / "gsmcpd.8").read_text(), manPage(Config),
            REGENERATE.format("man", "docs/gsmcpd.8"))

    def test_everySettingWithItsVariable(self):
        page = manPage(Config)
        for declared in DECLARED.values():
            option = declared.option.replace("-", "\\-")
            self.assertIn(f"\\fB\\-\\-{option}\\fR", page)
            self.assertIn(declared.environ.replace("-", "\\-"), page)
        self.assertIn("formerly \\-\\-request\\-timeout", page)

    def test_noLineStartsWithAControlCharacterByAccident(self):
        for line in manPage(Config).splitlines():
            if line.startswith((".", "'")):
                self.assertRegex(line, r"^\.(TH|SH|SS|TP|PP|B|br|nf|fi|RS|RE)"
                                 r"\b")


class ExampleFileTests(SynchronousTestCase):

    def test_upToDate(self):
        self.assertEqual(
            (ROOT / "etc" / "gsmcpd.toml.example").read_text(),
            exampleFile(Config),
            REGENERATE.format("toml", "etc/gsmcpd.toml.example"))

    def test_everySettingOnce(self):
        keys = re.findall(r"^#([a-z-]+) = ", exampleFile(Config), re.M)
        self.assertEqual(sorted(keys),
                         sorted(each.option for each in DECLARED.values()))

    def test_defaultsUncommentedMeanTheDefaults(self):
        """
        Uncommenting every line that shows a default gives the daemon the
        same configuration as no file at all.
        """
        lines = [line[1:] for line in exampleFile(Config).splitlines()
                 if re.match(r"^#[a-z-]+ = ", line) and "<" not in line]
        values = tomllib.loads("\n".join(lines))
        self.assertEqual(
            set(values), {each.option for each in DECLARED.values()
                          if each.default is not None or each.kind == FLAG})
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("\n".join(lines).replace("simulated = false",
                                             "simulated = true") + "\n")
        fromFile = Options()
        fromFile.parseOptions(["--config", path])
        plain = Options()
        plain.parseOptions(["--simulated"])
        settings = [(name, getattr(config, name)) for config in
                    (fromFile.config({}), plain.config({})) for name in
                    DECLARED]
        half = len(settings) // 2
        self.assertEqual(settings[:half], settings[half:])

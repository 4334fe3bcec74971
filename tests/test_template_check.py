"""
bin/check-templates-on-stone: its samples cover every template, and each
runs on the simulated stone (so on a real stone, only a real difference
shows).
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
from pathlib import Path

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import gem
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.templates.render import Template

SCRIPT = Path(__file__).resolve().parent.parent / "bin" / "check-templates-on-stone"


def loadScript():
    loader = importlib.machinery.SourceFileLoader("check_templates_on_stone", str(SCRIPT))
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


class CheckScriptTests(SynchronousTestCase):

    def setUp(self):
        self.script = loadScript()

    def test_everyTemplateSampled(self):
        self.assertEqual({name for name, _ in self.script.SAMPLES},
                         set(self.script.templateNames()))

    def test_samplesRunOnTheSimulatedStone(self):
        """
        In order, every sample answers a result; the refusals and the
        unread guard are what the samples are meant to meet.
        """
        session = Stone().login("DataCurator", "swordfish")
        answers = {}
        for name, arguments in self.script.SAMPLES:
            if name == "mint_onetime_password":
                arguments = dict(arguments, userId="DataCurator")
            source = Template.named(name).render(arguments, self.script.MAX_BYTES)
            outcome = json.loads(gem.answer(session, source))
            self.assertNotIn("error", outcome, name)
            answers.setdefault(name, []).append(outcome["result"])
        self.assertIn("gsmcpRefused", answers["compile_method"][1])
        self.assertEqual(answers["delete_class"], [{"unread": True}])

    def test_topazInput(self):
        script = self.script.topazInput("stone", "user", "secret", "user")
        self.assertTrue(script.startswith("set gemstone stone user user password secret\n"))
        self.assertEqual(script.count("\nprintit\n"), len(self.script.SAMPLES))
        self.assertTrue(script.endswith("abort\nlogout\nexit\n"))

    def scriptOnly(self, *argv, environ=None):
        """
        The topaz input C{main} writes for C{argv} with C{--script-only}.
        """
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(self.script.main(["--script-only", *argv],
                                              environ or {}), 0)
        return out.getvalue()

    def passwordFile(self, mode):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("hunter2\n")
        os.chmod(path, mode)
        return path

    def test_passwordFile(self):
        """
        The password comes from a file only its owner may read, so it never
        shows in the process table.
        """
        script = self.scriptOnly("--password-file", self.passwordFile(0o600))
        self.assertIn(" password hunter2\n", script)

    def test_passwordFileOthersMayReadRefused(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertRaises(SystemExit, self.script.main, [
                "--script-only", "--password-file", self.passwordFile(0o644)],
                {})
        self.assertIn("chmod 600", err.getvalue())

    def test_passwordFromTheEnvironment(self):
        self.assertIn(" password hunter2\n", self.scriptOnly(
            environ={"GEMSTONE_PASSWORD": "hunter2"}))

    def test_noPasswordOption(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertRaises(SystemExit, self.script.main, [
                "--script-only", "--password", "hunter2"], {})

"""
Tests for L{gsmcpd.daemon.templatecheck}: C{gsmcpd check --templates} on
the simulated stone (a test double, not GemStone), through the daemon's
ctypes binding and envelope: every template passes; one broken on purpose is
named and fails the command; it never commits and touches nothing of
anyone's.
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.checksteps import PROBE_CLASS, SCRATCH_DICTIONARY, STEPS
from gsmcpd.daemon.commitprobe import NOT_PROBED
from gsmcpd.daemon.options import Options
from gsmcpd.daemon.templatecheck import TemplateCheck
from gsmcpd.gci.library import GciLibrary
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.launch import launch
from gsmcpd.tools.base import ToolCall
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.templates import render
from gsmcpd.tools.templates.render import Template, templateNames

BROKEN = "list_methods"
_asShipped = []


def configFor(*arguments):
    options = Options()
    options.parseOptions(list(arguments))
    return options.config(environ={})


def breakTemplate(name):
    """
    As if template C{name} sent a selector no stone has: what C{patch}
    needs to make it so, and to undo it.
    """
    original = render.loadTemplateText

    def broken(each, package=render.TEMPLATE_PACKAGE):
        return "self gsmcpdNoSuchSelector" if each == name else \
            original(each, package)
    return broken


class TemplateCheckTests(TestCase):

    timeout = 120

    def check(self, config, steps=STEPS):
        return TemplateCheck(config, reactor, steps, environ={}).run()

    @inlineCallbacks
    def asShipped(self):
        """
        The report of the check with every template as shipped, on a
        simulated stone of its own: made once for the tests that only read
        it (each check starts a stone and runs every template).
        """
        if not _asShipped:
            _asShipped.append((yield self.check(configFor("--simulated"))))
        return _asShipped[0]

    def breaking(self, name):
        self.patch(render, "loadTemplateText", breakTemplate(name))
        Template.named.cache_clear()
        self.addCleanup(Template.named.cache_clear)

    @inlineCallbacks
    def test_everyTemplatePasses(self):
        report = yield self.asShipped()
        self.assertEqual([row.step for row in report.rows if not row.ok], [])
        self.assertEqual(report.templates,
                         {name: "pass" for name in templateNames()})
        self.assertTrue(report.ok)
        self.assertEqual(report.rows[-1].step, "nothing committed")
        self.assertEqual(report.stone["user"], "DataCurator")

    @inlineCallbacks
    def test_everyTemplateAnswerDescribed(self):
        """
        A template step's row says what its answer holds, never an empty
        "answered" (C{lacking_capabilities} answers an empty list), and
        never a value (C{mint_onetime_password} answers a password).
        """
        report = yield self.asShipped()
        details = {row.step: row.detail for row in report.rows
                   if row.detail.startswith("answered")}
        self.assertEqual(details["lacking_capabilities"],
                         "answered an empty list")
        self.assertEqual(details["session_state"], "answered commitsBehind "
                         "(an integer), session (an integer)")
        self.assertEqual(details["mint_onetime_password"],
                         "answered password (a string)")
        self.assertEqual([step for step, detail in details.items()
                          if detail.strip() == "answered"], [])

    @inlineCallbacks
    def test_answerOfTheWrongShapeFails(self):
        """
        A template answering what the daemon cannot read fails, though the
        call succeeded: a String where session_state's dictionary belongs.
        """
        original = render.loadTemplateText

        def answering(each, package=render.TEMPLATE_PACKAGE):
            return "'a String'" if each == "session_state" else \
                original(each, package)
        self.patch(render, "loadTemplateText", answering)
        Template.named.cache_clear()
        self.addCleanup(Template.named.cache_clear)
        report = yield self.check(configFor("--simulated"))
        [row] = [row for row in report.rows if row.step == "session_state"]
        self.assertFalse(row.ok)
        self.assertEqual(row.detail,
                         "the answer is not a dictionary: it is a string")

    @inlineCallbacks
    def test_wrongShapeNeverPrintsTheAnswer(self):
        """
        An answer of the wrong shape is described by its kinds only: a
        C{mint_onetime_password} answering its password bare, or in a
        dictionary under another key, never puts it in the report.
        """
        original = render.loadTemplateText
        answers = iter(["'s3cretPassw0rd'",
                        "Dictionary new at: 'password' put: 42; at: 'pw' "
                        "put: 's3cretPassw0rd'; yourself"])

        def answering(each, package=render.TEMPLATE_PACKAGE):
            return next(answers) if each == "mint_onetime_password" else \
                original(each, package)
        self.patch(render, "loadTemplateText", answering)
        Template.named.cache_clear()
        self.addCleanup(Template.named.cache_clear)
        details = []
        for _ in range(2):
            report = yield self.check(configFor("--simulated"))
            [row] = [row for row in report.rows
                     if row.step == "mint_onetime_password"]
            self.assertFalse(row.ok)
            details.append(row.detail)
            Template.named.cache_clear()
        self.assertEqual(details, [
            "the answer is not a dictionary: it is a string",
            "password is not a string: it is an integer"])
        self.assertNotIn("s3cret", " ".join(details))

    @inlineCallbacks
    def test_continueTransactionDownBothPaths(self):
        """
        continue_transaction runs holding no change and holding some: a
        path that does not leave needsCommit as it must fails.
        """
        steps = [step for step in STEPS if step.name == "continue_transaction"]
        self.assertEqual([step.needsCommit for step in steps], [False, True])
        report = yield self.check(configFor("--simulated"), (
            STEPS[0], STEPS[1], steps[1]))
        [row] = [row for row in report.rows
                 if row.step == "continue_transaction"]
        self.assertFalse(row.ok)
        self.assertEqual(row.detail, "needsCommit is False where this path "
                         "must leave it True")

    @inlineCallbacks
    def test_brokenTemplateNamed(self):
        self.breaking(BROKEN)
        report = yield self.check(configFor("--simulated"))
        self.assertFalse(report.ok)
        self.assertEqual([row.step for row in report.rows if not row.ok],
                         [BROKEN])
        verdicts = report.templates
        self.assertEqual(verdicts.pop(BROKEN), "fail")
        self.assertEqual(set(verdicts.values()), {"pass"})
        self.assertIn(f"failing or not run: {BROKEN}", report.table())

    @inlineCallbacks
    def test_noCommitLockNoChange(self):
        """
        Should the session not be commit-locked, nothing that changes the
        repository is tried.
        """
        self.breaking("disable_commits")
        report = yield self.check(configFor("--simulated"))
        self.assertEqual(report.rows[-1].step, "disable_commits")
        self.assertFalse(report.rows[-1].ok)
        self.assertEqual(report.templates["add_dictionary"], "not run")

    def realStone(self):
        directory = tempfile.mkdtemp()
        socketPath = os.path.join(directory, "stone")
        stone = launch(socketPath, maxLogins=4)
        self.addCleanup(deferToThread, stone.stop)
        passwordFile = os.path.join(directory, "password")
        with open(passwordFile, "w") as f:
            f.write("swordfish\n")
        os.chmod(passwordFile, 0o600)
        return socketPath, self.stoneConfig(socketPath, passwordFile)

    def stoneConfig(self, socketPath, passwordFile):
        self.passwordFile = passwordFile
        return configFor("--gci-library", libraryPath(), "--stone",
                         socketPath, "--password-file", passwordFile)

    @inlineCallbacks
    def committedProbe(self, socketPath):
        """
        Someone's class of the probe's name, committed.
        """
        gem = GemSession(GciLibrary.load(libraryPath()), LoginParameters(
            stoneNrs=socketPath, gemNrs=None, user="DataCurator",
            password="swordfish"), reactor, "someone")
        yield gem.login()
        tools, call = ToolCatalog.named(), ToolCall(gem)
        try:
            for name, arguments in (
                    ("compile_class_definition", {"className": PROBE_CLASS}),
                    ("commit", {})):
                yield tools.get(name).run(call, arguments)
        finally:
            yield gem.logout()

    @inlineCallbacks
    def test_scratchNamesMustBeFree(self):
        socketPath, config = self.realStone()
        yield self.committedProbe(socketPath)
        report = yield self.check(config)
        last = report.rows[-1]
        self.assertEqual((last.step, last.ok), ("describe_class", False))
        self.assertIn("notFound", last.detail)
        self.assertEqual(report.templates["add_dictionary"], "not run")
        self.assertFalse(report.ok)

    @inlineCallbacks
    def test_nothingCommitted(self):
        """
        On a stone that outlives the check: a fresh session sees neither
        scratch name afterwards (the check's own last row says so too).
        """
        socketPath, config = self.realStone()
        report = yield self.check(config)
        self.assertTrue(report.ok, report.table())
        gem = GemSession(GciLibrary.load(libraryPath()), LoginParameters(
            stoneNrs=socketPath, gemNrs=None, user="DataCurator",
            password="swordfish"), reactor, "after")
        yield gem.login()
        try:
            listed = yield ToolCatalog.named().get("list_dictionaries").run(
                ToolCall(gem), {})
        finally:
            yield gem.logout()
        self.assertNotIn(SCRATCH_DICTIONARY, listed.text)

    @inlineCallbacks
    def test_loginFailureIsARow(self):
        socketPath, _ = self.realStone()
        report = yield self.check(self.stoneConfig(socketPath + "-x",
                                                   self.passwordFile))
        self.assertEqual([row.step for row in report.rows], ["login"])
        self.assertFalse(report.ok)


BROKEN_COMMAND = (
    "import sys; from gsmcpd.tools.templates import render; "
    "from tests.daemon.test_templatecheck import breakTemplate; "
    "render.loadTemplateText = breakTemplate(sys.argv[1]); del sys.argv[1]; "
    "from gsmcpd.daemon.cli import run; run()")


def command(*arguments, broken=None):
    """
    Run C{gsmcpd ARGUMENTS} (with template C{broken} broken on purpose):
    C{(exit status, stdout, stderr)}.
    """
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("GSMCP_")
                   or key == "GSMCP_CACHE_DIR"}
    code = BROKEN_COMMAND if broken else \
        "from gsmcpd.daemon.cli import run; run()"
    done = subprocess.run(
        [sys.executable, "-c", code, *([broken] if broken else []),
         *arguments], capture_output=True, text=True, timeout=120,
        env=environment, cwd=pathlib.Path(__file__).parents[2])
    return done.returncode, done.stdout, done.stderr


class CommandTests(TestCase):
    """
    C{gsmcpd check --templates} as a user runs it, in a child process.
    """

    timeout = 180

    def test_everyTemplateListedAsPassing(self):
        status, out, err = command("check", "--templates", "--simulated")
        self.assertEqual(status, 0, out + err)
        names = templateNames()
        self.assertIn(f"{len(names)} of {len(names)} templates pass\n", out)
        self.assertNotIn("FAIL", out)
        for name in names:
            # Its own row, or a tool's that ran it (the debugger reads a
            # stopped run's frames and a finished run's answer so).
            self.assertRegex(out, rf"PASS  ({name} |.*\[templates: (.*, )?{name}[],])")
        self.assertIn(f"\nNOTE  {NOT_PROBED}\n", out)
        self.assertNotIn("\n\n", out)

    def test_commitProbe(self):
        """
        With --commit-probe, commit runs down its success and conflict
        paths too, and nothing is noted as not run.
        """
        status, out, err = command("check", "--templates", "--simulated",
                                   "--commit-probe")
        self.assertEqual(status, 0, out + err)
        [conflict] = [line.split() for line in out.splitlines()
                      if "the conflict path" in line]
        self.assertEqual(" ".join(conflict), "PASS commit session B commits: "
                         "the conflict path: answered committed (a boolean), "
                         "conflicts (a dictionary of 1)")
        self.assertNotIn("NOTE", out)
        self.assertNotIn("\n\n", out)

    def test_commitProbeRefusedReadOnly(self):
        status, out, err = command("check", "--templates", "--simulated",
                                   "--commit-probe", "--read-only")
        self.assertEqual((status, err), (1, ""))
        self.assertEqual(out, "FAIL  commit probe: refused under --read-only, "
                         "which promises that nothing is committed; "
                         "--commit-probe commits (then removes) a probe\n")

    def test_commitProbeOnlyWithTemplates(self):
        status, out, err = command("check", "--simulated", "--commit-probe")
        self.assertNotEqual(status, 0)
        self.assertIn("--commit-probe is part of --templates", out + err)

    def test_json(self):
        status, out, err = command("check", "--templates", "--simulated",
                                   "--json")
        self.assertEqual(status, 0, out + err)
        document = json.loads(out)
        self.assertTrue(document["ok"])
        self.assertEqual(document["templates"],
                         {name: "pass" for name in templateNames()})
        self.assertIn("simulated", document["library"])

    def test_brokenTemplateNamedAndFails(self):
        status, out, err = command("check", "--templates", "--simulated",
                                   broken=BROKEN)
        self.assertEqual(status, 1, out + err)
        self.assertIn(f"FAIL  {BROKEN} ", out)
        self.assertIn(f"failing or not run: {BROKEN}\n", out)

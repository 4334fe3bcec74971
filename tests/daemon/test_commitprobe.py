"""
Tests for L{gsmcpd.daemon.commitprobe}: C{gsmcpd check --templates
--commit-probe} on the simulated stone (a test double, not GemStone) runs
the commit template down its success and conflict paths between two
sessions of its own, checks each answer's shape, and leaves the stone as it
was; it refuses a name already bound and a user who cannot commit.
"""

from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.daemon import commitprobe
from gsmcpd.daemon.commitprobe import (
    GONE,
    NOT_PROBED,
    PROBE,
    STEPS,
    commitProbe,
    notProbed,
)
from gsmcpd.daemon.templatecheck import TemplateCheck
from gsmcpd.gci.library import GciLibrary
from gsmcpd.gci.session import GemSession, LoginParameters
from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.control import SimulatorControl
from gsmcpd.tools.base import ToolCall
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.templates import render
from gsmcpd.tools.templates.render import Template
from tests.daemon import test_templatecheck
from tests.daemon.test_templatecheck import configFor

PATHS = [step.path for _, step in STEPS]
BOUND = f"UserGlobals includesKey: #{PROBE}"


class CommitProbeTests(TestCase):

    timeout = 180
    realStone = test_templatecheck.TemplateCheckTests.realStone
    stoneConfig = test_templatecheck.TemplateCheckTests.stoneConfig

    def check(self, config, probe=commitProbe):
        return TemplateCheck(config, reactor, (), environ={},
                             probe=probe).run()

    def probeRows(self, report):
        return [row for row in report.rows if row.step != "nothing committed"]

    @inlineCallbacks
    def test_bothPaths(self):
        """
        A commits (the success path), B's commit conflicts with it (the
        conflict path, one kind of conflict reported), B aborts, A removes
        the binding and commits, and a fresh session finds it gone.
        """
        report = yield self.check(configFor("--simulated"))
        rows = self.probeRows(report)
        self.assertEqual(len(rows), len(PATHS) + 1)
        for row, path in zip(rows, PATHS + [GONE.path], strict=True):
            self.assertTrue(row.ok and row.detail.startswith(path + ": "),
                            row)
        answered = "answered committed (a boolean), conflicts "
        self.assertEqual([row.detail[len(path) + 2:] for row, path in
                          zip(rows, PATHS, strict=False)
                          if row.step == "commit"], [
            answered + "(an empty dictionary)",
            answered + "(a dictionary of 1)",
            answered + "(an empty dictionary)"])
        self.assertEqual(report.notes, [])

    @inlineCallbacks
    def test_notRunSaysHow(self):
        """
        Without the probe, the report says commit's paths were not run and
        how to run them, on one line.
        """
        report = yield self.check(configFor("--simulated"), probe=notProbed)
        self.assertEqual(report.notes, [NOT_PROBED])
        self.assertIn(f"NOTE  {NOT_PROBED}\n", report.table())
        self.assertIn("--commit-probe", NOT_PROBED)
        self.assertNotIn("\n", NOT_PROBED)
        self.assertEqual(self.probeRows(report), [])

    @inlineCallbacks
    def test_conflictReportChecked(self):
        """
        A commit template that answers no conflict when it failed fails
        the conflict path: the daemon could not say what conflicted.
        """
        original = render.loadTemplateText

        def silent(each, package=render.TEMPLATE_PACKAGE):
            return ("Dictionary new at: 'committed' put: System "
                    "commitTransaction; at: 'conflicts' put: Dictionary new; "
                    "yourself") if each == "commit" else original(each,
                                                                  package)
        self.patch(render, "loadTemplateText", silent)
        Template.named.cache_clear()
        self.addCleanup(Template.named.cache_clear)
        report = yield self.check(configFor("--simulated"))
        failed = [row for row in report.rows if not row.ok]
        self.assertEqual([row.detail for row in failed], [
            "session B commits: the conflict path: conflicts is not a "
            "dictionary of at least 1 dictionaries with count, names: it is "
            "an empty dictionary"])
        self.assertEqual(report.templates["commit"], "fail")

    @inlineCallbacks
    def bound(self, socketPath):
        """
        Whether a fresh session sees the probe's binding.
        """
        gem = GemSession(GciLibrary.load(libraryPath()), LoginParameters(
            stoneNrs=socketPath, gemNrs=None, user="DataCurator",
            password="swordfish"), reactor, "after")
        yield gem.login()
        try:
            result = yield ToolCatalog.named().get("execute_code").run(
                ToolCall(gem), {"code": BOUND})
        finally:
            yield gem.logout()
        return result.text.splitlines()[0]

    @inlineCallbacks
    def test_probeGoneAfterwards(self):
        """
        On a stone that outlives the check, the binding is gone.
        """
        socketPath, config = self.realStone()
        report = yield self.check(config)
        self.assertEqual([row.step for row in report.rows if not row.ok], [])
        self.assertEqual(report.rows[-1].detail, GONE.path + ": true")
        self.assertEqual((yield self.bound(socketPath)), "false")

    @inlineCallbacks
    def test_leftBoundSaysHowToRemove(self):
        """
        Should the binding be left committed (here the removal is left
        out), the fresh session's row fails and says how to remove it.
        """
        self.patch(commitprobe, "STEPS", STEPS[:-2])
        report = yield self.check(configFor("--simulated"))
        last = report.rows[-1]
        self.assertEqual((last.step, last.ok), ("execute_code", False))
        self.assertIn(f"{PROBE} is still bound in UserGlobals; remove it "
                      f"with UserGlobals removeKey: #{PROBE}, then commit",
                      last.detail)

    @inlineCallbacks
    def test_nameTakenLeftAlone(self):
        """
        Someone's binding of the probe's name stops the probe before it
        binds anything, and is left as it was.
        """
        socketPath, config = self.realStone()
        SimulatorControl(socketPath).call({
            "op": "commitFromOutside", "key": PROBE, "value": "theirs"})
        report = yield self.check(config)
        rows = self.probeRows(report)
        self.assertEqual(len(rows), 1)
        self.assertFalse(rows[0].ok)
        self.assertIn(f"{PROBE} is already bound in UserGlobals",
                      rows[0].detail)
        self.assertFalse(report.ok)
        self.assertEqual((yield self.bound(socketPath)), "true")

    @inlineCallbacks
    def test_userWhoCannotCommit(self):
        """
        A user whose commits are disabled: refused at the first commit,
        saying why, and nothing is left bound.
        """
        socketPath, config = self.realStone()
        SimulatorControl(socketPath).call({
            "op": "addUser", "user": "Reader", "password": "swordfish",
            "commitsDisabled": True})
        config = configFor("--gci-library", libraryPath(), "--stone",
                           socketPath, "--password-file", self.passwordFile,
                           "--user", "Reader")
        report = yield self.check(config)
        failed = [row for row in report.rows if not row.ok]
        self.assertEqual(len(failed), 1)
        self.assertTrue(failed[0].detail.startswith(
            "session A commits: the success path: refused: this user cannot "
            "commit"), failed[0].detail)
        self.assertTrue(report.rows[-1].ok)
        self.assertEqual((yield self.bound(socketPath)), "false")

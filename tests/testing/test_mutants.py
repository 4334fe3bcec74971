"""
Tests for the template mutation tool (L{mutants}): a mutant is applied to a
copy, never to the checkout, however the run ends; each is judged and
reported; the list stays current with the templates.
"""

import pathlib
import sys

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.mutants import catalog, cli, engine
from gsmcpd.testing.mutants.engine import (
    KILLED,
    NOT_APPLICABLE,
    SURVIVED,
    Mutant,
    NotApplicable,
    Outcome,
    TrialRunner,
    Workspace,
    judge,
    modulesNaming,
    mutatedText,
    score,
    selected,
    summary,
)
from gsmcpd.tools.templates.render import templateNames

TEMPLATE = "| a |\na := limit + 1.\n^a\n"
PAGE = Mutant("page-two-long", "paged", "limit + 1", "limit + 2",
              "a page two rows long")


def fakeCheckout(test):
    """
    A directory shaped like a checkout: one template, a test module, a
    trial directory and a compiled file that a copy leaves behind.
    """
    root = pathlib.Path(test.mktemp())
    templates = root / engine.TEMPLATES
    templates.mkdir(parents=True)
    (templates / "paged.st").write_text(TEMPLATE)
    (root / "gsmcpd" / "__pycache__").mkdir()
    (root / "tests").mkdir()
    (root / "tests" / "test_paged.py").write_text('NAME = "paged"\n')
    (root / "tests" / "test_other.py").write_text("NAME = 'pagedx'\n")
    (root / "_trial_temp").mkdir()
    return root


class MutatedTextTests(SynchronousTestCase):

    def test_applied(self):
        self.assertEqual(mutatedText(TEMPLATE, PAGE),
                         "| a |\na := limit + 2.\n^a\n")

    def test_missingIsNotApplicable(self):
        with self.assertRaises(NotApplicable) as raised:
            mutatedText("^limit", PAGE)
        self.assertEqual(str(raised.exception),
                         "its snippet is not in paged.st")

    def test_ambiguousIsNotApplicable(self):
        with self.assertRaises(NotApplicable) as raised:
            mutatedText(TEMPLATE + TEMPLATE, PAGE)
        self.assertEqual(str(raised.exception),
                         "its snippet is in paged.st 2 times")


class WorkspaceTests(SynchronousTestCase):

    def setUp(self):
        self.root = fakeCheckout(self)
        self.original = self.root / engine.TEMPLATES / "paged.st"

    def test_copyOwnsItsPackageAndLinksTheRest(self):
        with Workspace.copyOf(self.root) as workspace:
            copy = workspace.directory
            self.assertFalse((copy / "gsmcpd").is_symlink())
            self.assertFalse((copy / "gsmcpd" / "__pycache__").exists())
            self.assertEqual((copy / "tests").resolve(),
                             (self.root / "tests").resolve())
            self.assertFalse((copy / "_trial_temp").exists())
        self.assertFalse(copy.exists())

    def test_mutantOnlyInTheCopyWhileTheBlockRuns(self):
        with Workspace.copyOf(self.root) as workspace:
            template = workspace.directory / engine.TEMPLATES / "paged.st"
            with workspace.mutated(PAGE):
                self.assertIn("limit + 2", template.read_text())
                self.assertEqual(self.original.read_text(), TEMPLATE)
            self.assertEqual(template.read_text(), TEMPLATE)

    def test_interruptRestoresAndRemoves(self):
        """
        Ctrl-C inside a mutant's run restores the copy's template and
        removes the copy; the checkout was never written.
        """
        with self.assertRaises(KeyboardInterrupt):
            with Workspace.copyOf(self.root) as workspace:
                template = workspace.directory / engine.TEMPLATES / "paged.st"
                try:
                    with workspace.mutated(PAGE):
                        raise KeyboardInterrupt()
                finally:
                    self.assertEqual(template.read_text(), TEMPLATE)
        self.assertFalse(workspace.directory.exists())
        self.assertEqual(self.original.read_text(), TEMPLATE)

    def test_notApplicableWritesNothing(self):
        stale = Mutant("gone", "paged", "offset", "0", "moved")
        missing = Mutant("nowhere", "absent", "x", "y", "no template")
        with Workspace.copyOf(self.root) as workspace:
            for mutant, reason in ((stale, "its snippet is not in paged.st"),
                                   (missing, "there is no template "
                                    "absent.st")):
                with self.assertRaises(NotApplicable) as raised:
                    with workspace.mutated(mutant):
                        self.fail("applied")
                self.assertEqual(str(raised.exception), reason)
            template = workspace.directory / engine.TEMPLATES / "paged.st"
            self.assertEqual(template.read_text(), TEMPLATE)


class JudgeTests(SynchronousTestCase):
    """
    Each mutant judged by a runner that reads the copy's template.
    """

    def setUp(self):
        self.root = fakeCheckout(self)
        self.runs = []

    def runner(self, directory, modules):
        text = (directory / engine.TEMPLATES / "paged.st").read_text()
        self.runs.append((modules, text))
        return "limit + 2" not in text, "FAILED (failures=1)"

    def judged(self, mutants, modulesOf=lambda template: ["tests.test_paged"]):
        reported = []
        ticks = iter(range(100))
        with Workspace.copyOf(self.root) as workspace:
            outcomes = judge(mutants, workspace, self.runner, modulesOf,
                             reported.append, lambda: next(ticks))
        self.assertEqual(reported, outcomes)
        return outcomes

    def test_verdicts(self):
        survivor = Mutant("same", "paged", "limit + 1", "1 + limit", "same")
        stale = Mutant("gone", "paged", "offset", "0", "moved")
        outcomes = self.judged([PAGE, survivor, stale])
        self.assertEqual([(o.mutant.name, o.verdict) for o in outcomes], [
            ("page-two-long", KILLED), ("same", SURVIVED),
            ("gone", NOT_APPLICABLE)])
        self.assertEqual(outcomes[0].seconds, 1)
        self.assertEqual(self.runs, [
            (["tests.test_paged"], "| a |\na := limit + 2.\n^a\n"),
            (["tests.test_paged"], "| a |\na := 1 + limit.\n^a\n")])

    def test_noTestsIsNotApplicable(self):
        (outcome,) = self.judged([PAGE], lambda template: [])
        self.assertEqual((outcome.verdict, outcome.detail),
                         (NOT_APPLICABLE, "no test module names paged"))
        self.assertEqual(self.runs, [])

    def test_modulesNamingTheTemplate(self):
        tests = self.root / "tests"
        pool = ("tests.test_other", "tests.test_paged")
        self.assertEqual(modulesNaming("paged", pool, tests),
                         ["tests.test_paged"])
        self.assertEqual(
            modulesNaming("paged", pool, tests, extra=("tests.test_other",)),
            list(pool))


class ReportTests(SynchronousTestCase):

    def outcomes(self, *verdicts):
        return [Outcome(Mutant(f"m{i}", "paged", "a", "b", f"why {i}"),
                        verdict, "detail", 2.0)
                for i, verdict in enumerate(verdicts)]

    def test_score(self):
        self.assertEqual(score(self.outcomes(KILLED, KILLED, SURVIVED,
                                             NOT_APPLICABLE, KILLED)), 75)
        self.assertIsNone(score(self.outcomes(NOT_APPLICABLE)))

    def test_summaryNamesSurvivors(self):
        lines, ok = summary(self.outcomes(KILLED, SURVIVED), threshold=50)
        self.assertEqual(lines, [
            "1 killed, 1 survived, 0 not applicable: score 50.0 % (at least "
            "50 % needed)", "survived: m1 (paged.st): why 1"])
        self.assertTrue(ok)
        self.assertFalse(summary(self.outcomes(KILLED, SURVIVED))[1])

    def test_notApplicableFailsTheRun(self):
        lines, ok = summary(self.outcomes(KILLED, NOT_APPLICABLE))
        self.assertIn("NOT APPLICABLE: m1: detail", lines)
        self.assertFalse(ok)

    def test_outcomeLine(self):
        killed, stale = self.outcomes(KILLED, NOT_APPLICABLE)
        self.assertEqual(engine.outcomeLine(killed),
                         "  killed  m0  (2.0 s; detail)")
        self.assertEqual(engine.outcomeLine(stale),
                         "NOT APPLICABLE  m1: detail; update or remove it in "
                         "gsmcpd/testing/mutants/catalog.py")

    def test_selected(self):
        other = Mutant("other", "listed", "a", "b", "why")
        mutants = [PAGE, other]
        self.assertEqual(selected(mutants, []), mutants)
        self.assertEqual(selected(mutants, ["listed"]), [other])
        self.assertEqual(selected(mutants, ["other", "page-two-long"]),
                         mutants)
        self.assertRaises(ValueError, selected, mutants, ["nothing"])


class TrialRunnerTests(SynchronousTestCase):
    """
    The runner runs trial in the directory it is given, stopping at the
    first failure.
    """

    def directoryWith(self, body):
        directory = pathlib.Path(self.mktemp())
        directory.mkdir()
        (directory / "test_probe.py").write_text(
            "from twisted.trial.unittest import SynchronousTestCase\n"
            "class Probe(SynchronousTestCase):\n"
            f"    def test_probe(self):\n        {body}\n")
        return directory

    def test_passes(self):
        passed, detail = TrialRunner(sys.executable)(
            self.directoryWith("pass"), ["test_probe"])
        self.assertTrue(passed)
        self.assertEqual(detail, "PASSED (successes=1)")

    def test_fails(self):
        passed, detail = TrialRunner(sys.executable)(
            self.directoryWith("self.fail('mutant')"), ["test_probe"])
        self.assertFalse(passed)
        self.assertEqual(detail, "FAILED (failures=1)")


class CatalogTests(SynchronousTestCase):
    """
    The project's own list: well formed, every template mutated and
    tested, and every snippet still in its template (a template change
    that moves one updates the list with it).
    """

    def test_everyMutantApplies(self):
        self.assertEqual(
            [(m.name, reason) for m, reason in
             engine.staleMutants(catalog.MUTANTS)], [],
            "run bin/mutate-templates --check, and edit "
            "gsmcpd/testing/mutants/catalog.py")
        self.assertEqual(cli.main(["--check"], write=self.fail), 0)

    def test_wellFormed(self):
        names = [m.name for m in catalog.MUTANTS]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(
            [m.name for m in catalog.MUTANTS
             if m.original == m.replacement or not m.why], [])

    def test_everyTemplateMutatedAndTested(self):
        templates = set(templateNames()) | {"_envelope"}
        self.assertEqual({m.template for m in catalog.MUTANTS}, templates)
        tests = pathlib.Path(engine.ROOT, "tests")
        untested = [t for t in sorted(templates) if not modulesNaming(
            t, catalog.TEST_POOL, tests, catalog.EXTRA_TESTS.get(t, ()))]
        self.assertEqual(untested, [])

    def test_extraTestsInThePool(self):
        self.assertEqual(
            {module for modules in catalog.EXTRA_TESTS.values()
             for module in modules} - set(catalog.TEST_POOL), set())

    def test_atLeastFortyMutants(self):
        self.assertGreaterEqual(len(catalog.MUTANTS), 40)


class MainTests(SynchronousTestCase):

    def test_unknownName(self):
        lines = []
        self.assertEqual(cli.main(["no-such-mutant"], write=lines.append),
                         2)
        self.assertEqual(lines, ["bin/mutate-templates: no mutant or "
                                 "template named no-such-mutant"])

    def test_list(self):
        lines = []
        self.assertEqual(cli.main(["--list", "abort-continues"],
                                     write=lines.append), 0)
        (line,) = lines
        self.assertTrue(line.startswith(
            "abort-continues (abort.st): abort keeps the uncommitted changes"
            "\n    tests: tests.tools.test_tools_session "), line)

    def mainWith(self, runner, *names):
        """
        C{main} on the real list with C{runner} in place of trial: the exit
        status, what it wrote, and the copies it ran in.
        """
        lines, directories = [], []

        def recording(directory, modules):
            directories.append(directory)
            return runner(directory)

        status = cli.main(list(names), write=lines.append, runner=recording)
        return status, lines, directories

    def test_killedAndScored(self):
        def unmutated(directory):
            text = (directory / engine.TEMPLATES / "abort.st").read_text()
            return "abortTransaction" in text, "..."

        status, lines, directories = self.mainWith(
            unmutated, "abort-continues")
        self.assertEqual(status, 0)
        self.assertEqual(lines[0][:27], "  killed  abort-continues  ")
        self.assertEqual(lines[1], "1 killed, 0 survived, 0 not applicable: "
                         "score 100.0 % (at least 95 % needed)")
        self.assertEqual(len(directories), 2)
        self.assertFalse(directories[0].exists())

    def test_baselineMustPass(self):
        status, lines, _ = self.mainWith(
            lambda directory: (False, "FAILED (x)"), "abort-continues")
        self.assertEqual((status, lines), (2, [
            "bin/mutate-templates: the tests fail on the templates as they "
            "are (FAILED (x)); fix that first"]))

    def test_interrupted(self):
        def interrupted(directory):
            raise KeyboardInterrupt()

        status, lines, (directory,) = self.mainWith(interrupted, "abort")
        self.assertEqual((status, lines), (130, [
            "bin/mutate-templates: interrupted; the checkout was not "
            "changed"]))
        self.assertFalse(directory.exists())

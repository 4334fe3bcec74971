"""
Apply each mutant to a copy of the checkout, run the test modules that
name its template there, and judge it: killed when they fail, survived
when they pass, not applicable when its snippet is not in the template
once (the list has fallen behind the template: said loudly, never
skipped).

The checkout is never written: the copy is a temporary directory holding
its own C{gsmcpd} package and links to everything else, which Python finds
first because trial runs there.  Ctrl-C ends the run and removes the copy.
"""

import contextlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

import attr

ROOT = pathlib.Path(__file__).resolve().parents[3]
TEMPLATES = pathlib.PurePosixPath("gsmcpd/tools/templates")
THRESHOLD = 95.0
"""The score, in percent, below which a run fails."""

KILLED, SURVIVED, NOT_APPLICABLE = "killed", "survived", "NOT APPLICABLE"


@attr.s(frozen=True, auto_attribs=True)
class Mutant:
    """
    One mistake: C{original}, found exactly once in C{template}'s C{.st}
    file, becomes C{replacement}.

    @ivar why: the mistake it stands for, in one line.
    """

    name: str
    template: str
    original: str
    replacement: str
    why: str


@attr.s(frozen=True, auto_attribs=True)
class Outcome:
    mutant: Mutant
    verdict: str
    detail: str = ""
    seconds: float = 0.0


class NotApplicable(Exception):
    """
    A mutant's snippet is missing from its template, or ambiguous there.
    """


def mutatedText(text, mutant):
    """
    C{text} (the template) with C{mutant} applied.

    @raise NotApplicable: unless the snippet is there exactly once.
    """
    found = text.count(mutant.original)
    if found != 1:
        raise NotApplicable(
            f"its snippet is not in {mutant.template}.st" if not found else
            f"its snippet is in {mutant.template}.st {found} times")
    return text.replace(mutant.original, mutant.replacement)


def templateText(root, template):
    """
    The text of C{template}'s C{.st} file under C{root}.

    @raise NotApplicable: when there is no such template.
    """
    path = pathlib.Path(root, TEMPLATES, f"{template}.st")
    if not path.exists():
        raise NotApplicable(f"there is no template {template}.st")
    return path.read_text("utf-8")


def staleMutants(mutants, root=ROOT):
    """
    C{(mutant, reason)} for each mutant that no longer applies under
    C{root}.
    """
    stale = []
    for mutant in mutants:
        try:
            mutatedText(templateText(root, mutant.template), mutant)
        except NotApplicable as e:
            stale.append((mutant, str(e)))
    return stale


def modulesNaming(template, pool, testsDirectory, extra=()):
    """
    The modules of C{pool} (dotted names under C{tests}) whose source names
    C{template} as a quoted string, and those of C{extra}, in pool order.
    """
    quoted = re.compile(rf"""["']{re.escape(template)}["']""")
    found = []
    for module in pool:
        relative = pathlib.Path(*module.split(".")[1:]).with_suffix(".py")
        if module in extra or quoted.search(
                (testsDirectory / relative).read_text("utf-8")):
            found.append(module)
    return found


class Workspace:
    """
    A copy of a checkout to mutate: its own C{gsmcpd}, links to the rest.
    """

    def __init__(self, directory):
        self.directory = pathlib.Path(directory)

    @classmethod
    @contextlib.contextmanager
    def copyOf(cls, root):
        """
        A workspace made from C{root}, removed when the block ends however
        it ends.
        """
        directory = pathlib.Path(tempfile.mkdtemp(prefix="gsmcpd-mutants-"))
        try:
            for entry in pathlib.Path(root).resolve().iterdir():
                if entry.name == "gsmcpd":
                    shutil.copytree(entry, directory / entry.name,
                                    ignore=shutil.ignore_patterns(
                                        "__pycache__"))
                elif not entry.name.startswith("_trial_temp"):
                    (directory / entry.name).symlink_to(entry)
            yield cls(directory)
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    @contextlib.contextmanager
    def mutated(self, mutant):
        """
        The workspace with C{mutant} applied for the block's length.

        @raise NotApplicable: when it does not apply (nothing is written).
        """
        original = templateText(self.directory, mutant.template)
        path = self.directory / TEMPLATES / f"{mutant.template}.st"
        path.write_text(mutatedText(original, mutant), "utf-8")
        try:
            yield self
        finally:
            path.write_text(original, "utf-8")


@attr.s(frozen=True, auto_attribs=True)
class TrialRunner:
    """
    Run test modules with trial in a directory, stopping at the first
    failure: C{(passed, trial's last line)}.
    """

    python: str = sys.executable
    timeout: float = 600

    def __call__(self, directory, modules):
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(directory), *filter(None, [os.environ.get("PYTHONPATH")])]))
        try:
            finished = subprocess.run(
                [self.python, "-m", "twisted.trial", "--exitfirst", *modules],
                cwd=directory, env=environment, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {self.timeout:g} s"
        lines = finished.stdout.strip().splitlines()
        return finished.returncode == 0, lines[-1] if lines else ""


def judge(mutants, workspace, runner, modulesOf, report=lambda outcome: None,
          clock=time.monotonic):
    """
    Apply each mutant in turn and run C{modulesOf(template)} on it.

    @param report: called with each L{Outcome} as it is known.
    @return: the outcomes, in order.
    """
    outcomes = []
    for mutant in mutants:
        started = clock()
        modules = modulesOf(mutant.template)
        try:
            if not modules:
                raise NotApplicable(f"no test module names "
                                    f"{mutant.template}")
            with workspace.mutated(mutant):
                passed, detail = runner(workspace.directory, modules)
        except NotApplicable as e:
            outcome = Outcome(mutant, NOT_APPLICABLE, str(e))
        else:
            outcome = Outcome(mutant, SURVIVED if passed else KILLED, detail,
                              clock() - started)
        report(outcome)
        outcomes.append(outcome)
    return outcomes


def score(outcomes):
    """
    The percentage of applicable mutants killed, or L{None} if none was.
    """
    judged = [o for o in outcomes if o.verdict != NOT_APPLICABLE]
    if not judged:
        return None
    return 100.0 * sum(o.verdict == KILLED for o in judged) / len(judged)


def outcomeLine(outcome):
    line = f"{outcome.verdict:>8}  {outcome.mutant.name}"
    if outcome.verdict == NOT_APPLICABLE:
        return (f"{line}: {outcome.detail}; update or remove it in "
                f"gsmcpd/testing/mutants/catalog.py")
    return f"{line}  ({outcome.seconds:.1f} s; {outcome.detail})"


def summary(outcomes, threshold=THRESHOLD):
    """
    C{(lines, ok)}: the score and what holds it down; ok when the score
    reaches C{threshold} and every mutant applied.
    """
    counts = {verdict: sum(o.verdict == verdict for o in outcomes)
              for verdict in (KILLED, SURVIVED, NOT_APPLICABLE)}
    found = score(outcomes)
    lines = [f"{counts[KILLED]} killed, {counts[SURVIVED]} survived, "
             f"{counts[NOT_APPLICABLE]} not applicable: score " +
             ("n/a" if found is None else f"{found:.1f} %") +
             f" (at least {threshold:g} % needed)"]
    lines += [f"survived: {o.mutant.name} ({o.mutant.template}.st): "
              f"{o.mutant.why}" for o in outcomes if o.verdict == SURVIVED]
    lines += [f"NOT APPLICABLE: {o.mutant.name}: {o.detail}"
              for o in outcomes if o.verdict == NOT_APPLICABLE]
    ok = found is not None and found >= threshold and \
        not counts[NOT_APPLICABLE]
    return lines, ok


def selected(mutants, names):
    """
    The mutants C{names} picks (a mutant's name, or a template's for all of
    its mutants), in list order; all of them for no names.

    @raise ValueError: naming what is neither.
    """
    if not names:
        return list(mutants)
    known = {m.name for m in mutants} | {m.template for m in mutants}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"no mutant or template named {', '.join(unknown)}")
    return [m for m in mutants if m.name in names or m.template in names]

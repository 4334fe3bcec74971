"""
C{bin/mutate-templates}: choose mutants, check the list is current, run
the tests on the templates as they are and then on each mutant, and say
the score.
"""

import argparse
import pathlib
import signal

from gsmcpd.testing.mutants.catalog import EXTRA_TESTS, MUTANTS, TEST_POOL
from gsmcpd.testing.mutants.engine import (
    ROOT,
    THRESHOLD,
    TrialRunner,
    Workspace,
    judge,
    modulesNaming,
    outcomeLine,
    selected,
    staleMutants,
    summary,
)


def arguments():
    parser = argparse.ArgumentParser(
        prog="bin/mutate-templates", description="Apply each template "
        "mutant and run the tests that name its template; report which "
        "the tests kill.")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="mutants (or templates) to run; all by default")
    parser.add_argument("--list", action="store_true",
                        help="list the mutants and their test modules")
    parser.add_argument("--check", action="store_true",
                        help="only check that every mutant still applies")
    parser.add_argument("--threshold", type=float, default=THRESHOLD,
                        help="the least score that passes, in percent")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds one mutant's tests may take")
    return parser


def _interrupted(number, frame):
    """
    SIGTERM ends a run as Ctrl-C does, so the copy is removed.
    """
    raise KeyboardInterrupt


def _printed(line):
    print(line, flush=True)


def main(argv=None, root=ROOT, write=_printed, runner=None):
    """
    Run C{bin/mutate-templates} with C{argv}; the exit status.

    @param runner: runs test modules in a directory (by default a
        L{TrialRunner} with the C{--timeout} given).
    """
    options = arguments().parse_args(argv)
    try:
        mutants = selected(MUTANTS, options.names)
    except ValueError as e:
        write(f"bin/mutate-templates: {e}")
        return 2
    tests = pathlib.Path(root, "tests")

    def modulesOf(template):
        return modulesNaming(template, TEST_POOL, tests,
                             EXTRA_TESTS.get(template, ()))

    if options.list:
        for mutant in mutants:
            write(f"{mutant.name} ({mutant.template}.st): {mutant.why}\n"
                  f"    tests: {' '.join(modulesOf(mutant.template))}")
        return 0
    stale = staleMutants(mutants, root)
    for mutant, reason in stale:
        write(f"NOT APPLICABLE: {mutant.name}: {reason}; update or remove it "
              f"in gsmcpd/testing/mutants/catalog.py")
    if options.check:
        return 1 if stale else 0
    terminated = signal.signal(signal.SIGTERM, _interrupted)
    try:
        return _judged(mutants, root, modulesOf, options, write,
                       runner or TrialRunner(timeout=options.timeout))
    except KeyboardInterrupt:
        write("bin/mutate-templates: interrupted; the checkout was not "
              "changed")
        return 130
    finally:
        signal.signal(signal.SIGTERM, terminated)


def _judged(mutants, root, modulesOf, options, write, runner):
    """
    The baseline, then every mutant, on one copy of C{root}: the exit
    status.
    """
    with Workspace.copyOf(root) as workspace:
        everything = sorted({module for m in mutants
                             for module in modulesOf(m.template)},
                            key=TEST_POOL.index)
        passed, detail = runner(workspace.directory, everything)
        if not passed:
            write(f"bin/mutate-templates: the tests fail on the templates as "
                  f"they are ({detail}); fix that first")
            return 2
        outcomes = judge(mutants, workspace, runner, modulesOf,
                         lambda outcome: write(outcomeLine(outcome)))
    lines, ok = summary(outcomes, options.threshold)
    for line in lines:
        write(line)
    return 0 if ok else 1

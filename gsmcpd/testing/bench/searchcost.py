"""
How the simulated stone's cost per search grows with its repository:
C{python -m gsmcpd.testing.bench.searchcost} builds the generated kernel-sized
repository (L{gsmcpd.testing.simulator.kernelrepo}) at several fractions of its
size and times the templates the search tools send, executed by the simulator
in process (no HTTP, no MCP, no C library), printing JSON.

Per size it reports the build, a search that meets a cold index (the first
after a commit: one scan of every method), warm C{find_senders} of common
selectors, and a C{search_method_source} that matches nothing, so it reads
every method's source, and C{find_code}'s first page (its template and
the daemon's parsing and matching).  Growth is judged by the log-log slope of each cost
against the number of methods between the smallest and the largest size:
1 is linear.  C{find_code}'s first page on the largest size is also given
as a ratio to that size's C{search_method_source} scan of every source.
"""

import argparse
import functools
import json
import math
import sys
import time

from gsmcpd.smalltalk.pattern import compilePattern, selectorsOf
from gsmcpd.testing.simulator import gem, kernelrepo, searches
from gsmcpd.testing.simulator.model import CodeModel
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.search import SEARCH_LIMIT
from gsmcpd.tools.structure import FIND_LIMIT, SENDERS_READ, matchedIn
from gsmcpd.tools.templates.render import Template
from gsmcpd.tools.templates.run import MAX_RESULT_BYTES

FRACTIONS = (0.1, 0.5, 1.0)
LINEAR = (0.8, 1.25)
"""The slopes called linear (a measured slope is never exactly 1): below,
sublinear (a fixed cost dominates); above, superlinear."""

SEARCHES = {
    "find_senders_size": ("find_senders", {"selector": "size"}),
    "find_senders_printString": ("find_senders", {"selector": "printString"}),
    "search_method_source_no_hit": (
        "search_method_source", {"pattern": "noSuchTextAnywhere", "dictionaryName": None}),
}


FIND_CODE = {
    "find_code_perform": "`@r perform: `#s with: `@a",
    "find_code_size": "`@r size",
}
"""find_code's first page: a rare selector and a common one (its template
reads the senders' sources, the daemon parses and matches them)."""

FIRST_PAGE_REFERENCE = "search_method_source_no_hit"
"""What find_code's first page on the largest repository is timed against,
in the same run: one scan of every method's source (a ratio, so the
target holds on a slower machine as on a faster one)."""


def findCode(session, pattern):
    """
    What find_code does for C{pattern}'s first page: the template's window
    of senders at a time, and the parsing and matching here, until the
    page is full.
    """
    tree = compilePattern(pattern)
    found, read, total = 0, 0, None
    while (total is None or read < total) and found <= FIND_LIMIT:
        text = Template.named("refactoring_sources").render({
            "selector": max(selectorsOf(tree), key=len), "newSelector": None,
            "global": None, "scopeKind": "all", "scopeName": None,
            "mentions": False, "sendersOffset": read,
            "sendersLimit": SENDERS_READ}, MAX_RESULT_BYTES)
        value = json.loads(gem.answer(session, text))["result"]
        total, read = value["sendersTotal"], read + SENDERS_READ
        found += sum(len(matchedIn(tree, row)) for row in value["senders"])
    return found


def source(template, arguments):
    return Template.named(template).render(
        {"offset": 0, "limit": SEARCH_LIMIT, **arguments}, MAX_RESULT_BYTES)


def timed(work, repeats):
    """
    The median seconds of C{repeats} runs of C{work}.
    """
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


def measureSize(fraction, repeats):
    started = time.perf_counter()
    stone = Stone(repository=kernelrepo.repository(fraction))
    built = time.perf_counter() - started
    session = stone.login("DataCurator", "swordfish")
    code = CodeModel(session)
    started = time.perf_counter()
    index = searches.indexOf(code)
    cold = time.perf_counter() - started
    found = {"fraction": fraction, "build_s": built, "index_s": cold,
             "methods": sum(map(len, index.implementors.values())),
             "classes": len(code.allClasses())}
    for name, (template, arguments) in SEARCHES.items():
        text = source(template, arguments)
        found[f"{name}_s"] = timed(functools.partial(gem.answer, session, text), repeats)
        found[f"{name}_hits"] = (len(index.senders.get(arguments.get("selector"), ()))
                                 if template == "find_senders" else 0)
    for name, pattern in FIND_CODE.items():
        found[f"{name}_s"] = timed(functools.partial(findCode, session, pattern), repeats)
        found[f"{name}_hits"] = findCode(session, pattern)
    return found


def slope(first, last, key):
    """
    The log-log slope of C{key} against the methods count, from C{first}
    to C{last}.
    """
    return (math.log(last[key] / first[key])
            / math.log(last["methods"] / first["methods"]))


def measure(fractions=FRACTIONS, repeats=3):
    """
    Every size's figures, and each cost's growth: its slope and whether
    that is linear.
    """
    sizes = [measureSize(fraction, repeats) for fraction in fractions]
    growth = {}
    for key in ["index_s", *(f"{name}_s" for name in (*SEARCHES, *FIND_CODE))]:
        figure = slope(sizes[0], sizes[-1], key)
        growth[key] = {"slope": figure, "growth": (
            "sublinear" if figure < LINEAR[0] else
            "linear" if figure <= LINEAR[1] else "superlinear")}
    largest = sizes[-1]
    firstPage = {name: largest[f"{name}_s"] / largest[f"{FIRST_PAGE_REFERENCE}_s"]
                 for name in FIND_CODE}
    return {"sizes": sizes, "growth": growth, "firstPage": firstPage}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m gsmcpd.testing.bench.searchcost",
        description="the simulated stone's search cost against its repository's size")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each search per size; the median counts")
    parser.add_argument("--fraction", type=float, action="append",
                        help="a size, as a fraction of the kernel repository "
                             f"(repeatable; default {' '.join(map(str, FRACTIONS))})")
    options = parser.parse_args(argv)
    json.dump(measure(options.fraction or FRACTIONS, options.repeats), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())

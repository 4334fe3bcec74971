"""
What exporting a kernel-sized dictionary as Tonel costs:
C{python -m gsmcpd.testing.bench.tonelexport} builds the generated kernel-sized repository
(L{gsmcpd.testing.simulator.kernelrepo}) and pages C{export_tonel} of
C{Globals} through the real dispatcher and the simulated stone in process
(no HTTP, no C library), then diffs the first page's files unedited,
printing JSON: classes, methods, files, bytes and seconds per page.
"""

import argparse
import json
import sys
import time

from gsmcpd.testing.simulator import kernelrepo
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.tonel import EXPORT_LIMIT
from tests.toolharness import ToolHarness


def _called(harness, name, **arguments):
    answers = []
    harness.call(name, **arguments).addBoth(answers.append)
    result = answers[0]
    if not isinstance(result, dict) or result.get("isError"):
        raise RuntimeError(f"{name} failed: {result}")
    return result["structuredContent"]


def measure(fraction=1.0, limit=EXPORT_LIMIT):
    """Export Globals page by page; the figures."""
    started = time.perf_counter()
    harness = ToolHarness(("tonel",), Stone(
        repository=kernelrepo.repository(fraction)))
    built = time.perf_counter() - started
    pages, files, offset, first = [], [], 0, None
    started = time.perf_counter()
    while offset is not None:
        begun = time.perf_counter()
        found = _called(harness, "export_tonel", dictionary="Globals",
                        offset=offset, limit=limit)
        pages.append(time.perf_counter() - begun)
        files.extend(found["files"])
        first = first or found["files"]
        offset = found["nextOffset"]
    exported = time.perf_counter() - started
    begun = time.perf_counter()
    changes = _called(harness, "diff_tonel", files=first)["changes"]
    diffed = time.perf_counter() - begun
    return {
        "fraction": fraction, "build_s": built, "classes": found["total"],
        "files": len(files), "methods": sum(
            each["content"].count("\n{ #category : ") for each in files),
        "bytes": sum(len(each["content"].encode()) for each in files),
        "pages": len(pages), "export_s": exported,
        "page_median_s": sorted(pages)[len(pages) // 2],
        "page_max_s": max(pages), "diff_files": len(first),
        "files_per_page": len(files) / len(pages),
        "diff_s": diffed, "diff_changes": len(changes)}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m gsmcpd.testing.bench.tonelexport",
        description="the cost of exporting a kernel-sized dictionary as Tonel")
    parser.add_argument("--fraction", type=float, default=1.0,
                        help="the repository's size, as a fraction of the full one")
    parser.add_argument("--limit", type=int, default=EXPORT_LIMIT,
                        help="classes per page")
    options = parser.parse_args(argv)
    json.dump(measure(options.fraction, options.limit), sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

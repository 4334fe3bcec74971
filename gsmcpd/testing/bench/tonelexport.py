"""
What exporting a kernel-sized dictionary as Tonel costs:
C{python -m gsmcpd.testing.bench.tonelexport} builds the generated kernel-sized repository
(L{gsmcpd.testing.simulator.kernelrepo}) and pages C{export_tonel} of
C{Globals} through the tonel toolset and the simulated stone in process
(no dispatcher, no HTTP, no C library), each page's result encoded as
JSON as a client would get it, then diffs the first page's files
unedited, printing JSON: classes, methods, files, bytes and seconds
(CPU seconds of this one process: all of it runs in one thread, and a
busy machine does not inflate them).

The reference, measured in the same run, is the simulated stone's own
time answering the same templates (their Smalltalk replayed against the
same session): C{export_over_stone} and C{diff_over_stone} are what the
daemon's side (the envelope's JSON, writing and parsing Tonel, diffing)
costs on top of the stone, as a ratio, whatever the machine's speed.
"""

import argparse
import json
import sys
import time

from twisted.internet.defer import Deferred, succeed

from gsmcpd.testing.simulator import gem, kernelrepo
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.base import ToolCall
from gsmcpd.tools.tonel import EXPORT_LIMIT, TonelToolset


class RecordingGem:
    """
    A session of an in-process simulated stone (the templates' Smalltalk
    goes straight to the simulator's gem), keeping what it was sent so
    the stone's share can be timed alone.
    """

    def __init__(self, stone: Stone) -> None:
        self.session = stone.login("DataCurator", "swordfish")
        self.sources: list[str] = []

    def execute(self, source: str, maxBytes: int) -> Deferred:
        self.sources.append(source)
        return succeed(gem.answer(self.session, source)[:maxBytes])

    def stoneSeconds(self, sources: list[str]) -> float:
        """How long the stone takes to answer C{sources} again."""
        started = time.process_time()
        for source in sources:
            gem.answer(self.session, source)
        return time.process_time() - started


def called(handler, stoneGem: RecordingGem, arguments: dict) -> dict:
    """
    A tool's structured result, encoded and decoded as JSON as a client
    gets it (every handler answers at once: the gem answers at once).
    """
    answers: list = []
    handler(ToolCall(stoneGem), arguments).addBoth(answers.append)
    result = answers[0]
    if not hasattr(result, "structured"):
        raise RuntimeError(f"{handler.__name__} failed: {result}")
    return json.loads(json.dumps(result.structured))


def measure(fraction: float = 1.0, limit: int = EXPORT_LIMIT) -> dict:
    """Export Globals page by page, then diff the first page; the
    figures."""
    started = time.process_time()
    stoneGem = RecordingGem(Stone(repository=kernelrepo.repository(fraction)))
    built = time.process_time() - started
    tonel = TonelToolset()
    pages: list[float] = []
    files: list[dict] = []
    offset: int | None = 0
    first: list[dict] | None = None
    started = time.process_time()
    while offset is not None:
        begun = time.process_time()
        found = called(tonel.exportTonel, stoneGem, {
            "dictionary": "Globals", "offset": offset, "limit": limit})
        pages.append(time.process_time() - begun)
        files.extend(found["files"])
        first = first or found["files"]
        offset = found["nextOffset"]
    exported = time.process_time() - started
    exportSources = list(stoneGem.sources)
    begun = time.process_time()
    changes = called(tonel.diffTonel, stoneGem, {"files": first})["changes"]
    diffed = time.process_time() - begun
    diffSources = stoneGem.sources[len(exportSources):]
    exportStone = stoneGem.stoneSeconds(exportSources)
    diffStone = stoneGem.stoneSeconds(diffSources)
    return {
        "fraction": fraction, "build_s": built, "classes": found["total"],
        "files": len(files), "methods": sum(
            each["content"].count("\n{ #category : ") for each in files),
        "bytes": sum(len(each["content"].encode()) for each in files),
        "pages": len(pages), "export_s": exported,
        "page_median_s": sorted(pages)[len(pages) // 2],
        "page_max_s": max(pages), "diff_files": len(first or []),
        "files_per_page": len(files) / len(pages),
        "diff_s": diffed, "diff_changes": len(changes),
        "export_stone_s": exportStone, "diff_stone_s": diffStone,
        "export_over_stone": exported / exportStone,
        "diff_over_stone": diffed / diffStone}


def main(argv: list[str] | None = None) -> int:
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

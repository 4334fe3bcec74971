"""
Tests for the benchmark suite's own arithmetic: percentiles, wrk's
summary, ratios, targets and the text report; and brief runs of the
measures that need only the simulated stone (no daemon).
"""

import asyncio
import ctypes
import io
import itertools
import json
import os
import sys

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.gci.library import GciLibrary
from gsmcpd.testing.bench import (
    kernelshape,
    nullstone,
    processes,
    report,
    run,
    searchcost,
    spy,
    stone,
    tonelexport,
)
from gsmcpd.testing.bench.run import figures
from gsmcpd.testing.bench.stats import (
    fromWrk,
    medianRound,
    percentile,
    ratio,
    summarize,
)
from gsmcpd.testing.bench.targets import TARGETS, Target, describe, evaluate
from gsmcpd.testing.simulator import kernelrepo


class PercentileTests(SynchronousTestCase):

    def test_interpolates(self):
        """
        Between two ranks the percentile is interpolated, not rounded up to
        the larger sample.
        """
        self.assertEqual(percentile([1, 2, 3, 4], 50), 2.5)
        self.assertAlmostEqual(percentile(list(range(1, 101)), 99), 99.01)

    def test_ends(self):
        self.assertEqual(percentile([5, 1, 3], 0), 1)
        self.assertEqual(percentile([5, 1, 3], 100), 5)
        self.assertEqual(percentile([7], 99), 7)

    def test_empty(self):
        self.assertRaises(ValueError, percentile, [], 50)

    def test_summarizeInMilliseconds(self):
        summary = summarize([0.001, 0.002, 0.003])
        self.assertEqual(summary["count"], 3)
        self.assertAlmostEqual(summary["p50_ms"], 2.0)
        self.assertAlmostEqual(summary["mean_ms"], 2.0)
        self.assertAlmostEqual(summary["max_ms"], 3.0)


def wrkLine(**changes):
    raw = {"requests": 5000, "duration_us": 2_000_000, "errors": 0,
           "non2xx": 0, "latency_us": {"mean": 1500.0, "max": 9000,
                                       "50": 1400, "75": 1600, "90": 2000,
                                       "99": 4000, "99.9": 8000}}
    raw.update(changes)
    return raw


class WrkTests(SynchronousTestCase):

    def test_rateAndMilliseconds(self):
        summary = fromWrk(wrkLine())
        self.assertEqual(summary["rps"], 2500.0)
        self.assertEqual(summary["p50_ms"], 1.4)
        self.assertEqual(summary["p99_ms"], 4.0)
        self.assertEqual(summary["p99.9_ms"], 8.0)

    def test_failuresAreNotThroughput(self):
        """
        A run with socket errors or non-2xx answers is refused: fast errors
        would pass for speed.
        """
        self.assertRaises(ValueError, fromWrk, wrkLine(errors=1))
        self.assertRaises(ValueError, fromWrk, wrkLine(non2xx=3))

    def test_medianRound(self):
        merged = medianRound([{"rps": 10.0, "p99_ms": 9.0},
                              {"rps": 30.0, "p99_ms": 1.0},
                              {"rps": 20.0, "p99_ms": 5.0}])
        self.assertEqual(merged, {"rps": 20.0, "p99_ms": 5.0, "rounds": 3})

    def test_ratio(self):
        self.assertEqual(ratio(3.0, 4.0), 0.75)
        self.assertIsNone(ratio(3.0, 0))
        self.assertIsNone(ratio(None, 4.0))


class TargetTests(SynchronousTestCase):

    def test_atLeast(self):
        target = Target("t", "a.b", 0.6, atLeast=True)
        self.assertTrue(target.check({"a.b": 0.6})["met"])
        self.assertFalse(target.check({"a.b": 0.59})["met"])

    def test_atMost(self):
        target = Target("t", "a.b", 2.0, atLeast=False)
        self.assertTrue(target.check({"a.b": 2.0})["met"])
        self.assertFalse(target.check({"a.b": 2.01})["met"])

    def test_notMeasured(self):
        outcome = Target("t", "a.b", 1.0, atLeast=True).check({})
        self.assertIsNone(outcome["met"])
        self.assertIn("not measured", describe(outcome))

    def test_describe(self):
        outcome = Target("RSS", "x", 150.0, atLeast=False,
                         unit="MB").check({"x": 96.5})
        self.assertEqual(describe(outcome).strip(),
                         "met  RSS: 96.50MB (target <= 150MB)")

    def test_everyTargetHasAFigure(self):
        """
        Every target reads a figure that L{figures} computes.
        """
        computed = figures(sampleResults())
        for outcome in evaluate(computed):
            self.assertIsNotNone(outcome["figure"], outcome["name"])
        self.assertEqual(len(evaluate(computed)), len(TARGETS))


def load(rps, p50, p99, cpu, stoneCpu=0.0):
    return {"requests": int(rps * 2), "rps": rps, "mean_ms": p50,
            "p50_ms": p50, "p90_ms": p99 / 2, "p99_ms": p99,
            "p99.9_ms": p99 * 2, "max_ms": p99 * 3,
            "cpu_ms_per_request": cpu, "stone_cpu_ms_per_request": stoneCpu,
            "rounds": 3}


def latency(p99, count=100):
    return {"count": count, "mean_ms": p99 / 3, "p50_ms": p99 / 4,
            "p90_ms": p99 / 2, "p99_ms": p99, "max_ms": p99 * 2}


def sampleResults():
    return {
        "throughput": {
            "echo_ping": load(6000.0, 1.5, 4.0, 0.15),
            "gsmcpd_ping": load(3000.0, 3.0, 8.0, 0.30),
            "gsmcpd_ping_access_log": load(2250.0, 4.0, 10.0, 0.36),
            "sdk_tools_call": load(1000.0, 9.0, 30.0, 1.0),
            "gsmcpd_tools_call": load(500.0, 18.0, 45.0, 1.5, 2.0),
            "null_tools_call": load(3500.0, 2.5, 6.0, 0.3),
        },
        "daemon": {
            "added": {"ping": latency(2.0), "tools_call": latency(3.2)},
            "session_open": {"null": {"initialize": latency(4.0),
                                      "first_result": latency(8.0)},
                             "simulated": {"initialize": latency(8.0),
                                           "first_result": latency(16.0)}},
            "surface": {"wire_bytes": 30000, "tools_list_bytes": 24000,
                        "instructions_bytes": 2000, "tools": 30,
                        "incomplete_tools": ["x"],
                        "bytes_by_part": {"description": 5000}},
        },
        "responsiveness": {
            "idle": {"ping": latency(2.0), "tools_call": latency(4.0)},
            "blocked": {"ping": latency(3.0), "tools_call": latency(10.0)},
            "blocked_calls": {"sessions": 50, "code": "x",
                              "duration": latency(5000.0, 50)},
            "samples_ms": {"idle ping": [1.0, 2.0]},
        },
        "stone": {"http_one_at_a_time": latency(6.0),
                  "direct_one_at_a_time": latency(2.0),
                  "direct_rps": 550.0, "direct_sessions": 10},
        "capacity": {
            "sessions": 1000, "open_seconds": 3.0,
            "empty": {"rss_mb": 58.0, "threads": 1},
            "idle_sessions": {"rss_mb": 82.0, "threads": 1001},
            "with_streams": {"rss_mb": 97.0, "threads": 1001},
            "kb_per_idle_session": 24.6, "kb_per_stream": 15.4,
            "ping_empty": latency(5.0), "ping_holding": latency(6.0),
            "samples_ms": {"ping, no sessions": [1.0]},
        },
        "flood": {
            "attempts": 3000, "seconds": 2.5,
            "outcomes": {"task": 4, "shareCap": 2996},
            "empty": {"rss_mb": 60.0, "threads": 3},
            "flooded": {"rss_mb": 63.5, "threads": 4},
            "rss_growth_mb": 3.5, "other": {"answer": "7", "ms": 9.0},
        },
        "search": {
            "sizes": [searchSize(0.1, 6000, 0.2), searchSize(1.0, 60000, 2.0)],
            "growth": {key: {"slope": 1.0, "growth": "linear"} for key in (
                "index_s", "find_senders_size_s", "find_senders_printString_s",
                "search_method_source_no_hit_s", "find_code_perform_s",
                "find_code_size_s")},
            "firstPage": {"find_code_perform": 0.2, "find_code_size": 0.8},
        },
        "tonel": {
            "fraction": 0.5, "build_s": 9.0, "classes": 750,
            "files": 760, "methods": 30000, "bytes": 9_700_000,
            "pages": 8, "export_s": 60.0, "page_median_s": 7.0,
            "page_max_s": 12.0, "diff_files": 101, "files_per_page": 95.0,
            "diff_s": 8.0, "diff_changes": 0, "export_stone_s": 50.0,
            "diff_stone_s": 5.0, "export_over_stone": 1.2,
            "diff_over_stone": 1.6},
    }


def searchSize(fraction, methods, seconds):
    return {"fraction": fraction, "classes": methods // 40, "methods": methods,
            "build_s": seconds * 2, "index_s": seconds,
            "find_senders_size_s": seconds, "find_senders_size_hits": methods // 5,
            "find_senders_printString_s": seconds,
            "find_senders_printString_hits": methods // 5,
            "search_method_source_no_hit_s": seconds * 5,
            "search_method_source_no_hit_hits": 0,
            "find_code_perform_s": seconds, "find_code_perform_hits": 1,
            "find_code_size_s": seconds, "find_code_size_hits": 51}


class FigureTests(SynchronousTestCase):

    def test_findCodeFirstPage(self):
        """
        find_code's first page on the largest repository is a figure, a
        ratio to the scan of every source there, checked by a target.
        """
        computed = figures(sampleResults())
        self.assertEqual(computed["search.find_code_size.first_page"], 0.8)
        checked = {each["name"]: each["met"] for each in evaluate(computed)
                   if "first page" in each["name"] and "vs" in each["name"]}
        self.assertEqual(list(checked.values()), [True, True])

    def test_ratiosPointTheRightWay(self):
        """
        Throughput ratios are ours over the reference's; latency ratios are
        blocked (or ours) over idle (or the reference's).
        """
        computed = figures(sampleResults())
        self.assertEqual(computed["ping.throughput"], 0.5)
        self.assertEqual(computed["ping.p99"], 2.0)
        self.assertEqual(computed["ping.cpu_per_request"], 2.0)
        self.assertEqual(computed["tools_call.throughput"], 0.5)
        self.assertEqual(computed["tools_call.p99"], 1.5)
        self.assertEqual(computed["blocked.ping_p99"], 1.5)
        self.assertEqual(computed["blocked.tools_call_p99"], 2.5)
        self.assertEqual(computed["capacity.rss_mb"], 97.0)
        self.assertAlmostEqual(computed["stone.share_p50"], 1 / 3)

    def test_accessLogCost(self):
        """
        The access log's cost is the share of the shipped daemon's (access
        log off) throughput that C{--access-log} takes away, and the CPU
        per ping it adds.
        """
        computed = figures(sampleResults())
        self.assertAlmostEqual(computed["access_log.cost"], 0.25)
        self.assertAlmostEqual(computed["access_log.cpu_per_request"], 1.2)
        self.assertAlmostEqual(computed["ping.throughput_access_log"], 0.375)


class ReportTests(SynchronousTestCase):

    def document(self, loadBefore=0.2):
        results = sampleResults()
        return report.build(
            {"mode": "quick", "cpus": 2, "load_before": loadBefore,
             "started": "now", "plan": {"connections": 10}},
            results, figures(results), 70.0)

    def test_textNamesTheReferences(self):
        """
        Each ratio is printed with the two numbers it divides.
        """
        text = report.text(self.document())
        self.assertIn("0.50x  ping throughput / bare twisted.web echo  "
                      "(3,000.00 req/s vs 6,000.00 req/s)", text)
        self.assertIn("1.50x  tools/call p99 / SDK p99  (45.00 ms vs "
                      "30.00 ms)", text)
        self.assertIn("NOT MET  ping throughput vs bare twisted.web echo",
                      text)
        self.assertIn("25.00%  of ping throughput goes to the access log "
                      "when it is on", text)
        self.assertIn("1.20x  daemon CPU per ping with --access-log / "
                      "without  (0.36 CPU ms vs 0.30 CPU ms)", text)
        self.assertNotIn("WARNING", text)

    def test_flood(self):
        """
        The flood's outcomes, the daemon's memory before and after, and the
        other client's answer; its target reads the RSS after.
        """
        document = self.document()
        text = report.text(document)
        self.assertIn("Flood (3,000 task attempts on one handle in 2.5 s: "
                      "2,996 shareCap, 4 task):", text)
        self.assertIn("daemon RSS 60.00 MB empty, 63.50 MB after "
                      "(+3.50 MB)", text)
        self.assertIn("another client's 3 + 4: 7 in 9.00 ms", text)
        self.assertEqual(document["ratios"]["flood.rss_mb"], 63.5)

    def test_searchCost(self):
        """
        The search cost at each repository size, and each cost's growth.
        """
        text = report.text(self.document())
        self.assertIn("100%: 1,500 classes, 60,000 methods: built 4.00, index 2.00, "
                      "find_senders size (12,000 senders) 2.00", text)
        self.assertIn("index: slope 1.00 against the methods count, linear", text)
        self.assertIn("find_code_size first page: 0.80x the scan of every "
                      "source", text)

    def test_tonelExport(self):
        """
        The Tonel export's size and CPU seconds, and the daemon's side as
        a ratio to the simulated stone's share; its targets read those.
        """
        document = self.document()
        text = report.text(document)
        self.assertIn("Tonel export of a generated kernel's Globals (50%: "
                      "750 classes, 30,000 methods, 9,700,000 bytes in 8 "
                      "pages; CPU seconds, in process):", text)
        self.assertIn("export 60.00 (page median 7.00, max 12.00), the "
                      "stone's share 50.00: 1.20x", text)
        self.assertIn("diff_tonel of the first page (101 files, 0 changes) "
                      "8.00, the stone's share 5.00: 1.60x", text)
        verdicts = {each["name"].split(":")[0]: each["met"]
                    for each in document["targets"]}
        self.assertEqual(
            (verdicts["Tonel export of a kernel-sized dictionary"],
             verdicts["diff_tonel of the export's first page"]),
            (True, True))

    def test_busyMachine(self):
        self.assertIn("WARNING: the machine was busy",
                      report.text(self.document(loadBefore=3.5)))

    def test_score(self):
        """
        A target's score is 1 or more exactly when it is met, whichever
        way it points.
        """
        for outcome in self.document()["targets"]:
            self.assertEqual(report._score(outcome) >= 1, outcome["met"],
                             outcome["name"])


class DaemonCommandTests(SynchronousTestCase):
    """
    The bench starts gsmcpd as an operator would: plain C{twistd}, with
    the daemon's own options and nothing patched.
    """

    def argv(self, **kwargs):
        return processes.gsmcpd(self.mktemp(), **kwargs)._argv

    def test_plainTwistd(self):
        argv = self.argv()
        self.assertEqual(argv[:len(processes.twistd())], processes.twistd())
        rest = argv[len(processes.twistd()):]
        self.assertEqual(rest[:4], ["--nodaemon", "--pidfile=", "gsmcp",
                                    "--simulated"])
        self.assertNotIn("bench.daemon", " ".join(argv))
        self.assertEqual(rest[rest.index("--max-sessions") + 1], "none")

    def test_loopbackPort(self):
        server = processes.gsmcpd(self.mktemp())
        argv = server._argv
        self.assertEqual(argv[argv.index("--port") + 1],
                         f"tcp:{server.port}:interface=127.0.0.1")

    def test_accessLogOnlyWhenAsked(self):
        """
        The shipped default (no access log) is what the bench measures;
        C{--access-log} is passed only for the comparison.
        """
        self.assertNotIn("--access-log", self.argv())
        self.assertIn("--access-log", self.argv(accessLog=True))

    def test_extra(self):
        argv = self.argv(extra=("--idle-timeout", "3600"))
        self.assertEqual(argv[-2:], ["--idle-timeout", "3600"])


class ProfileSummaryTests(SynchronousTestCase):
    """
    C{--profile}'s summary of py-spy's collapsed stacks.
    """

    FOLDED = [
        "thread (0x1);run (twisted/base.py:10);doRead (tcp.py:5) 6\n",
        "thread (0x1);run (twisted/base.py:12);dumps (json.py:3) 2\n",
        "thread (0x2);work (pool.py:7);fetch (gci.py:9) 2\n",
        "garbage\n",
    ]

    def test_parse(self):
        stacks = list(spy.parseFolded(self.FOLDED))
        self.assertEqual(len(stacks), 3)
        self.assertEqual(stacks[0], (["thread (0x1)",
                                      "run (twisted/base.py:10)",
                                      "doRead (tcp.py:5)"], 6))

    def test_summary(self):
        """
        Shares are of all samples; a function is counted once per stack
        whatever its line, by thread, on top and anywhere.
        """
        text = spy.summarize(spy.parseFolded(self.FOLDED))
        self.assertIn("10 samples", text)
        self.assertIn(" 80.0%  thread (0x1)", text)
        self.assertIn(" 60.0%  doRead (tcp.py)", text)
        self.assertIn(" 80.0%  run (twisted/base.py)", text)

    def test_noSamples(self):
        self.assertEqual(spy.summarize([]), "no samples\n")


class DaemonCostTests(SynchronousTestCase):
    """
    The null stone's figures: the daemon's own cost against the SDK
    server's, what a call adds to a ping, and what an agent reads.
    """

    def test_nullStoneRatios(self):
        computed = figures(sampleResults())
        self.assertEqual(computed["null.tools_call.throughput"], 3.5)
        self.assertAlmostEqual(computed["null.tools_call.cpu_per_request"],
                               0.3)
        self.assertAlmostEqual(computed["null.added_p50_ms"], 0.3)

    def test_surface(self):
        """
        The tools and the instructions are counted together, in KB of
        1,000 bytes, and a tool lacking a part is counted apart.
        """
        computed = figures(sampleResults())
        self.assertEqual(computed["surface.kb"], 26.0)
        self.assertEqual(computed["surface.incomplete_tools"], 1)

    def test_nullStoneOptions(self):
        """
        The null stone is served through the daemon's ordinary options; the
        bench passes them instead of C{--simulated}.
        """
        argv = processes.gsmcpd(self.mktemp(), stone=(
            "--gci-library", "lib.so"))._argv
        self.assertNotIn("--simulated", argv)
        self.assertEqual(argv[argv.index("--gci-library") + 1], "lib.so")

    def test_nullStoneExportsWhatTheDaemonBinds(self):
        """
        The null stone exports every function the daemon's binding sets a
        prototype for, so a daemon serving it starts.
        """
        directory = self.mktemp()
        os.makedirs(directory)
        path = nullstone.build(directory)
        GciLibrary(ctypes.CDLL(path), path)


class SearchCostTests(SynchronousTestCase):

    def test_slope(self):
        """
        The log-log slope of a cost against the methods count: 1 when the
        cost grows as the repository does.
        """
        small, large = {"methods": 100, "x": 1.0}, {"methods": 1000, "x": 10.0}
        self.assertAlmostEqual(searchcost.slope(small, large, "x"), 1.0)
        self.assertAlmostEqual(searchcost.slope(small, dict(large, x=100.0), "x"), 2.0)

    def test_smallRepository(self):
        """
        Every search runs its template on the simulated stone at a small
        size and finds what the index says.
        """
        measured = searchcost.measure((0.06, 0.08), repeats=1)
        small, larger = measured["sizes"]
        self.assertLess(small["methods"], larger["methods"])
        self.assertGreater(small["find_senders_size_hits"], 0)
        self.assertEqual(set(measured["growth"]), {
            "index_s", "find_senders_size_s", "find_senders_printString_s",
            "search_method_source_no_hit_s", "find_code_perform_s",
            "find_code_size_s"})
        self.assertEqual(measured["firstPage"]["find_code_size"],
                         larger["find_code_size_s"]
                         / larger["search_method_source_no_hit_s"])


class StoneTests(SynchronousTestCase):
    """
    The simulated stone's own cost, measured briefly on a stone of its own.
    """

    def test_measures(self):
        """
        A short run measures calls on one session and on several at once:
        never an empty result passing for a figure.
        """
        latencies, rate = stone.measure("3 + 4", 0.2, 2)
        self.assertGreater(len(latencies), 0)
        self.assertGreater(min(latencies), 0)
        self.assertGreater(rate, 0)

    def test_aFailedSessionFailsTheRun(self):
        """
        A session that fails before measuring fails the run with its error,
        and every session logged in is logged out (a leaked login would
        refuse the next run's): the others are not left waiting for it.
        """
        class Library:
            def __init__(self):
                self.handles = itertools.count(1)
                self.loggedOut = []

            def login(self, *args):
                return next(self.handles), None

            def resolveSymbol(self, handle, name):
                if handle == 2:
                    raise ValueError("no Utf8")
                return 1

            def logout(self, handle):
                self.loggedOut.append(handle)

        library = Library()
        self.assertRaises(ValueError, stone._run, library, "nrs", b"3", 0.1, 2)
        self.assertEqual(sorted(library.loggedOut), [1, 2])


class KernelShapeTests(SynchronousTestCase):

    def test_printed(self):
        """
        C{python -m gsmcpd.testing.bench.kernelshape} prints the repository's
        figures beside the measured ones, as JSON.
        """
        out = io.StringIO()
        self.patch(sys, "stdout", out)
        self.assertEqual(kernelshape.main(["--fraction", "0.06"]), 0)
        printed = json.loads(out.getvalue())
        self.assertEqual(printed["real"], kernelrepo.REAL)
        self.assertGreater(printed["repository"]["methods"], 300)
        self.assertEqual(printed["repository"]["namedGenerated"], 0)


class TonelExportTests(SynchronousTestCase):

    def test_smallRepository(self):
        """
        C{python -m gsmcpd.testing.bench.tonelexport} pages a kernel-shaped dictionary's
        export through the tonel toolset, and its first page diffs as no
        change.
        """
        out = io.StringIO()
        self.patch(sys, "stdout", out)
        self.assertEqual(tonelexport.main(["--fraction", "0.02",
                                           "--limit", "20"]), 0)
        printed = json.loads(out.getvalue())
        self.assertGreater(printed["methods"], 100)
        self.assertEqual(printed["pages"], -(-printed["classes"] // 20))
        self.assertEqual(printed["diff_changes"], 0)
        self.assertGreater(printed["export_stone_s"], 0)
        self.assertAlmostEqual(printed["export_over_stone"],
                               printed["export_s"] / printed["export_stone_s"])

    def test_benchRunsIt(self):
        """
        The bench's run measures the export in a process of its own, at
        its plan's size, and its ratios are the report's figures.
        """
        ran = []

        async def inProcess(module, *arguments):
            ran.append((module, *arguments))
            return {"export_over_stone": 1.2}

        self.patch(run, "inProcess", inProcess)
        self.patch(run, "progress", lambda message: None)
        found = asyncio.run(run.tonelExport(run.QUICK))
        self.assertEqual(ran, [("gsmcpd.testing.bench.tonelexport",
                                "--fraction", "0.1")])
        self.assertEqual(found, {"export_over_stone": 1.2})
        self.assertEqual(run.FULL.tonelFraction, 0.5)
        computed = figures(sampleResults())
        self.assertEqual((computed["tonel.export_over_stone"],
                          computed["tonel.diff_over_stone"]), (1.2, 1.6))

"""
C{python -m gsmcpd.testing.bench}: start everything, measure, stop everything,
report.
"""

import argparse
import asyncio
import json
import os
import platform
import shutil
import sys
import tempfile
import time

import attr

from gsmcpd.testing.bench import (
    client,
    flood,
    nullstone,
    processes,
    report,
    spy,
    stone,
    wrk,
)
from gsmcpd.testing.bench.stats import medianRound, ratio, summarize

PING = client.rpc("ping")
SIMPLE_CODE = "3 + 4"
BLOCKING_CODE = "(Delay forSeconds: 5) wait"
OUT = os.path.join("gsmcpd", "testing", "bench", "out")
"""Where reports go by default, relative to the checkout bin/bench runs in
(ignored by git)."""


@attr.s(frozen=True, auto_attribs=True)
class Plan:
    """
    How long and how hard each measurement runs.

    @ivar rounds: how many times each throughput load runs, interleaved
        with its reference's; the report takes the median.
    @ivar windows: how many times the responsiveness probes run with
        nothing blocked and then in a 5-second blocked window, alternately.
    """

    name: str
    wrkSeconds: int
    rounds: int
    connections: int = 10
    warmupSeconds: int = 1
    probeRate: float = 100.0
    probeSeconds: float = 3.5
    windows: int = 1
    blockedSessions: int = 50
    heldSessions: int = 1000
    stoneSeconds: float = 2.0
    sessionOpens: int = 20
    searchFractions: tuple = (0.1, 0.5)
    searchRepeats: int = 1
    tonelFraction: float = 0.1
    floodAttempts: int = 3000


QUICK = Plan("quick", wrkSeconds=2, rounds=3, windows=2)
FULL = Plan("full", wrkSeconds=10, rounds=5, windows=5, stoneSeconds=5.0,
            sessionOpens=50, searchFractions=(0.1, 0.5, 1.0), searchRepeats=3,
            tonelFraction=0.5)


def progress(text):
    print(f"bench: {text}", file=sys.stderr, flush=True)


async def load(plan, server, body, sessions, seconds):
    """
    One wrk run, with the CPU the server (and its stone) spent per request:
    a cost that holds better than throughput when others share the machine.
    """
    before = server.cpu()
    result = await wrk.run(server.port, body, seconds, plan.connections,
                           sessions)
    after = server.cpu()
    result["cpu_ms_per_request"] = (after[0] - before[0]) * 1e3 / \
        result["requests"]
    result["stone_cpu_ms_per_request"] = (after[1] - before[1]) * 1e3 / \
        result["requests"]
    return result


async def throughput(plan, echo, sdk, daemon, logged, null, profileTo):
    """
    wrk against each server in turn, in rounds, so that whatever else the
    machine does falls on references and gsmcpd alike.  C{daemon} runs as
    shipped (no access log); C{logged} is the same with C{--access-log};
    C{null} serves the null stone, so its calls cost the daemon alone.
    """
    gsmcpdSessions = await client.initializeMany(daemon.port,
                                                 plan.connections)
    loggedSessions = await client.initializeMany(logged.port,
                                                 plan.connections)
    nullSessions = await client.initializeMany(null.port, plan.connections)
    tool = client.toolCall("execute_code", {"code": SIMPLE_CODE})
    loads = {
        "echo_ping": (echo, PING, ()),
        "gsmcpd_ping": (daemon, PING, gsmcpdSessions),
        "gsmcpd_ping_access_log": (logged, PING, loggedSessions),
        "sdk_tools_call": (sdk, client.toolCall("add", {"a": 3, "b": 4}),
                           ()),
        "gsmcpd_tools_call": (daemon, tool, gsmcpdSessions),
        "null_tools_call": (null, tool, nullSessions),
    }
    rounds = {name: [] for name in loads}
    for server, body, sessions in loads.values():
        await wrk.run(server.port, body, plan.warmupSeconds,
                      plan.connections, sessions)
    for n in range(plan.rounds):
        for name, (server, body, sessions) in loads.items():
            progress(f"throughput round {n + 1}/{plan.rounds}: {name}")
            samplers = []
            if profileTo and n == 0 and server in (daemon, null):
                samplers = [spy.record(pid, plan.wrkSeconds, os.path.join(
                    profileTo, f"profile-{name}-{what}"))
                    for what, pid in (("daemon", server.pid), *(
                        ("stone", child)
                        for child in processes.children(server.pid)))]
            rounds[name].append(await load(plan, server, body, sessions,
                                           plan.wrkSeconds))
            for sampler in samplers:
                sampler.wait()
    await client.delete(daemon.port, gsmcpdSessions)
    await client.delete(logged.port, loggedSessions)
    await client.delete(null.port, nullSessions)
    return {name: medianRound(each) for name, each in rounds.items()}


async def probes(plan, port, pingSession, toolSession):
    """
    A paced C{ping} probe and a paced C{tools/call} probe, side by side, on
    sessions of their own.
    """
    pinger = await client.Connection.open(port)
    caller = await client.Connection.open(port)
    tool = client.toolCall("execute_code", {"code": SIMPLE_CODE})
    try:
        with client.collectorOff():
            return await asyncio.gather(
                client.probe(pinger, PING, pingSession, plan.probeRate,
                             plan.probeSeconds),
                client.probe(caller, tool, toolSession, plan.probeRate,
                             plan.probeSeconds))
    finally:
        pinger.close()
        caller.close()


async def blockedCall(port, session):
    """
    One session sitting in a 5-second GemStone call; its duration.
    """
    connection = await client.Connection.open(port)
    started = time.perf_counter()
    await connection.post(client.toolCall("execute_code",
                                          {"code": BLOCKING_CODE}), session)
    connection.close()
    return time.perf_counter() - started


async def responsiveness(plan, daemon):
    """
    Another session's C{ping} and C{tools/call} latency with nothing
    blocked, then while C{plan.blockedSessions} sessions each sit in a
    5-second call.
    """
    pingSession, toolSession = await client.initializeMany(daemon.port, 2)
    blockers = await client.initializeMany(daemon.port, plan.blockedSessions)
    idle = [[], []]
    blocked = [[], []]
    durations = []
    for n in range(plan.windows):
        progress(f"responsiveness window {n + 1}/{plan.windows}: idle")
        for into, got in zip(idle, await probes(plan, daemon.port,
                                                pingSession, toolSession),
                             strict=True):
            into.extend(got)
        progress(f"responsiveness window {n + 1}/{plan.windows}: "
                 f"{plan.blockedSessions} sessions blocked")
        calls = [asyncio.ensure_future(blockedCall(daemon.port, session))
                 for session in blockers]
        # Let every call reach its gem before the probes start.
        await asyncio.sleep(0.5)
        for into, got in zip(blocked, await probes(plan, daemon.port,
                                                   pingSession, toolSession),
                             strict=True):
            into.extend(got)
        unfinished = sum(not call.done() for call in calls)
        durations.extend(await asyncio.gather(*calls))
        if unfinished < len(calls):
            raise RuntimeError(
                f"only {unfinished} of {len(calls)} blocking calls were still "
                "running when the probes ended: the window measured too "
                "little")
    await client.delete(daemon.port, [pingSession, toolSession, *blockers])
    return {
        "idle": {"ping": summarize(idle[0]),
                 "tools_call": summarize(idle[1])},
        "blocked": {"ping": summarize(blocked[0]),
                    "tools_call": summarize(blocked[1])},
        "blocked_calls": {"sessions": plan.blockedSessions,
                          "code": BLOCKING_CODE,
                          "duration": summarize(durations)},
        "samples_ms": {f"{state} {kind}": [s * 1e3 for s in samples]
                       for state, pair in (("idle", idle),
                                           ("blocked", blocked))
                       for kind, samples in zip(("ping", "tools/call"),
                                                pair, strict=True)},
    }


async def stoneShare(plan, daemon):
    """
    One C{tools/call} at a time through HTTP, against the same source
    executed directly on a simulated stone of the bench's own.
    """
    opened = await client.initialize(daemon.port)
    session, connection = opened.session, opened.connection
    tool = client.toolCall("execute_code", {"code": SIMPLE_CODE})
    try:
        http = await client.sequential(connection, tool, session,
                                       plan.stoneSeconds)
    finally:
        connection.close()
    await client.delete(daemon.port, [session])
    direct, directRps = await asyncio.to_thread(
        stone.measure, SIMPLE_CODE, plan.stoneSeconds, plan.connections)
    return {"http_one_at_a_time": summarize(http),
            "direct_one_at_a_time": summarize(direct),
            "direct_rps": directRps,
            "direct_sessions": plan.connections}


async def addedLatency(plan, null):
    """
    What a C{tools/call} adds to a C{ping} at no load, on the null stone:
    the two alternate on one session and connection, one at a time, so
    whatever else the machine does falls on both.
    """
    opened = await client.initialize(null.port)
    session, connection = opened.session, opened.connection
    tool = client.toolCall("execute_code", {"code": SIMPLE_CODE})
    pings, calls = [], []
    try:
        with client.collectorOff():
            for body in (PING, tool):
                await client.sequential(connection, body, session, 0.2)
            end = time.perf_counter() + plan.stoneSeconds * 2
            while time.perf_counter() < end:
                for body, into in ((PING, pings), (tool, calls)):
                    sent = time.perf_counter()
                    await connection.post(body, session)
                    into.append(time.perf_counter() - sent)
    finally:
        connection.close()
    await client.delete(null.port, [session])
    return {"ping": summarize(pings), "tools_call": summarize(calls)}


async def sessionOpen(plan, server):
    """
    Sessions opened one at a time as a client opens one: C{initialize}
    (the GemStone login and the session's preparation happen here), then
    C{notifications/initialized}, then a first C{tools/call}; the time to
    C{initialize}'s answer and to the first call's.
    """
    tool = client.toolCall("execute_code", {"code": SIMPLE_CODE})
    initialized, firstResult, sessions = [], [], []
    for _ in range(plan.sessionOpens):
        started = time.perf_counter()
        opened = await client.initialize(server.port)
        await opened.connection.post(tool, opened.session)
        firstResult.append(time.perf_counter() - started)
        initialized.append(opened.answered - started)
        opened.connection.close()
        sessions.append(opened.session)
    await client.delete(server.port, sessions)
    return {"initialize": summarize(initialized),
            "first_result": summarize(firstResult)}


async def surface(null):
    """
    What every session costs an agent before any work: the bytes of the
    tools C{tools/list} describes and of the instructions, and the tools
    that lack an output schema, annotations or a title.

    The tools are counted as compact JSON, whatever whitespace the answer
    had: a client re-encodes them for its model, so only what they say
    counts (the answer's own size is kept as C{wire_bytes}).
    """
    opened = await client.initialize(null.port)
    try:
        _, listed = await opened.connection.post(client.rpc("tools/list"),
                                                 opened.session)
    finally:
        opened.connection.close()
    await client.delete(null.port, [opened.session])
    instructions = (json.loads(opened.answer)["result"].get("instructions")
                    or "")
    tools = json.loads(listed)["result"]["tools"]
    compact = json.dumps(tools, ensure_ascii=False, separators=(",", ":"))
    return {
        "wire_bytes": len(listed),
        "tools_list_bytes": len(compact.encode("utf-8")),
        "instructions_bytes": len(instructions.encode("utf-8")),
        "tools": len(tools),
        "incomplete_tools": sorted(
            tool["name"] for tool in tools
            if not all(tool.get(key) for key in
                       ("outputSchema", "annotations", "title"))),
        "bytes_by_part": {
            part: sum(len(json.dumps(tool.get(part), separators=(",", ":")))
                      for tool in tools if part in tool)
            for part in ("description", "inputSchema", "outputSchema",
                         "annotations")},
    }


async def daemonCost(plan, null, simulated):
    """
    The null stone's figures that need no load generator: the latency a
    C{tools/call} adds to a C{ping}, session opens (on the simulated stone
    too), and the bytes an agent reads before any work.
    """
    progress("the null stone: tools/call over ping at no load")
    added = await addedLatency(plan, null)
    progress("session opens")
    opens = {"null": await sessionOpen(plan, null),
             "simulated": await sessionOpen(plan, simulated)}
    return {"added": added, "session_open": opens,
            "surface": await surface(null)}


async def capacity(plan, daemon, profileTo=None):
    """
    The daemon's memory and threads with no sessions, with
    C{plan.heldSessions} idle sessions, then with an event stream open on
    each; and another session's C{ping} latency while it holds them (under
    py-spy too, when C{profileTo}).
    """
    port = daemon.port
    warmup = await client.initialize(port)
    await client.sequential(warmup.connection, PING, warmup.session, 0.5)
    warmup.connection.close()
    await client.delete(port, [warmup.session])
    base = daemon.status()
    pinging = await client.initialize(port)
    pingSession, pinger = pinging.session, pinging.connection
    with client.collectorOff():
        emptyPing = await client.probe(pinger, PING, pingSession,
                                       plan.probeRate, plan.probeSeconds)
    progress(f"capacity: opening {plan.heldSessions} sessions")
    opened = time.perf_counter()
    held = await client.initializeMany(port, plan.heldSessions)
    openSeconds = time.perf_counter() - opened
    idle = daemon.status()
    progress(f"capacity: opening {plan.heldSessions} event streams")
    streams = []
    for session in held:
        stream = await client.Connection.open(port)
        await stream.openStream(session)
        streams.append(stream)
    withStreams = daemon.status()
    # A connection of its own again: the first sat idle while the
    # sessions and streams opened, and the daemon closes a connection idle
    # past its request deadline (10 s), which a busy machine reaches.
    pinger.close()
    pinger = await client.Connection.open(port)
    sampler = None
    if profileTo:
        sampler = spy.record(daemon.pid, plan.probeSeconds, os.path.join(
            profileTo, "profile-capacity_ping-daemon"))
    with client.collectorOff():
        heldPing = await client.probe(pinger, PING, pingSession,
                                      plan.probeRate, plan.probeSeconds)
    if sampler is not None:
        await asyncio.to_thread(sampler.wait)
    pinger.close()
    for stream in streams:
        stream.close()
    n = plan.heldSessions
    return {
        "sessions": n,
        "open_seconds": openSeconds,
        "empty": base,
        "idle_sessions": idle,
        "with_streams": withStreams,
        "kb_per_idle_session": (idle["rss_mb"] - base["rss_mb"]) * 1024 / n,
        "kb_per_stream": (withStreams["rss_mb"] - idle["rss_mb"]) * 1024 / n,
        "ping_empty": summarize(emptyPing),
        "ping_holding": summarize(heldPing),
        "samples_ms": {"ping, no sessions": [s * 1e3 for s in emptyPing],
                       f"ping, {n} sessions + streams":
                           [s * 1e3 for s in heldPing]},
    }


def figures(results):
    """
    The headline ratios and the figures the targets check, by dotted name:
    the ratios the summary prints come from L{report.RATIO_LINES}, so each
    is defined once; only figures derived otherwise are spelled here.
    """
    t = results["throughput"]
    r = results["responsiveness"]
    c = results["capacity"]
    s = results["stone"]
    d = results["daemon"]
    ping, tool = t["gsmcpd_ping"], t["gsmcpd_tools_call"]
    ratios = {key: ratio(t[ours][field], t[theirs][referenceField])
              for key, _, (ours, field), (theirs, referenceField)
              in report.RATIO_LINES}
    return {
        **ratios,
        "null.added_p50_ms": d["added"]["tools_call"]["p50_ms"]
        - d["added"]["ping"]["p50_ms"],
        "session_open.null_ms": d["session_open"]["null"]["first_result"][
            "p50_ms"],
        "session_open.simulated_ms": d["session_open"]["simulated"][
            "first_result"]["p50_ms"],
        "surface.kb": (d["surface"]["tools_list_bytes"]
                       + d["surface"]["instructions_bytes"]) / 1000,
        "surface.incomplete_tools": len(d["surface"]["incomplete_tools"]),
        "access_log.cost": 1 - ratio(
            t["gsmcpd_ping_access_log"]["rps"], ping["rps"]),
        "access_log.cpu_per_request": ratio(
            t["gsmcpd_ping_access_log"]["cpu_ms_per_request"],
            ping["cpu_ms_per_request"]),
        "tools_call.vs_direct_stone_throughput": ratio(
            tool["rps"], s["direct_rps"]),
        "blocked.ping_p99": ratio(r["blocked"]["ping"]["p99_ms"],
                                  r["idle"]["ping"]["p99_ms"]),
        "blocked.tools_call_p99": ratio(r["blocked"]["tools_call"]["p99_ms"],
                                        r["idle"]["tools_call"]["p99_ms"]),
        "capacity.rss_mb": c["with_streams"]["rss_mb"],
        "capacity.threads": c["with_streams"]["threads"],
        "capacity.ping_p99_ms": c["ping_holding"]["p99_ms"],
        "flood.rss_mb": results["flood"]["flooded"]["rss_mb"],
        "stone.share_p50": ratio(s["direct_one_at_a_time"]["p50_ms"],
                                 s["http_one_at_a_time"]["p50_ms"]),
        **{f"search.{key.removesuffix('_s')}.slope": each["slope"]
           for key, each in results["search"]["growth"].items()},
        **{f"search.{name}.first_page": each
           for name, each in results["search"]["firstPage"].items()},
        "tonel.export_over_stone": results["tonel"]["export_over_stone"],
        "tonel.diff_over_stone": results["tonel"]["diff_over_stone"],
    }


async def inProcess(module, *arguments):
    """
    The JSON a bench module that measures in process prints, run in a
    process of its own once the servers are stopped.
    """
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, *arguments,
        stdout=asyncio.subprocess.PIPE)
    output, _ = await process.communicate()
    if process.returncode:
        raise RuntimeError(f"{module} exited with {process.returncode}")
    return json.loads(output)


async def searchCost(plan):
    """
    The simulated stone's cost per search against its repository's size
    (L{gsmcpd.testing.bench.searchcost}).
    """
    progress("the simulated stone's search cost against its repository's size")
    arguments = ["--repeats", str(plan.searchRepeats)]
    for fraction in plan.searchFractions:
        arguments += ["--fraction", str(fraction)]
    return await inProcess("gsmcpd.testing.bench.searchcost", *arguments)


async def tonelExport(plan):
    """
    What exporting a kernel-sized dictionary as Tonel costs, against the
    simulated stone's own share (L{gsmcpd.testing.bench.tonelexport}).
    """
    progress("exporting a kernel-sized dictionary as Tonel")
    return await inProcess("gsmcpd.testing.bench.tonelexport",
                           "--fraction", str(plan.tonelFraction))


async def measure(plan, directory, profileTo=None):
    """
    Start the servers, run every measurement, and stop what was started,
    whatever happens.
    """
    started = []

    def start(server):
        progress(f"starting {server.name} on port {server.port}")
        started.append(server)
        return server.start()

    try:
        echo = start(processes.echo(directory))
        sdk = start(processes.sdkServer(directory))
        daemon = start(processes.gsmcpd(directory))
        logged = start(processes.gsmcpd(directory, "gsmcpd-access-log",
                                        accessLog=True))
        null = start(processes.gsmcpd(
            directory, "gsmcpd-null-stone",
            stone=nullstone.daemonOptions(directory)))
        results = {"throughput": await throughput(plan, echo, sdk, daemon,
                                                  logged, null, profileTo)}
        logged.stop()
        results["daemon"] = await daemonCost(plan, null, daemon)
        null.stop()
        results["responsiveness"] = await responsiveness(plan, daemon)
        progress("the stone's share of a tools/call")
        results["stone"] = await stoneShare(plan, daemon)
        for server in started:
            server.stop()
        # A daemon of its own, so nothing earlier is in its memory; idle
        # sessions must outlive the time it takes to open all of them.
        held = start(processes.gsmcpd(
            directory, "gsmcpd-capacity", extra=("--idle-timeout", "3600",
                   "--streamless-idle-timeout", "3600")))
        results["capacity"] = await capacity(plan, held, profileTo)
        held.stop()
        flooded = start(processes.gsmcpd(directory, "gsmcpd-flood"))
        progress(f"flood: {plan.floodAttempts} task attempts on one handle")
        results["flood"] = await flood.flood(flooded, plan.floodAttempts,
                                             BLOCKING_CODE)
        flooded.stop()
        results["search"] = await searchCost(plan)
        results["tonel"] = await tonelExport(plan)
        return results
    except Exception:
        for server in started:
            if server.process is not None and server.process.poll() is None:
                progress(f"{server.name}'s log ends:\n{server.logTail()}")
        raise
    finally:
        for server in started:
            server.stop()


def loadAverage():
    """
    The one-minute load average: how busy the machine was besides us.
    """
    return os.getloadavg()[0]


def environment(plan):
    return {"mode": plan.name, "plan": attr.asdict(plan),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "python": sys.version.split()[0],
            "platform": platform.platform(), "cpus": os.cpu_count(),
            "load_before": loadAverage()}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m gsmcpd.testing.bench",
        description="gsmcpd's benchmark suite: ratios against references "
        "measured in the same run")
    parser.add_argument("--quick", action="store_true",
                        help="the short run (under two minutes)")
    parser.add_argument("--out", default=OUT,
                        help="directory for the JSON report and the PNG "
                        "chart (default: gsmcpd/testing/bench/out)")
    parser.add_argument("--profile", action="store_true",
                        help="also profile the daemon and its stone with "
                        "py-spy under the first round of each gsmcpd load, "
                        "and the daemon while it holds the capacity "
                        "sessions: collapsed stacks (.folded) and a "
                        "summary (.txt) in --out")
    options = parser.parse_args(argv)
    plan = QUICK if options.quick else FULL
    wrk.findWrk()
    if options.profile:
        spy.findPySpy()
    os.makedirs(options.out, exist_ok=True)
    began = time.perf_counter()
    setting = environment(plan)
    directory = tempfile.mkdtemp(prefix="gsmcpd-bench-")
    try:
        results = asyncio.run(measure(
            plan, directory, options.out if options.profile else None))
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    setting["load_after"] = loadAverage()
    document = report.build(setting, results, figures(results),
                            time.perf_counter() - began)
    jsonPath = os.path.join(options.out, f"{plan.name}.json")
    pngPath = os.path.join(options.out, f"{plan.name}.png")
    with open(jsonPath, "w") as f:
        json.dump(document, f, indent=2)
    report.chart(document, pngPath)
    print(report.text(document))
    print(f"\nwrote {jsonPath} and {pngPath}")
    return 0

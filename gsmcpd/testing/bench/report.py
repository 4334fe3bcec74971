"""
The report: one JSON document, a text summary that names the reference
behind every ratio, and a PNG chart of the ratios and latency
distributions.
"""

from gsmcpd.testing.bench.targets import describe, evaluate

# Every ratio in the text summary: its figure, what it means, and the two
# measurements (throughput key, field) it divides.
RATIO_LINES = (
    ("ping.throughput", "ping throughput / bare twisted.web echo",
     ("gsmcpd_ping", "rps"), ("echo_ping", "rps")),
    ("ping.p50", "ping p50 / echo p50",
     ("gsmcpd_ping", "p50_ms"), ("echo_ping", "p50_ms")),
    ("ping.p99", "ping p99 / echo p99",
     ("gsmcpd_ping", "p99_ms"), ("echo_ping", "p99_ms")),
    ("ping.throughput_access_log",
     "ping throughput, --access-log / echo",
     ("gsmcpd_ping_access_log", "rps"), ("echo_ping", "rps")),
    ("ping.cpu_per_request", "daemon CPU per ping / echo's per ping",
     ("gsmcpd_ping", "cpu_ms_per_request"),
     ("echo_ping", "cpu_ms_per_request")),
    ("tools_call.throughput", "tools/call throughput / SDK server's tool",
     ("gsmcpd_tools_call", "rps"), ("sdk_tools_call", "rps")),
    ("tools_call.p50", "tools/call p50 / SDK p50",
     ("gsmcpd_tools_call", "p50_ms"), ("sdk_tools_call", "p50_ms")),
    ("tools_call.p99", "tools/call p99 / SDK p99",
     ("gsmcpd_tools_call", "p99_ms"), ("sdk_tools_call", "p99_ms")),
    ("tools_call.cpu_per_request",
     "daemon CPU per tools/call (stone's not counted) / SDK's per call",
     ("gsmcpd_tools_call", "cpu_ms_per_request"),
     ("sdk_tools_call", "cpu_ms_per_request")),
    ("null.tools_call.throughput",
     "null stone: tools/call throughput / SDK server's tool",
     ("null_tools_call", "rps"), ("sdk_tools_call", "rps")),
    ("null.tools_call.p50", "null stone: tools/call p50 / SDK p50",
     ("null_tools_call", "p50_ms"), ("sdk_tools_call", "p50_ms")),
    ("null.tools_call.p99", "null stone: tools/call p99 / SDK p99",
     ("null_tools_call", "p99_ms"), ("sdk_tools_call", "p99_ms")),
    ("null.tools_call.cpu_per_request",
     "null stone: daemon CPU per tools/call / SDK's per call",
     ("null_tools_call", "cpu_ms_per_request"),
     ("sdk_tools_call", "cpu_ms_per_request")),
)

UNITS = {"rps": " req/s", "cpu_ms_per_request": " CPU ms"}

BUSY_LOAD = 1.0
"""A one-minute load average above this before the run means something
else was using the machine."""


def _rounded(value):
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def build(environment, results, figures, seconds):
    """
    The report document.
    """
    return _rounded({**environment, "seconds": seconds, "ratios": figures,
                     "targets": evaluate(figures), **results})


def _fmt(value, unit=""):
    return "-" if value is None else f"{value:,.2f}{unit}"


def text(document):
    """
    A plain-text summary: every ratio with the numbers it divides, the
    absolute figures that have no reference, and each target's verdict.
    """
    ratios = document["ratios"]
    t = document["throughput"]
    r = document["responsiveness"]
    c = document["capacity"]
    s = document["stone"]
    lines = [f"gsmcpd bench ({document['mode']}, {document['cpus']} CPUs, "
             f"{document['seconds']:.0f} s)"]
    if document["load_before"] > BUSY_LOAD:
        lines.append(
            f"WARNING: the machine was busy before the run (load average "
            f"{document['load_before']:.1f}): absolute figures are low and "
            "ratios noisier than usual")
    lines += ["", "Ratios (measured in this run):"]
    for key, label, (ours, field), (theirs, _) in RATIO_LINES:
        unit = UNITS.get(field, " ms")
        lines.append(f"  {_fmt(ratios[key])}x  {label}  "
                     f"({_fmt(t[ours][field], unit)} vs "
                     f"{_fmt(t[theirs][field], unit)})")
    lines.append(f"  {_fmt(ratios['access_log.cost'] * 100)}%  of ping "
                 "throughput goes to the access log when it is on")
    lines.append(
        f"  {_fmt(ratios['access_log.cpu_per_request'])}x  daemon CPU per "
        "ping with --access-log / without  ("
        f"{_fmt(t['gsmcpd_ping_access_log']['cpu_ms_per_request'], ' CPU ms')}"
        f" vs {_fmt(t['gsmcpd_ping']['cpu_ms_per_request'], ' CPU ms')})")
    for kind, key in (("ping", "blocked.ping_p99"),
                      ("tools_call", "blocked.tools_call_p99")):
        lines.append(
            f"  {_fmt(ratios[key])}x  {kind} p99 with "
            f"{r['blocked_calls']['sessions']} sessions blocked / idle  "
            f"({_fmt(r['blocked'][kind]['p99_ms'], ' ms')} vs "
            f"{_fmt(r['idle'][kind]['p99_ms'], ' ms')})")
    lines.append(
        f"  {_fmt(ratios['stone.share_p50'])}x  the simulated stone's share "
        f"of a tools/call (p50 direct "
        f"{_fmt(s['direct_one_at_a_time']['p50_ms'], ' ms')} vs HTTP "
        f"{_fmt(s['http_one_at_a_time']['p50_ms'], ' ms')})")
    stoneCpu = t["gsmcpd_tools_call"]["stone_cpu_ms_per_request"]
    lines.append(f"        the stone spent {_fmt(stoneCpu, ' CPU ms')} per "
                 "tools/call under wrk")
    lines.append(
        f"  {_fmt(ratios['tools_call.vs_direct_stone_throughput'])}x  "
        f"tools/call throughput / the stone's own with "
        f"{s['direct_sessions']} sessions "
        f"({_fmt(s['direct_rps'], ' calls/s')})")
    lines += ["", "The daemon's own cost (null stone, no load):"]
    added = document["daemon"]["added"]
    lines.append(
        f"  {_fmt(ratios['null.added_p50_ms'], ' ms')}  a tools/call adds "
        f"over a ping, p50 ({_fmt(added['tools_call']['p50_ms'], ' ms')} vs "
        f"{_fmt(added['ping']['p50_ms'], ' ms')}; p99 "
        f"{_fmt(added['tools_call']['p99_ms'], ' ms')} vs "
        f"{_fmt(added['ping']['p99_ms'], ' ms')})")
    for stone, opened in document["daemon"]["session_open"].items():
        lines.append(
            f"  {_fmt(opened['first_result']['p50_ms'], ' ms')}  session "
            f"open on the {stone} stone, initialize to the first tools/call "
            f"result, p50 (initialize answered in "
            f"{_fmt(opened['initialize']['p50_ms'], ' ms')})")
    surface = document["daemon"]["surface"]
    lines.append(
        f"  {_fmt(ratios['surface.kb'], ' KB')}  tools/list "
        f"({surface['tools']} tools, {surface['tools_list_bytes']:,} bytes "
        f"as compact JSON, {surface['wire_bytes']:,} on the wire) + "
        f"instructions ({surface['instructions_bytes']:,} bytes)")
    lines.append("        by part: " + ", ".join(
        f"{part} {size:,}" for part, size in surface["bytes_by_part"].items()))
    if surface["incomplete_tools"]:
        lines.append("        lacking an outputSchema, annotations or title: "
                     + ", ".join(surface["incomplete_tools"]))
    lines += [
        "", f"Capacity ({c['sessions']:,} sessions, opened in "
        f"{c['open_seconds']:.1f} s):",
        f"  daemon RSS {_fmt(c['empty']['rss_mb'], ' MB')} empty, "
        f"{_fmt(c['idle_sessions']['rss_mb'], ' MB')} with idle sessions, "
        f"{_fmt(c['with_streams']['rss_mb'], ' MB')} with their streams",
        f"  threads {c['empty']['threads']} empty, "
        f"{c['with_streams']['threads']} holding them",
        f"  {_fmt(c['kb_per_idle_session'], ' KB')} per idle session, "
        f"{_fmt(c['kb_per_stream'], ' KB')} per open stream",
        f"  ping p99 {_fmt(c['ping_holding']['p99_ms'], ' ms')} holding "
        f"them ({_fmt(c['ping_empty']['p99_ms'], ' ms')} with none)",
        ""]
    lines += floodLines(document["flood"])
    lines += searchLines(document["search"])
    lines += tonelLines(document["tonel"])
    lines += ["", "Targets:"]
    lines += [describe(outcome) for outcome in document["targets"]]
    return "\n".join(lines)


def floodLines(flood):
    """
    One client's task flood on one handle: what the attempts came to, the
    daemon's memory, and another client served meanwhile.
    """
    outcomes = ", ".join(f"{count:,} {kind}" for kind, count
                         in sorted(flood["outcomes"].items()))
    return [
        f"Flood ({flood['attempts']:,} task attempts on one handle in "
        f"{flood['seconds']:.1f} s: {outcomes}):",
        f"  daemon RSS {_fmt(flood['empty']['rss_mb'], ' MB')} empty, "
        f"{_fmt(flood['flooded']['rss_mb'], ' MB')} after "
        f"(+{_fmt(flood['rss_growth_mb'], ' MB')})",
        f"  another client's 3 + 4: {flood['other']['answer']} in "
        f"{_fmt(flood['other']['ms'], ' ms')}", ""]


def searchLines(search):
    """
    The simulated stone's search cost at each repository size, and how
    each cost grows with it.
    """
    lines = ["The simulated stone's search cost against its repository "
             "(generated kernel, in process; seconds):"]
    for size in search["sizes"]:
        lines.append(
            f"  {size['fraction']:.0%}: {size['classes']:,} classes, "
            f"{size['methods']:,} methods: built {_fmt(size['build_s'])}, "
            f"index {_fmt(size['index_s'])}, find_senders size "
            f"({size['find_senders_size_hits']:,} senders) "
            f"{_fmt(size['find_senders_size_s'])}, printString "
            f"{_fmt(size['find_senders_printString_s'])}, "
            f"search_method_source reading every source "
            f"{_fmt(size['search_method_source_no_hit_s'])}")
    lines += [f"  {key.removesuffix('_s')}: slope {_fmt(each['slope'])} "
              f"against the methods count, {each['growth']}"
              for key, each in search["growth"].items()]
    lines += [f"  {name} first page: {_fmt(each)}x the scan of every source"
              for name, each in search["firstPage"].items()]
    return lines


def tonelLines(tonel):
    """
    Exporting a kernel-sized dictionary as Tonel, and diffing its first
    page, against the simulated stone's share of each.
    """
    return [
        "", f"Tonel export of a generated kernel's Globals "
        f"({tonel['fraction']:.0%}: {tonel['classes']:,} classes, "
        f"{tonel['methods']:,} methods, {tonel['bytes']:,} bytes in "
        f"{tonel['pages']} pages; CPU seconds, in process):",
        f"  export {_fmt(tonel['export_s'])} (page median "
        f"{_fmt(tonel['page_median_s'])}, max {_fmt(tonel['page_max_s'])}),"
        f" the stone's share {_fmt(tonel['export_stone_s'])}: "
        f"{_fmt(tonel['export_over_stone'], 'x')}",
        f"  diff_tonel of the first page ({tonel['diff_files']} files, "
        f"{tonel['diff_changes']} changes) {_fmt(tonel['diff_s'])}, the "
        f"stone's share {_fmt(tonel['diff_stone_s'])}: "
        f"{_fmt(tonel['diff_over_stone'], 'x')}"]


def _score(outcome):
    """
    A target's figure as a fraction of its target, 1 or more when met,
    whichever way the target points.
    """
    figure, limit = outcome["figure"], outcome["limit"]
    if figure is None:
        return 0.0
    if outcome["comparison"] == ">=":
        return figure / limit
    return limit / figure if figure else float("inf")


def chart(document, path):
    """
    Draw the report as a PNG: each target's figure against its target,
    throughput beside its reference, wrk's latency percentiles, and the
    probes' latency distributions.
    """
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, ((targets, throughput), (wrkLatency, probes)) = pyplot.subplots(
        2, 2, figsize=(15, 10))
    figure.suptitle(f"gsmcpd bench ({document['mode']}, "
                    f"{document['started']}): ratios to references measured "
                    "in the same run")

    outcomes = document["targets"]
    scores = [min(_score(o), 5.0) for o in outcomes]
    targets.barh(range(len(outcomes)), scores,
                 color=["tab:green" if o["met"] else "tab:red"
                        for o in outcomes])
    targets.set_yticks(range(len(outcomes)), [
        f"{o['name']}\n{_fmt(o['figure'], o['unit'])} (target "
        f"{o['comparison']} {o['limit']:g}{o['unit']})" for o in outcomes],
        fontsize=7)
    targets.invert_yaxis()
    targets.axvline(1.0, color="black", linestyle="--")
    targets.set_xlabel("fraction of target (1 or more is met)")
    targets.set_title("Targets")

    t = document["throughput"]
    names = list(t)
    throughput.bar(range(len(names)), [t[n]["rps"] for n in names],
                   color=["tab:gray" if n.startswith(("echo", "sdk"))
                          else "tab:blue" for n in names])
    throughput.set_xticks(range(len(names)),
                          [n.replace("_", "\n", 1) for n in names],
                          fontsize=7)
    throughput.set_ylabel("requests/s (wrk, "
                          f"{document['plan']['connections']} connections)")
    throughput.set_title("Throughput (grey: references)")

    levels = ("p50_ms", "p90_ms", "p99_ms", "p99.9_ms")
    for name in names:
        wrkLatency.plot([0.5, 0.9, 0.99, 0.999], [t[name][k] for k in levels],
                        marker="o", label=name)
    wrkLatency.set_xscale("logit")
    wrkLatency.set_xticks([0.5, 0.9, 0.99, 0.999],
                          ["p50", "p90", "p99", "p99.9"])
    wrkLatency.set_yscale("log")
    wrkLatency.set_ylabel("latency (ms)")
    wrkLatency.set_title("Latency under wrk's load")
    wrkLatency.legend(fontsize=7)

    samples = {**document["responsiveness"]["samples_ms"],
               **document["capacity"]["samples_ms"]}
    for label, values in samples.items():
        ordered = sorted(values)
        probes.plot(ordered, [(i + 1) / len(ordered)
                              for i in range(len(ordered))], label=label)
    probes.set_xscale("log")
    probes.set_xlabel("latency (ms), paced probes")
    probes.set_ylabel("fraction of requests")
    probes.set_title("Another session's latency: idle, 50 blocked, "
                     "1,000 held")
    probes.legend(fontsize=7)

    figure.tight_layout()
    figure.savefig(path, dpi=100)
    pyplot.close(figure)

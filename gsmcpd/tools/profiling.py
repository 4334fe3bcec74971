"""
C{profile_code}: run code under GemStone's sampling profiler (C{ProfMonitor})
and answer where its time went, as the profiler's own entries count it.

The template reads the results as objects (tODE's profiler browser reads
them so): each entry a method with its self samples (C{tally}: the method
running, not its callees) and total samples (on the stack at all), and the
entries it called.  Only the code's own entries are answered: its doit's
and all they called; the methods the profile ran inside are left out,
their totals counting every sample.
"""




from twisted.internet.defer import Deferred

from gsmcpd.tools.arguments import BOOLEAN, INTEGER, OPTIONAL_STRING, STRING, JsonObject
from gsmcpd.tools.base import (
    Tool,
    ToolCall,
    ToolResult,
    annotations,
    closedSchema,
    counted,
    resultSchema,
)
from gsmcpd.tools.execution import DEFAULT_FRAMES, capped

DEFAULT_INTERVAL_NS = 1_000_000
"""GemStone's default interval, 1 ms (tODE's man page for C{pf start})."""
MIN_INTERVAL_NS = 1_000
"""MagLev's C{Gprof.compute_interval} answers no less."""
MAX_INTERVAL_NS = 1_000_000_000

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
"""Rows in each ranking; at the cap both stay well under 50 KB."""

PRINT_LIMIT = 2_000
"""Characters of the result's printString: the profile is the point."""

NUMBER = {"type": "number"}

ROW_SCHEMA = resultSchema(
    method=STRING, className=OPTIONAL_STRING, selector=OPTIONAL_STRING,
    block=BOOLEAN, receiverClass=OPTIONAL_STRING,
    self=INTEGER, total=INTEGER, selfPercent=NUMBER, totalPercent=NUMBER)
"""One method of a ranking: its label as a stack shows it, its parts, and
its samples (self and total) counted and as a share of all."""


def profileCodeTool() -> Tool:
    """
    The C{profile_code} tool: it runs arbitrary code, as C{execute_code}
    does, so it is declared as that one is.
    """
    return Tool(
        "profile_code", "Profile Smalltalk",
        "Run Smalltalk statements under GemStone's sampling profiler: the "
        "last value's printString, CPU time, samples, and the methods "
        "ranked by self samples and by total (with what they called).",
        closedSchema({
            "code": {"type": "string"},
            "intervalNs": {"type": "integer", "minimum": MIN_INTERVAL_NS,
                           "maximum": MAX_INTERVAL_NS,
                           "default": DEFAULT_INTERVAL_NS,
                           "description": "nanoseconds of CPU between samples"},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                      "default": DEFAULT_LIMIT,
                      "description": "methods in each ranking"}},
            required=["code"]),
        annotations(readOnly=False, destructive=True), profileCode,
        resultSchema(
            printString=STRING, totalCharacters=INTEGER, truncated=BOOLEAN,
            milliseconds=INTEGER, samples=INTEGER, intervalNs=INTEGER,
            methods=INTEGER,
            bySelf={"type": "array", "items": ROW_SCHEMA},
            byTotal={"type": "array", "items": ROW_SCHEMA}),
        taskSupport="optional")


def profileCode(call: ToolCall, arguments: JsonObject) -> Deferred[ToolResult]:
    intervalNs = arguments.get("intervalNs", DEFAULT_INTERVAL_NS)
    return call.runTemplate("profile_code", {
        "code": arguments["code"], "intervalNs": intervalNs,
        "limit": arguments.get("limit", DEFAULT_LIMIT),
        "printLimit": PRINT_LIMIT}, frames=DEFAULT_FRAMES
    ).addCallback(profiled, intervalNs)


def profiled(found: JsonObject, intervalNs: int) -> ToolResult:
    """
    profile_code's result from its template's value.
    """
    samples = found["samples"]
    structured = {
        "printString": found["text"], "totalCharacters": found["total"],
        "truncated": found["total"] > PRINT_LIMIT,
        "milliseconds": found["milliseconds"], "samples": samples,
        "intervalNs": intervalNs, "methods": found["methods"],
        "bySelf": [row(each, samples) for each in found["bySelf"]],
        "byTotal": [row(each, samples) for each in found["byTotal"]]}
    return ToolResult(_text(structured, capped(found["text"], found["total"],
                                               PRINT_LIMIT)), structured)


def row(entry: JsonObject, samples: int) -> JsonObject:
    """
    One entry of the template's answer as a ranking holds it.
    """
    className, selector = entry.get("className"), entry.get("selector")
    block, receiverClass = entry.get("block", False), entry.get("receiverClass")
    if "other" in entry:
        label = entry["other"]
    else:
        label = "Executed Code" if className is None else f"{className}>>{selector}"
        if block:
            label = "[] in " + label
        if receiverClass is not None:
            label += f" [{receiverClass}]"
    return {"method": label, "className": className, "selector": selector,
            "block": block, "receiverClass": receiverClass,
            "self": entry["self"], "total": entry["total"],
            "selfPercent": share(entry["self"], samples),
            "totalPercent": share(entry["total"], samples)}


def share(count: int, samples: int) -> float:
    return round(100 * count / samples, 1) if samples else 0.0


def _text(result: JsonObject, printed: str) -> str:
    lines = [printed,
             f"{result['milliseconds']} ms of CPU; "
             f"{counted(result['samples'], 'sample')} every "
             f"{result['intervalNs']:,} ns; "
             f"{counted(result['methods'], 'method')} of the code sampled."]
    if not result["samples"]:
        lines.append(
            "No samples: the code ran for less than one interval. Profile "
            "longer-running code, or pass a smaller intervalNs (at least "
            f"{MIN_INTERVAL_NS:,}).")
        return "\n".join(lines)
    for title, key in (("By self samples (the method itself running):", "bySelf"),
                       ("By total samples (the method or what it called):",
                        "byTotal")):
        lines += ["", title, "  self %  total %  method"]
        lines += [f"  {each['selfPercent']:6.1f}  {each['totalPercent']:7.1f}  "
                  f"{each['method']}" for each in result[key]]
    return "\n".join(lines)

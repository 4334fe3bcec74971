"""
The debugger's state in a session, and what a stopped run looks like to a
client.

A session's debugged runs stop in its gem (L{gsmcpd.gci.debugcalls}); here
each stopped one has a small id, the number of its frame shown first, and
the key its answer is kept under when it finishes (the run's own doit
writes its printString into the session's C{SessionTemps}, since a GCI
result is an OOP the daemon does not hold).  Breakpoints live in the
session, as in GemStone: the daemon remembers which it set, to list and
clear them.
"""

import re
from collections.abc import Iterator

import attr

from gsmcpd.gci.debugcalls import Stopped
from gsmcpd.tools.arguments import INTEGER, STRING, JsonObject
from gsmcpd.tools.base import counted, resultSchema
from gsmcpd.tools.templates.outcomes import ToolError

BREAKPOINT, HALT, SOFT_BREAK = 6005, 6001, 6003
REASONS = {BREAKPOINT: "breakpoint", HALT: "halt", SOFT_BREAK: "break"}
"""A stop's GCI error as its reason; any other number is an Error's."""

_DESCRIPTION = re.compile(r"\Aan? (\w+) occurred \(error \d+\)")
"""GemStone's description of an Error: its class is named first."""

OPTIONAL_INTEGER = {"type": ["integer", "null"]}
OPTIONAL_STRING = {"type": ["string", "null"]}

FRAME_SCHEMA = resultSchema(
    frame=INTEGER, method=STRING, line=INTEGER, source=STRING,
    receiverClass=STRING, omittedVariables=INTEGER,
    variables={"type": "array",
               "items": resultSchema(name=STRING, value=STRING)})
"""A stopped frame as an error's stack shows it, with the number the
debugger's tools take (1 the innermost shown)."""

RUN_SCHEMA = resultSchema(
    state={"type": "string", "enum": ["finished", "paused"]},
    result=OPTIONAL_STRING, totalCharacters=OPTIONAL_INTEGER,
    debug=OPTIONAL_INTEGER,
    reason={"type": ["string", "null"],
            "enum": ["breakpoint", "step", "halt", "break", "error", None]},
    error={"type": ["object", "null"], "properties": {
        "number": INTEGER, "class": OPTIONAL_STRING, "message": STRING}},
    frames={"type": "array", "items": FRAME_SCHEMA}, omittedFrames=INTEGER)
"""Where a run is after a debugger's tool: finished with its answer's
printString, or paused with its id, why, and its frames."""


@attr.s(auto_attribs=True, eq=False)
class Paused:
    """
    One stopped run of a session: its id, its GsProcess, and the level of
    the frame shown first (frames above it signalled what stopped it).
    """

    id: int
    process: int
    top: int = 1
    shown: int = 0
    method: str = ""
    line: int = 0

    def level(self, frame: int) -> int:
        """The process's level of shown frame C{frame}."""
        if not 1 <= frame <= self.shown:
            raise ToolError("invalidParams", f"debug {self.id} shows "
                            f"{counted(self.shown, 'frame')}: frame {frame} "
                            "is not one of them")
        return self.top + frame - 1


@attr.s(auto_attribs=True, eq=False)
class Breakpoint:
    """One breakpoint this session set."""

    className: str
    meta: bool
    selector: str
    stepPoint: int
    line: int
    condition: str | None
    oop: int
    """The OOP of the compiled method it is in: one compiled since has none."""

    def described(self) -> JsonObject:
        return attr.asdict(self, filter=lambda field, _: field.name != "oop")

    @property
    def method(self) -> tuple[str, bool, str]:
        return (self.className, self.meta, self.selector)

    @property
    def label(self) -> str:
        """The method as a frame names it."""
        return f"{self.className}{' class' if self.meta else ''}>>{self.selector}"

    def __str__(self) -> str:
        side = " class" if self.meta else ""
        when = f" if {self.condition}" if self.condition else ""
        return (f"{self.className}{side}>>{self.selector} line {self.line} "
                f"(step point {self.stepPoint}){when}")


@attr.s(auto_attribs=True, eq=False)
class SessionDebugger:
    """
    A session's stopped runs, by id, and its breakpoints.

    @ivar limit: how many runs may be stopped at once.
    """

    limit: int
    paused: dict[int, Paused] = attr.ib(factory=dict)
    breakpoints: list[Breakpoint] = attr.ib(factory=list)
    _next: int = 1

    def admit(self) -> int:
        """
        The key of a new run, refused when the session holds its limit of
        stopped runs (the oldest is kept: the client chooses what to end).
        """
        if len(self.paused) >= self.limit:
            raise ToolError(
                "refused", f"this session already holds "
                f"{counted(len(self.paused), 'paused run')} (at most "
                f"{self.limit}): end one with debug_stop or finish it with "
                f"debug_continue ({', '.join(map(str, self.paused))}), then "
                "retry.")
        key, self._next = self._next, self._next + 1
        return key

    def named(self, debug: int) -> Paused:
        found = self.paused.get(debug)
        if found is None:
            raise ToolError(
                "notFound", f"No paused run {debug} in this session"
                + (f" (paused: {', '.join(map(str, self.paused))})"
                   if self.paused else " (none is paused: debug_run one)"))
        return found

    def at(self, method: tuple[str, bool, str]) -> Iterator[Breakpoint]:
        return (each for each in self.breakpoints if each.method == method)


def signalled(stopped: Stopped) -> bool:
    """Whether an exception stopped the run (an Error or a halt), its
    signalling the top frames: a breakpoint, a step or a soft break stops
    in the run's own frame."""
    return stopped.number not in (BREAKPOINT, SOFT_BREAK)


def stopReason(stopped: Stopped, stepped: bool,
               className: str | None = None) -> tuple[str, JsonObject | None]:
    """
    Why a run stopped, and the Error that stopped it, if one did: its
    class the signalled exception's (C{className}), else as GemStone's
    description of it names it.
    """
    reason = REASONS.get(stopped.number)
    if reason == "breakpoint" and stepped:
        return "step", None
    if reason is not None:
        return reason, None
    named = _DESCRIPTION.match(stopped.message)
    return "error", {"number": stopped.number,
                     "class": className or (named.group(1) if named else None),
                     "message": stopped.message}


def shownFrames(stack: JsonObject) -> list[JsonObject]:
    """The envelope's frames, numbered, each with every key its schema
    lists."""
    return [{"frame": number, "method": frame["method"],
             "line": frame["line"], "source": frame["source"],
             "receiverClass": frame["receiverClass"],
             "variables": frame["variables"],
             "omittedVariables": frame.get("omittedVariables", 0)}
            for number, frame in enumerate(stack["frames"], 1)]


def runText(result: JsonObject) -> str:
    """A debugger tool's result as a developer reads it."""
    if result["state"] == "finished":
        return f"Finished: {result['result']}"
    why = result["reason"]
    if result["error"] is not None:
        why = f"error: {result['error']['message']}"
    lines = [f"Paused (debug {result['debug']}) at a {why}"
             if result["reason"] in ("breakpoint", "halt", "break")
             else f"Paused (debug {result['debug']}) after a step"
             if result["reason"] == "step"
             else f"Paused (debug {result['debug']}) at an {why}"]
    for frame in result["frames"]:
        lines.append(f"  {frame['frame']}: {frame['method']} (line "
                     f"{frame['line']}): {frame['source']}")
        lines.extend(f"      {each['name']} = {each['value']}"
                     for each in frame["variables"])
    if result["omittedFrames"]:
        lines.append(f"  ...and {counted(result['omittedFrames'], 'more frame')}")
    lines.append("debug_step, debug_eval, debug_restart take a frame number; "
                 "debug_continue resumes, debug_stop ends it.")
    return "\n".join(lines)

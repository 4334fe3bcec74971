"""
The Debugger toolset: breakpoints, and runs an agent pauses, steps,
evaluates in, fixes and restarts, and resumes, as a GemStone developer
does in a debugger.

A run started by C{debug_run} may stop (a breakpoint, a C{halt}, an Error
nothing handles); its GsProcess then stays suspended in the session's gem
(L{gsmcpd.gci.debugcalls}), named by a small id, until the agent steps,
continues or stops it, or the session ends.  Every tool here is an ordinary
call: a step that runs long is broken at its deadline like any call.
Served when named (C{--toolsets ...,debugger}).

Here: the toolset (its tools declared, each session's state kept) and the
runs' tools; what the breakpoint tools do, and whether a run stopped at
breakpoints pauses, is in L{gsmcpd.tools.breakpoints}.
"""

from collections.abc import Callable
from functools import partial
from typing import Any
from weakref import WeakKeyDictionary

from twisted.internet.defer import Deferred, inlineCallbacks

from gsmcpd.gci.debugcalls import Stopped
from gsmcpd.gci.interfaces import IDebugSession
from gsmcpd.tools.arguments import (
    BOOLEAN,
    INTEGER,
    META,
    STRING,
    JsonObject,
    nonEmptyArgument,
    stringArgument,
)
from gsmcpd.tools.base import (
    OWN_SESSION,
    Steps,
    Tool,
    ToolCall,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    resultSchema,
)
from gsmcpd.tools.breakpoints import BREAKPOINT_SCHEMA, Breakpoints, pausesHere
from gsmcpd.tools.debugruns import (
    BREAKPOINT,
    RUN_SCHEMA,
    Paused,
    SessionDebugger,
    runText,
    shownFrames,
    signalled,
    stopReason,
)
from gsmcpd.tools.execution import DEFAULT_FRAMES, MAX_VALUE_CHARACTERS, executed
from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.templates.render import Template

DEFAULT_PROCESSES = 3
"""Runs a session may hold paused at once, unless told (--debug-processes)."""

MAX_LINE_STEPS = 100
"""Step points a step over passes on one line at most before it answers."""

_DEBUG = {"type": "integer", "minimum": 1,
          "description": "the id debug_run answered"}
_FRAME = {"type": "integer", "minimum": 1,
          "description": "a frame's number, 1 the innermost (default 1)"}
_FRAMES = {"type": "integer", "minimum": 0,
           "description": f"frames to show (default {DEFAULT_FRAMES})"}


def _tool(name: str, title: str, description: str,
          properties: JsonObject, required: list[str],
          run: Callable[..., Any], output: JsonObject,
          readOnly: bool = False) -> Tool:
    return Tool(name, title, description, closedSchema(properties, required),
                annotations(True) if readOnly
                else annotations(False, destructive=True),
                run, output, runsOn=OWN_SESSION)


class DebuggerToolset(Toolset):
    name = "debugger"
    title = "Debugger"
    declaredOptionNames = ("processes",)
    instructions = (
        "To debug: breakpoint_set in the method, debug_run the code or test "
        "(it pauses there, or at a halt or an error, with its frames), "
        "debug_eval in a frame to read or set a temporary, debug_step; fix "
        "with compile_method, debug_restart the frame, debug_continue. A "
        "paused run holds a slot of your session until it finishes or "
        "debug_stop ends it.")

    def __init__(self, options: JsonObject | None = None) -> None:
        super().__init__(options)
        self._limit = int(self.optionNamed("processes", DEFAULT_PROCESSES))
        self._sessions: WeakKeyDictionary[IDebugSession, SessionDebugger] = \
            WeakKeyDictionary()
        self._breakpoints = Breakpoints(self._state)

    def tools(self) -> list[Tool]:
        method = {"className": nonEmptyArgument(),
                  "selector": nonEmptyArgument(), "meta": META}
        return [
            _tool("breakpoint_set", "Set breakpoint",
                  "Break a debugged run in a method at a line (the first "
                  "step point on or after it) or step point; condition: an "
                  "expression over the method's temporaries, the run pauses "
                  "only where it is true.",
                  {**method, "line": {"type": "integer", "minimum": 1},
                   "stepPoint": {"type": "integer", "minimum": 1},
                   "condition": nonEmptyArgument()},
                  ["className", "selector"], self._breakpoints.breakpointSet,
                  resultSchema(breakpoint=BREAKPOINT_SCHEMA)),
            _tool("breakpoint_list", "List breakpoints",
                  "The breakpoints set in your session.", {}, [],
                  self._breakpoints.breakpointList,
                  resultSchema(breakpoints={"type": "array",
                                            "items": BREAKPOINT_SCHEMA}),
                  readOnly=True),
            _tool("breakpoint_clear", "Clear breakpoints",
                  "Clear one breakpoint (with its stepPoint or line), a "
                  "method's (className and selector), or all (no "
                  "arguments).",
                  {**method, "stepPoint": {"type": "integer", "minimum": 1},
                   "line": {"type": "integer", "minimum": 1}},
                  [], self._breakpoints.breakpointClear,
                  resultSchema(cleared=INTEGER)),
            _tool("debug_run", "Debug code",
                  "Run code, or a test method (className and selector of a "
                  "TestCase), so that it can pause at a breakpoint, halt "
                  "or error: answers finished with the result, or paused "
                  "with its id, why, and its frames (innermost first).",
                  {"code": stringArgument(), "className": nonEmptyArgument(),
                   "selector": nonEmptyArgument(), "frames": _FRAMES},
                  [], self.debugRun, RUN_SCHEMA),
            _tool("debug_step", "Step",
                  "Step a paused run: over the next send in a frame, into "
                  "it, or out of the frame.",
                  {"debug": _DEBUG, "frame": _FRAME, "frames": _FRAMES,
                   "kind": {"type": "string", "enum": ["over", "into", "out"]}},
                  ["debug", "kind"], self.debugStep, RUN_SCHEMA),
            _tool("debug_continue", "Continue",
                  "Resume a paused run: to the next break, or its end.",
                  {"debug": _DEBUG, "frames": _FRAMES}, ["debug"],
                  self.debugContinue, RUN_SCHEMA),
            _tool("debug_eval", "Evaluate in frame",
                  "Evaluate code in a paused frame: self is its receiver, "
                  "its arguments and temporaries are in scope, and an "
                  "assignment to one changes the frame.",
                  {"debug": _DEBUG, "frame": _FRAME, "code": stringArgument()},
                  ["debug", "code"], self.debugEval,
                  resultSchema(printString=STRING, totalCharacters=INTEGER,
                               truncated=BOOLEAN)),
            _tool("debug_restart", "Restart frame",
                  "Trim a paused run to a method's frame and restart it "
                  "from its start, on the method's current source (fix it "
                  "with compile_method first).",
                  {"debug": _DEBUG, "frame": _FRAME, "frames": _FRAMES},
                  ["debug"], self.debugRestart, RUN_SCHEMA),
            _tool("debug_stop", "Stop run",
                  "End a paused run: its process is terminated.",
                  {"debug": _DEBUG}, ["debug"], self.debugStop,
                  resultSchema(stopped=INTEGER)),
            _tool("debug_list", "List paused runs",
                  "Your session's paused runs, each with where it is.", {},
                  [], self.debugList,
                  resultSchema(paused={"type": "array", "items": resultSchema(
                      debug=INTEGER, method=STRING, line=INTEGER)}),
                  readOnly=True)]

    def _state(self, call: ToolCall) -> SessionDebugger:
        gem = debuggable(call)
        state = self._sessions.get(gem)
        if state is None:
            state = self._sessions[gem] = SessionDebugger(self._limit)
        # A run the gem no longer holds stopped (its session was lost) is over.
        for debug in [each.id for each in state.paused.values()
                      if each.process not in gem.paused]:
            del state.paused[debug]
        return state

    def debugRun(self, call: ToolCall,
                 arguments: JsonObject) -> Deferred[ToolResult]:
        code, className = arguments.get("code"), arguments.get("className")
        if (code is None) == (className is None) or \
                (className is None) != ("selector" not in arguments):
            raise ToolError("invalidParams", "debug_run takes code, or the "
                            "className and selector of a test method")
        state = self._state(call)
        key = state.admit()
        source = Template.named("debug_run").renderDebugged({
            "code": code, "className": className,
            "selector": arguments.get("selector"), "key": key})
        gem = debuggable(call)
        return self._settled(call, state, key,
                             partial(gem.executeDebug, source), arguments)

    @inlineCallbacks
    def debugStep(self, call: ToolCall,
                  arguments: JsonObject) -> Steps[ToolResult]:
        """
        A step over goes on to the next line (a line holds a step point
        per send and assignment), or out of the frame; a step out of the
        run's code (into gsmcpd's doit, whose frames are never shown) runs
        it to its end.
        """
        state = self._state(call)
        paused = state.named(arguments["debug"])
        source = Template.named("debug_step").renderDebugged({
            "oop": paused.process, "kind": arguments["kind"],
            "level": paused.level(arguments.get("frame", 1))})
        gem = debuggable(call)
        start = (paused.method, paused.line, paused.shown)
        for _ in range(MAX_LINE_STEPS):
            result = yield self._settled(
                call, state, paused.id,
                partial(gem.executeDebug, source, paused.process), arguments,
                stepped=True)
            assert result.structured is not None
            if result.structured["reason"] == "step" and not paused.shown:
                result = yield self._settled(
                    call, state, paused.id,
                    partial(gem.continueDebug, paused.process), arguments)
                break
            if result.structured["reason"] != "step" or \
                    arguments["kind"] != "over" or \
                    (paused.method, paused.line, paused.shown) != start:
                break
        return result

    def debugContinue(self, call: ToolCall,
                      arguments: JsonObject) -> Deferred[ToolResult]:
        state = self._state(call)
        paused = state.named(arguments["debug"])
        gem = debuggable(call)
        return self._settled(call, state, paused.id,
                             partial(gem.continueDebug, paused.process),
                             arguments)

    def debugEval(self, call: ToolCall,
                  arguments: JsonObject) -> Deferred[ToolResult]:
        paused = self._state(call).named(arguments["debug"])
        return call.runTemplate("debug_eval", {
            "oop": paused.process,
            "level": paused.level(arguments.get("frame", 1)),
            "code": arguments["code"], "limit": MAX_VALUE_CHARACTERS},
            frames=DEFAULT_FRAMES).addCallback(executed)

    @inlineCallbacks
    def debugRestart(self, call: ToolCall,
                     arguments: JsonObject) -> Steps[ToolResult]:
        state = self._state(call)
        paused = state.named(arguments["debug"])
        yield call.runTemplate("debug_restart", {
            "oop": paused.process,
            "level": paused.level(arguments.get("frame", 1))})
        result = yield self._paused(call, state, paused,
                                    Stopped(paused.process, BREAKPOINT, ""),
                                    arguments, True)
        return result

    @inlineCallbacks
    def debugStop(self, call: ToolCall,
                  arguments: JsonObject) -> Steps[ToolResult]:
        state = self._state(call)
        paused = state.named(arguments["debug"])
        gem = debuggable(call)
        yield call.runDebugged(gem.clearDebug, paused.process)
        del state.paused[paused.id]
        return ToolResult(f"Stopped debug {paused.id}: its process is "
                          "terminated.", {"stopped": paused.id})

    def debugList(self, call: ToolCall,
                  arguments: JsonObject) -> ToolResult:
        found = [{"debug": each.id, "method": each.method, "line": each.line}
                 for each in self._state(call).paused.values()]
        text = "\n".join(f"debug {each['debug']}: {each['method']} line "
                         f"{each['line']}" for each in found)
        return ToolResult(text or "No run is paused.", {"paused": found})

    @inlineCallbacks
    def _settled(self, call: ToolCall, state: SessionDebugger, key: int,
                 start: Callable[[], Deferred[Stopped | None]],
                 arguments: JsonObject,
                 stepped: bool = False) -> Steps[ToolResult]:
        """
        Make a run's call and answer where it is then: past breakpoints
        whose condition is false, finished with its answer, or paused.
        """
        while True:
            stopped = yield call.runDebugged(start)
            if stopped is None:
                state.paused.pop(key, None)
                value = yield call.runTemplate("debug_result", {
                    "key": key, "limit": MAX_VALUE_CHARACTERS})
                structured = _finished(value)
                return ToolResult(runText(structured), structured)
            paused = state.paused.setdefault(key, Paused(key, stopped.process))
            result = yield self._paused(call, state, paused, stopped,
                                        arguments, stepped)
            if result is not None:
                return result
            start = partial(debuggable(call).continueDebug, paused.process)

    @inlineCallbacks
    def _paused(self, call: ToolCall, state: SessionDebugger, paused: Paused,
                stopped: Stopped, arguments: JsonObject,
                stepped: bool) -> Steps[ToolResult | None]:
        """
        A paused run's frames, or L{None} when it stopped at breakpoints
        whose conditions are all false (the caller continues it).
        """
        found = yield call.runTemplate(
            "debug_frames", {"oop": paused.process,
                             "signalled": signalled(stopped)},
            frames=arguments.get("frames", DEFAULT_FRAMES) or 1)
        paused.top = found["top"]
        frames = shownFrames(found["stack"])
        paused.shown = len(frames)
        if frames:
            paused.method, paused.line = frames[0]["method"], frames[0]["line"]
        reason, error = stopReason(stopped, stepped, found["class"])
        if reason == "breakpoint" and frames and \
                not (yield pausesHere(call, state, paused)):
            return None
        structured = {"state": "paused", "result": None,
                      "totalCharacters": None, "debug": paused.id,
                      "reason": reason, "error": error,
                      "frames": frames[:arguments.get("frames", DEFAULT_FRAMES)],
                      "omittedFrames": found["stack"]["omitted"]}
        return ToolResult(runText(structured), structured)


def debuggable(call: ToolCall) -> IDebugSession:
    """The call's session, as one that runs debugged code."""
    return IDebugSession(call.gem)


def _finished(value: JsonObject) -> JsonObject:
    return {"state": "finished", "result": value["text"],
            "totalCharacters": value["total"], "debug": None, "reason": None,
            "error": None, "frames": [], "omittedFrames": 0}

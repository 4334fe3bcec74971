"""
The debugger's breakpoints: what C{breakpoint_set}, C{breakpoint_list} and
C{breakpoint_clear} do, and whether a run that stopped at breakpoints
pauses there (their conditions).

GemStone keeps a breakpoint in its compiled method, in the session's gem;
the session's L{SessionDebugger} remembers which ones this session set, to
list and clear them and to weigh their conditions where a run stops.
"""

from collections.abc import Callable

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import BOOLEAN, INTEGER, STRING, JsonObject
from gsmcpd.tools.base import Steps, ToolCall, ToolResult, counted, resultSchema
from gsmcpd.tools.debugruns import Breakpoint, Paused, SessionDebugger
from gsmcpd.tools.templates.outcomes import ToolError

BREAKPOINT_SCHEMA = resultSchema(
    className=STRING, meta=BOOLEAN, selector=STRING, stepPoint=INTEGER,
    line=INTEGER, condition={"type": ["string", "null"]})


class Breakpoints:
    """
    The breakpoint tools of the debugger toolset, each on the state of the
    session it is called in.
    """

    def __init__(self, state: Callable[[ToolCall], SessionDebugger]) -> None:
        """
        @param state: the debugger's state of a call's session.
        """
        self._state = state

    @inlineCallbacks
    def breakpointSet(self, call: ToolCall,
                      arguments: JsonObject) -> Steps[ToolResult]:
        line, stepPoint = arguments.get("line"), arguments.get("stepPoint")
        if (line is None) == (stepPoint is None):
            raise ToolError("invalidParams", "breakpoint_set takes a line "
                            "or a stepPoint, not both and not neither")
        state = self._state(call)
        found = yield call.runTemplate("breakpoint_set", {
            "className": arguments["className"],
            "meta": arguments.get("meta", False),
            "selector": arguments["selector"], "line": line,
            "stepPoint": stepPoint})
        set = Breakpoint(arguments["className"], arguments.get("meta", False),
                         arguments["selector"], found["stepPoint"],
                         found["line"], arguments.get("condition"),
                         found["method"])
        state.breakpoints = [each for each in state.breakpoints
                             if (each.method, each.stepPoint)
                             != (set.method, set.stepPoint)] + [set]
        return ToolResult(f"Breakpoint at {set}", {"breakpoint": set.described()})

    @inlineCallbacks
    def breakpointList(self, call: ToolCall,
                       arguments: JsonObject) -> Steps[ToolResult]:
        """
        The session's breakpoints, less those in a method compiled since
        they were set: GemStone keeps a breakpoint in the compiled method,
        and a new one has none.
        """
        state = self._state(call)
        if state.breakpoints:
            current = yield call.runTemplate("breakpoint_list", {"methods": [
                [*each.method, each.oop] for each in state.breakpoints]})
            state.breakpoints = [each for each, kept in zip(
                state.breakpoints, current, strict=True) if kept]
        found = state.breakpoints
        text = "\n".join(map(str, found)) or "No breakpoints are set."
        return ToolResult(text, {"breakpoints": [each.described()
                                                 for each in found]})

    @inlineCallbacks
    def breakpointClear(self, call: ToolCall,
                        arguments: JsonObject) -> Steps[ToolResult]:
        state = self._state(call)
        className, selector = arguments.get("className"), arguments.get("selector")
        if (className is None) != (selector is None) or (
                className is None and ("stepPoint" in arguments
                                       or "line" in arguments)):
            raise ToolError("invalidParams", "breakpoint_clear takes "
                            "className and selector (and a stepPoint or a "
                            "line), or nothing for every breakpoint")
        chosen = [each for each in state.breakpoints
                  if className is None or (
                      each.method == (className, arguments.get("meta", False),
                                      selector)
                      and arguments.get("stepPoint", each.stepPoint)
                      == each.stepPoint
                      and arguments.get("line", each.line) == each.line)]
        for method in dict.fromkeys(each.method for each in chosen):
            yield call.runTemplate("breakpoint_clear", {
                "className": method[0], "meta": method[1],
                "selector": method[2],
                "points": [each.stepPoint for each in chosen
                           if each.method == method]})
        state.breakpoints = [each for each in state.breakpoints
                             if each not in chosen]
        return ToolResult(f"Cleared {counted(len(chosen), 'breakpoint')}.",
                          {"cleared": len(chosen)})


@inlineCallbacks
def pausesHere(call: ToolCall, state: SessionDebugger,
               paused: Paused) -> Steps[bool]:
    """
    Whether a run stopped at the breakpoints of its top frame's line
    pauses: unless each has a condition, and none holds.  A condition that
    fails pauses the run, to be read there.
    """
    conditions = [each.condition for each in state.breakpoints
                  if each.condition and each.line == paused.line
                  and each.label == paused.method]
    for condition in conditions:
        try:
            value = yield call.runTemplate("debug_eval", {
                "oop": paused.process, "level": paused.top,
                "code": condition, "limit": 10})
        except ToolError:
            return True
        if value["text"] == "true":
            return True
    return not conditions

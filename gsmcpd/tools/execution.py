"""
The Execution toolset: run Smalltalk.
"""




from twisted.internet.defer import Deferred

from gsmcpd.tools.arguments import BOOLEAN, INTEGER, STRING, JsonObject
from gsmcpd.tools.base import (
    Tool,
    ToolCall,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    resultSchema,
)

MAX_VALUE_CHARACTERS = 50_000
"""A single-value result is capped here, with a marker naming the cut."""

DEFAULT_FRAMES = 30
"""How many frames of an error's stack a call brings unless told."""


def capped(text: str, total: int, limit: int = MAX_VALUE_CHARACTERS) -> str:
    """
    C{text} with the truncation marker when C{total} exceeds what it holds.
    """
    if total <= limit:
        return text
    return f"{text}...[truncated: showing {limit} of {total} characters]"


class ExecutionToolset(Toolset):
    name = "execution"
    title = "Execution"
    instructions = (
        "On a production repository avoid code that scans every object "
        "(allInstances, a loop over a large collection): it can run for "
        "hours. An error's result holds its stack, innermost frame first: "
        "read it before guessing.")

    def tools(self) -> list[Tool]:
        return [Tool(
            name="execute_code",
            title="Execute Smalltalk",
            description=(
                "Evaluate Smalltalk statements in your session and answer "
                "the last value's printString."),
            inputSchema=closedSchema(
                {"code": {"type": "string"},
                 "frames": {"type": "integer", "minimum": 0}},
                required=["code"]),
            outputSchema=resultSchema(printString=STRING,
                                      totalCharacters=INTEGER,
                                      truncated=BOOLEAN),
            annotations=annotations(readOnly=False, destructive=True),
            run=self.executeCode, taskSupport="optional")]

    def executeCode(self, call: ToolCall,
                    arguments: JsonObject) -> Deferred[ToolResult]:
        return call.runTemplate(
            "execute_code",
            {"code": arguments["code"], "limit": MAX_VALUE_CHARACTERS},
            frames=arguments.get("frames", DEFAULT_FRAMES)
        ).addCallback(executed)


def executed(value: JsonObject) -> ToolResult:
    """
    execute_code's result from its template's value.
    """
    total = value["total"]
    return ToolResult(capped(value["text"], total), {
        "printString": value["text"],
        "totalCharacters": total,
        "truncated": total > MAX_VALUE_CHARACTERS})

"""
Two tools for the tests of a tool's run: one that changes the stone
through a template, one that runs on no work session.
"""

from gsmcpd.tools.base import (
    NO_SESSION,
    Tool,
    ToolResult,
    annotations,
    closedSchema,
)


def changing(call, arguments):
    return call.runTemplate("execute_code", {"code": "x"}).addCallback(
        lambda _: ToolResult("done"))


CHANGING = Tool("change", "Change", "d", closedSchema(),
                annotations(readOnly=False), changing)
ASIDE = Tool("aside", "Aside", "d", closedSchema(),
             annotations(readOnly=False),
             lambda call, arguments: ToolResult(f"gem {call.gem}"),
             runsOn=NO_SESSION)

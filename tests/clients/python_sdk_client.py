"""
A real MCP client (the official Python SDK, mcp 2.x) driving a running
gsmcpd.  Prints one JSON line of what it saw.

Usage: python python_sdk_client.py URL basic [CODE]
         initialize, tools/list, tools/call execute_code, then session
         termination on exit
       python python_sdk_client.py URL roundtrip
         compile_method over an unread method (refused), then browse ->
         compile_method -> run_test_class -> commit on the simulated
         stone's seeded AccountTest
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

FIXED_WITHDRAW = (
    "withdraw: amount\n"
    "\tamount > balance ifTrue: [^self].\n"
    "\tbalance := balance - amount")


def outcome(result):
    """
    What a tool call answered, compactly.
    """
    answer = {"isError": result.is_error,
              "text": [block.text for block in result.content]}
    if result.structured_content is not None:
        answer["structured"] = result.structured_content
    return answer


async def basic(session, code="3 + 4"):
    initialized = await session.initialize()
    tools = await session.list_tools()
    called = await session.call_tool("execute_code", {"code": code})
    return {
        "protocolVersion": initialized.protocol_version,
        "serverInfo": initialized.server_info.model_dump(exclude_none=True),
        "tools": sorted(tool.name for tool in tools.tools),
        "withOutputSchema": sorted(tool.name for tool in tools.tools
                                   if tool.output_schema),
        "withAnnotations": sorted(tool.name for tool in tools.tools
                                  if tool.annotations is not None),
        **outcome(called),
    }


async def roundtrip(session):
    await session.initialize()
    steps = {}

    async def step(name, tool, arguments):
        steps[name] = outcome(await session.call_tool(tool, arguments))

    await step("blindWrite", "compile_method",
               {"className": "Account", "source": FIXED_WITHDRAW})
    await step("before", "run_test_class", {"className": "AccountTest"})
    await step("read", "get_method_source",
               {"className": "Account", "selector": "withdraw:"})
    await step("compile", "compile_method",
               {"className": "Account", "source": FIXED_WITHDRAW})
    await step("after", "run_test_class", {"className": "AccountTest"})
    await step("commit", "commit", {})
    return steps


async def main(url, mode, *arguments):
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            seen = await {"basic": basic, "roundtrip": roundtrip}[mode](
                session, *arguments)
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))

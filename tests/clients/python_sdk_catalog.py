"""
The official Python SDK client (mcp 2.x) reaching tools a surface does not
list, as an agent would.  Prints one JSON line of what it saw and exits 1
if a step went wrong (the line's "problems" says which).

Usage: python python_sdk_catalog.py URL full|catalog auto|legacy
         (2026: open_session) -> list the tools -> define class Gadget
         (catalog: through tool_call, the handle as tool_call's own
         argument; full: directly) -> read its definition and delete it by
         direct calls (unlisted on the catalog surface, with the handle
         among their arguments) -> (catalog: tool_get of
         compile_class_definition) -> (2026: close_session)
"""

import asyncio
import sys

from sdk_agent import agent, report

GADGET = {"className": "Gadget", "instVarNames": ["size"]}


async def flow(url, surface, mode):
    async with agent(url, mode, seen={"steps": {}, "problems": []}) as me:
        await steps(me, surface)
    return me.seen


async def steps(me, surface):
    client, seen = me.client, me.seen
    seen["listed"] = sorted(tool.name
                            for tool in (await client.list_tools()).tools)
    if me.session:
        me.expect("open", me.opened)
    if surface == "catalog":
        me.expect("define", await client.call_tool("tool_call", {
            "name": "compile_class_definition", "arguments": GADGET,
            **me.session}), says="Gadget")
    else:
        await me.call("define", "compile_class_definition", GADGET,
                      says="Gadget")
    await me.call("read", "get_class_definition", {"className": "Gadget"},
                  says="Gadget")
    if surface == "catalog":
        described = me.expect("describe", await client.call_tool(
            "tool_get", {"name": "compile_class_definition"}))
        seen["describedArguments"] = sorted(
            described["tool"]["inputSchema"]["properties"])
    await me.call("delete", "delete_class", {"className": "Gadget"})


async def main(url, surface, mode):
    try:
        seen = await flow(url, surface, mode)
    except Exception as e:
        while isinstance(e, ExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        seen = {"problems": [f"{type(e).__name__}: {e}"]}
    report(seen)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))

"""
The official Python SDK client (mcp 2.x) reaching tools a surface does not
list, as an agent would.  Prints one JSON line of what it saw and exits 1
if a step went wrong (the line's "problems" says which).

Usage: python python_sdk_catalog.py URL full|catalog auto|legacy
         list the tools -> (2026: open_session) -> define class Gadget
         (catalog: through tool_call, the handle as tool_call's own
         argument; full: directly) -> read its definition and delete it by
         direct calls (unlisted on the catalog surface, with the handle
         among their arguments) -> (catalog: tool_get of
         compile_class_definition) -> (2026: close_session)
"""

import asyncio
import json
import sys

from mcp import Client

GADGET = {"className": "Gadget", "instVarNames": ["size"]}


def text(result):
    return " ".join(block.text for block in result.content
                    if block.type == "text")


async def flow(url, surface, mode):
    seen = {"steps": {}, "problems": []}

    def expect(step, result, says=None):
        said = text(result)
        seen["steps"][step] = said[:160]
        if result.is_error or (says and says not in said):
            seen["problems"].append(f"{step}: {said[:300]}")
        return result.structured_content or {}

    async with Client(url, mode=mode) as client:
        seen["protocolVersion"] = client.protocol_version
        seen["listed"] = sorted(tool.name
                                for tool in (await client.list_tools()).tools)
        handle = {}
        if mode == "auto":
            opened = await client.call_tool("open_session", {})
            handle = {"session": expect("open", opened)["session"]}
        if surface == "catalog":
            defined = await client.call_tool("tool_call", {
                "name": "compile_class_definition", "arguments": GADGET,
                **handle})
        else:
            defined = await client.call_tool(
                "compile_class_definition", dict(GADGET, **handle))
        expect("define", defined, says="Gadget")
        read = await client.call_tool(
            "get_class_definition", {"className": "Gadget", **handle})
        expect("read", read, says="Gadget")
        if surface == "catalog":
            described = expect("describe", await client.call_tool(
                "tool_get", {"name": "compile_class_definition"}))
            seen["describedArguments"] = sorted(
                described["tool"]["inputSchema"]["properties"])
        expect("delete", await client.call_tool(
            "delete_class", {"className": "Gadget", **handle}))
        if handle:
            expect("close", await client.call_tool("close_session", handle))
    return seen


async def main(url, surface, mode):
    try:
        seen = await flow(url, surface, mode)
    except Exception as e:
        while isinstance(e, ExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        seen = {"problems": [f"{type(e).__name__}: {e}"]}
    print(json.dumps(seen))
    sys.exit(1 if seen["problems"] else 0)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))

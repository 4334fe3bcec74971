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
       python python_sdk_client.py URL progress
         run_test_class AccountTest with a progress callback
       python python_sdk_client.py URL ecosystem [auto|legacy]
         what bin/run-conformance runs: the high-level mcp.Client as a user
         would write it, tools/list, execute_code, resources/read of
         test://static-text (and of a GemStone resource if one is listed);
         exits 1 if a step went wrong (the line's "problems" says which).
         Mode "auto" (the SDK's default) probes server/discover first,
         must negotiate 2026-07-28, and opens (and closes) a GemStone
         session handle for execute_code; mode "legacy" runs the
         initialize handshake, must negotiate 2025-11-25 and DELETEs on
         exit.
"""

import asyncio
import json
import sys

from mcp import Client, ClientSession
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


async def progress(session):
    await session.initialize()
    reports = []

    async def heard(progress, total, message):
        reports.append({"progress": progress, "total": total,
                        "message": message})

    result = await session.call_tool(
        "run_test_class", {"className": "AccountTest"},
        progress_callback=heard)
    return {"reports": reports, **outcome(result)}


STATIC_TEXT = "test://static-text"  # served by the conformance fixtures


def firstText(read):
    content = read.contents[0]
    text = getattr(content, "text", None)
    return (text if text is not None
            else f"<{len(content.blob)} base64 chars>")[:80]


NEGOTIATES = {"auto": "2026-07-28", "legacy": "2025-11-25"}


async def ecosystem(url, mode="auto"):
    seen = {"client": f"mcp (Python SDK) Client, mode {mode}", "problems": []}
    try:
        async with Client(url, mode=mode) as client:
            seen["protocolVersion"] = client.protocol_version
            if client.protocol_version != NEGOTIATES[mode]:
                seen["problems"].append(
                    f"negotiated {client.protocol_version}, expected "
                    f"{NEGOTIATES[mode]}")
            seen["tools"] = len((await client.list_tools()).tools)
            # 2026-07-28 has no MCP session: a GemStone session is opened
            # as a tool, and named in each call.
            handle = {}
            if mode == "auto":
                opened = await client.call_tool("open_session", {})
                handle = {"session": opened.structured_content["session"]}
            called = await client.call_tool("execute_code",
                                            {"code": "3 + 4", **handle})
            seen.update(outcome(called))
            seen.pop("structured", None)
            if called.is_error or seen["text"][:1] != ["7"]:
                seen["problems"].append(f"execute_code 3 + 4: {seen['text']}")
            seen["reads"] = {}
            uris = [STATIC_TEXT]
            if client.server_capabilities.resources is not None:
                listed = await client.list_resources()
                seen["resources"] = [str(r.uri) for r in listed.resources]
                uris += [uri for uri in seen["resources"]
                         if not uri.startswith("test://")][:1]
            for uri in uris:
                try:
                    seen["reads"][uri] = firstText(
                        await client.read_resource(uri))
                except Exception as e:
                    seen["problems"].append(f"resources/read {uri}: {e}")
            if handle:
                closed = await client.call_tool("close_session", handle)
                if closed.is_error:
                    seen["problems"].append("close_session failed")
    except Exception as e:
        seen["problems"].append(f"{type(e).__name__}: {e}")
    print(json.dumps(seen))
    sys.exit(1 if seen["problems"] else 0)


async def main(url, mode, *arguments):
    if mode == "ecosystem":
        return await ecosystem(url, *arguments)
    modes = {"basic": basic, "roundtrip": roundtrip, "progress": progress}
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            seen = await modes[mode](session, *arguments)
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))

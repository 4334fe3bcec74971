"""
A real MCP client (the official Python SDK, mcp 2.x) calling a gsmcpd that
requires bearer tokens, over HTTPS trusting a given CA.  Prints one JSON
line of what it saw.

Usage: python python_sdk_bearer_client.py URL CA_FILE TOKEN [auto]
         initialize, tools/list, status, then a change to UserGlobals and
         commit; the token is read from the environment variable TOKEN
         names, so it never appears on a command line.  With auto, the
         client negotiates 2026-07-28 instead: tools/list, open_session,
         status through the handle, close_session
"""

import asyncio
import json
import os
import ssl
import sys

import httpx2
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client


def outcome(result):
    answer = {"isError": result.is_error,
              "text": [block.text for block in result.content]}
    if result.structured_content is not None:
        answer["structured"] = result.structured_content
    return answer


def https(caFile, tokenVariable):
    return httpx2.AsyncClient(
        verify=ssl.create_default_context(cafile=caFile),
        headers={"Authorization": f"Bearer {os.environ[tokenVariable]}"},
        timeout=60)


async def modern(url, caFile, tokenVariable):
    async with https(caFile, tokenVariable) as http:
        async with Client(streamable_http_client(url, http_client=http),
                          mode="auto") as client:
            tools = await client.list_tools()
            opened = await client.call_tool("open_session", {})
            handle = {"session": opened.structured_content["session"]}
            status = await client.call_tool("status", handle)
            closed = await client.call_tool("close_session", handle)
            return {"protocolVersion": client.protocol_version,
                    "tools": sorted(tool.name for tool in tools.tools),
                    "status": outcome(status), "close": outcome(closed)}


async def main(url, caFile, tokenVariable):
    async with https(caFile, tokenVariable) as http:
        async with streamable_http_client(url, http_client=http) as (
                read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                status = await session.call_tool("status", {})
                change = await session.call_tool(
                    "execute_code", {"code": "UserGlobals at: #Seen put: 1"}) \
                    if "execute_code" in {t.name for t in tools.tools} \
                    else None
                commit = await session.call_tool("commit", {})
    return {"tools": sorted(tool.name for tool in tools.tools),
            "status": outcome(status),
            "change": change and outcome(change),
            "commit": outcome(commit)}


if __name__ == "__main__":
    run = modern if sys.argv[4:] == ["auto"] else main
    print(json.dumps(asyncio.run(run(*sys.argv[1:4]))))

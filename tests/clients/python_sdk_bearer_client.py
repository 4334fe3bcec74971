"""
A real MCP client (the official Python SDK, mcp 2.x) calling a gsmcpd that
requires bearer tokens, over HTTPS trusting a given CA.  Prints one JSON
line of what it saw.

Usage: python python_sdk_bearer_client.py URL CA_FILE TOKEN
         initialize, tools/list, status, then a change to UserGlobals and
         commit; the token is read from the environment variable TOKEN
         names, so it never appears on a command line
"""

import asyncio
import json
import os
import ssl
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def outcome(result):
    answer = {"isError": result.is_error,
              "text": [block.text for block in result.content]}
    if result.structured_content is not None:
        answer["structured"] = result.structured_content
    return answer


async def main(url, caFile, tokenVariable):
    verify = ssl.create_default_context(cafile=caFile)
    headers = {"Authorization": f"Bearer {os.environ[tokenVariable]}"}
    async with httpx2.AsyncClient(verify=verify, headers=headers,
                                  timeout=60) as http:
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
    print(json.dumps(asyncio.run(main(*sys.argv[1:4]))))

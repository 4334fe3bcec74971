"""
A real MCP client (the official Python SDK, mcp 2.x) driving a running
gsmcpd: initialize, tools/list, tools/call execute_code, then session
termination on exit.  Prints one JSON line of what it saw.

Usage: python python_sdk_client.py URL [CODE]
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url, code):
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            initialized = await session.initialize()
            tools = await session.list_tools()
            called = await session.call_tool("execute_code", {"code": code})
    print(json.dumps({
        "protocolVersion": initialized.protocol_version,
        "serverInfo": initialized.server_info.model_dump(exclude_none=True),
        "tools": sorted(tool.name for tool in tools.tools),
        "isError": called.is_error,
        "text": [block.text for block in called.content],
        "structured": called.structured_content,
    }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2
                     else "3 + 4"))

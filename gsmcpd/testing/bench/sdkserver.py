"""
The reference MCP server: the official Python SDK (C{mcp} 2.x
C{MCPServer}), stateless, answering JSON, serving one trivial tool, run the
way the SDK runs it (C{run("streamable-http")}, which is uvicorn).

Run: C{python -m gsmcpd.testing.bench.sdkserver PORT}.
"""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("gsmcpd-bench-reference")


@server.tool()
def add(a: int, b: int) -> int:
    """
    Add two integers: the least work a tool can do.
    """
    return a + b


def main(port):
    server.run("streamable-http", host="127.0.0.1", port=port,
               json_response=True, stateless_http=True)


if __name__ == "__main__":
    main(int(sys.argv[1]))

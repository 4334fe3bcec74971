"""
Ready-to-paste configuration for the MCP clients people use with this
daemon: C{gsmcpd client-config CLIENT}.

Each snippet names this daemon's URL and, when the daemon asks for a bearer
token, sends it from an environment variable or a prompt rather than
writing a secret into a file that gets shared.
"""

import json
from collections.abc import Callable
from typing import Any

import attr

from gsmcpd.transport.tls import splitDescription

TOKEN_VARIABLE = "GSMCP_TOKEN"
"""Where the snippets read the bearer token from."""


@attr.s(frozen=True, auto_attribs=True)
class Target:
    """
    The daemon a client should reach.

    @ivar url: the MCP endpoint, e.g. C{http://127.0.0.1:8000/mcp}.
    @ivar name: what the client lists the server as.
    @ivar bearer: whether requests need C{Authorization: Bearer <token>}.
    """

    url: str
    name: str = "gemstone"
    bearer: bool = False


def endpointUrl(endpoint: str, host: str | None = None) -> str | None:
    """
    The C{/mcp} URL a local client reaches a Twisted server endpoint string
    at (C{tcp:8000:interface=127.0.0.1}, C{ssl:8443:...}); L{None} when
    the string does not say (a C{systemd:} or C{unix:} endpoint).
    """
    kind, positional, keywords = splitDescription(endpoint)
    kind = kind.lower()
    if kind not in ("tcp", "tcp6", "ssl"):
        return None
    port = keywords.get("port", positional[0] if positional else None)
    interface = keywords.get("interface")
    if port is None:
        return None
    if host is None:
        host = interface if interface not in (None, "", "0.0.0.0", "::") \
            else "localhost"
    if ":" in host:
        host = f"[{host}]"
    scheme = "https" if kind == "ssl" else "http"
    return f"{scheme}://{host}:{port}/mcp"


def _json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2) + "\n"


def claudeCode(target: Target) -> str:
    command = (f"claude mcp add --transport http {target.name} {target.url}")
    if target.bearer:
        command += (f' --header "Authorization: Bearer ${TOKEN_VARIABLE}"')
    return command + "\n"


def claudeDesktop(target: Target) -> str:
    """
    Claude Desktop speaks stdio to local servers, so the C{mcp-remote}
    bridge (run by npx) carries it to the daemon's HTTP endpoint.
    """
    args = ["-y", "mcp-remote", target.url]
    server: dict[str, Any] = {"command": "npx", "args": args}
    if target.bearer:
        # mcp-remote's own advice: no space inside an argument, so the
        # value comes from the environment.
        args += ["--header", "Authorization:${AUTH_HEADER}"]
        server["env"] = {"AUTH_HEADER": "Bearer <your token>"}
    return _json({"mcpServers": {target.name: server}})


def cursor(target: Target) -> str:
    server: dict[str, Any] = {"url": target.url}
    if target.bearer:
        server["headers"] = {
            "Authorization": f"Bearer ${{env:{TOKEN_VARIABLE}}}"}
    return _json({"mcpServers": {target.name: server}})


def vscode(target: Target) -> str:
    """
    VS Code's C{.vscode/mcp.json}; the token is prompted for once and kept
    in VS Code's secret storage.
    """
    server: dict[str, Any] = {"type": "http", "url": target.url}
    document: dict[str, Any] = {"servers": {target.name: server}}
    if target.bearer:
        server["headers"] = {
            "Authorization": f"Bearer ${{input:{target.name}-token}}"}
        document["inputs"] = [{
            "type": "promptString", "id": f"{target.name}-token",
            "description": f"Bearer token for {target.url}",
            "password": True}]
    return _json(document)


def pythonSdk(target: Target) -> str:
    """
    The official Python SDK in its default mode, which settles on MCP
    2026-07-28: a GemStone session of one's own lives behind the handle
    C{open_session} answers, passed to each call as C{session}.
    """
    if target.bearer:
        connect = (
            "    http = httpx2.AsyncClient(headers={\n"
            f'        "Authorization": f"Bearer {{os.environ[\'{TOKEN_VARIABLE}\']}}"}})\n'
            f"    transport = streamable_http_client({target.url!r}, "
            "http_client=http)\n"
            "    async with Client(transport) as client:\n")
        imports = ("import asyncio\nimport os\n\nimport httpx2\n"
                   "from mcp import Client\n"
                   "from mcp.client.streamable_http import "
                   "streamable_http_client\n")
    else:
        connect = f"    async with Client({target.url!r}) as client:\n"
        imports = "import asyncio\n\nfrom mcp import Client\n"
    return (
        f"# pip install 'mcp>=2'\n{imports}\n\n"
        "async def main():\n" + connect +
        "        # A GemStone session of your own (its transaction spans\n"
        "        # your calls) lives behind the handle open_session answers.\n"
        "        opened = await client.call_tool(\"open_session\", {})\n"
        "        session = opened.structured_content[\"session\"]\n"
        "        result = await client.call_tool(\n"
        "            \"execute_code\", {\"code\": \"3 + 4\", "
        "\"session\": session})\n"
        "        print(result.content[0].text)\n"
        "        await client.call_tool(\"close_session\", "
        "{\"session\": session})\n\n\n"
        "asyncio.run(main())\n")


TYPESCRIPT_FILE = "gemstone.js"
"""The file the TypeScript snippet says to save it as."""


def typescriptSdk(target: Target) -> str:
    """
    The TypeScript SDK's v2 line (C{@modelcontextprotocol/client}) in its
    default mode (the 2025 handshake: the MCP session holds a GemStone
    session).  The package is imported dynamically inside an async
    function, so the file runs as C{.js} whatever its package's module
    type, and as C{.mjs} or C{.cjs}.
    """
    options = ""
    if target.bearer:
        options = (", {\n    requestInit: { headers: { Authorization: "
                   f"`Bearer ${{process.env.{TOKEN_VARIABLE}}}` }} }},\n  }}")
    return (
        f"// {TYPESCRIPT_FILE}: npm install @modelcontextprotocol/client, "
        f"then node {TYPESCRIPT_FILE}\n"
        "async function main() {\n"
        "  const { Client, StreamableHTTPClientTransport } = "
        'await import("@modelcontextprotocol/client");\n'
        "  const transport = new StreamableHTTPClientTransport(\n"
        f"    new URL({json.dumps(target.url)}){options});\n"
        '  const client = new Client({ name: "my-client", version: "1.0.0" });\n'
        "  await client.connect(transport);\n"
        "  console.log((await client.listTools()).tools.map((t) => t.name).join(\" \"));\n"
        "  const result = await client.callTool(\n"
        '    { name: "execute_code", arguments: { code: "3 + 4" } });\n'
        "  console.log(result.content[0].text);\n"
        "  await transport.terminateSession();\n"
        "  await client.close();\n"
        "}\n\n"
        "main().catch((error) => {\n"
        "  console.error(error);\n"
        "  process.exitCode = 1;\n"
        "});\n")


CLIENTS: dict[str, Callable[[Target], str]] = {
    "claude-code": claudeCode,
    "claude-desktop": claudeDesktop,
    "cursor": cursor,
    "vscode": vscode,
    "python": pythonSdk,
    "typescript": typescriptSdk,
}
"""Client name (as C{gsmcpd client-config} takes it) to its snippet."""


class UnknownClient(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"no snippet for {name!r}; choose one of: "
                         + ", ".join(CLIENTS))


def snippet(client: str, target: Target) -> str:
    """
    The snippet for C{client} (a key of L{CLIENTS}) reaching C{target}.

    @raise UnknownClient: naming the clients there are snippets for.
    """
    try:
        render = CLIENTS[client]
    except KeyError:
        raise UnknownClient(client)
    return render(target)

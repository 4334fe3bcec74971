"""
One client floods the daemon with tasks: what it costs the daemon's memory,
and whether another client is still served.

Issue 23 found 3,000 C{execute_code} tasks queued on one 2026-07-28 handle
in under 3 seconds (each POST answered at once, so no connection cap
applied), the daemon's RSS from 64 to 151 MB. Here one client makes that
many attempts of a call that blocks its gem for seconds, as tasks on one
handle; the daemon takes C{--calls-per-session} of them and refuses the
rest before anything is queued. The daemon's RSS is read empty and after
the flood, and another client then opens a session of its own and times
C{3 + 4}.
"""

import collections
import json
import time

from gsmcpd.testing.bench import client

MODERN = "2026-07-28"
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


async def call(connection, name, arguments, capabilities=TASKS):
    """
    One 2026-era C{tools/call}: its HTTP status and JSON body.
    """
    headers = {"Content-Type": "application/json",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call",
               "Mcp-Name": name}
    if "session" in arguments:
        headers["Mcp-Param-Session"] = arguments["session"]
    body = json.dumps({
        "jsonrpc": "2.0", "id": next(client._ids), "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities}}})
    code, _, answer = await connection.exchange(headers, body.encode())
    return code, json.loads(answer)


def outcome(code, body):
    """
    What one attempt came to: C{task}, a result, or the error's kind.
    """
    if "error" in body:
        return (body["error"].get("data") or {}).get("kind", str(code))
    return body["result"].get("resultType", "complete")


async def openSession(port):
    connection = await client.Connection.open(port)
    _, body = await call(connection, "open_session", {}, {})
    return connection, body["result"]["structuredContent"]["session"]


async def flood(daemon, attempts, code):
    """
    C{attempts} calls of C{code} as tasks on one handle, then another
    client's C{3 + 4}: the daemon's RSS before and after, what the attempts
    came to, and the other client's answer and its time.
    """
    empty = daemon.status()
    connection, handle = await openSession(daemon.port)
    seen = collections.Counter()
    started = time.perf_counter()
    for _ in range(attempts):
        seen[outcome(*await call(connection, "execute_code", {
            "code": code, "session": handle}))] += 1
    seconds = time.perf_counter() - started
    flooded = daemon.status()
    other, otherHandle = await openSession(daemon.port)
    asked = time.perf_counter()
    _, body = await call(other, "execute_code", {
        "code": "3 + 4", "session": otherHandle}, {})
    answered = time.perf_counter() - asked
    connection.close()
    other.close()
    return {"attempts": attempts, "seconds": seconds,
            "outcomes": dict(seen), "empty": empty, "flooded": flooded,
            "rss_growth_mb": flooded["rss_mb"] - empty["rss_mb"],
            "other": {"answer": body["result"]["content"][0]["text"],
                      "ms": answered * 1e3}}

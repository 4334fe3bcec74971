"""
Closed-loop throughput with C{wrk} and C{post.lua}.

wrk runs as many threads as connections: its Lua sets headers per thread,
and each gsmcpd connection needs its own session.
"""

import asyncio
import json
import os
import shutil

from gsmcpd.testing.bench.stats import fromWrk

SCRIPT = os.path.join(os.path.dirname(__file__), "post.lua")


def findWrk():
    """
    The wrk executable.

    @raise RuntimeError: naming the package when it is not installed.
    """
    path = shutil.which("wrk")
    if path is None:
        raise RuntimeError("wrk is not installed: apt-get install wrk "
                           "(bin/bench does this)")
    return path


async def run(port, body, duration, connections, sessions=()):
    """
    POST C{body} to C{/mcp} on C{port} over C{connections} connections for
    C{duration} seconds.

    @param sessions: one MCP session id per connection, or none.
    @return: L{gsmcpd.testing.bench.stats.fromWrk}'s summary.
    """
    environ = dict(os.environ, BENCH_BODY=body.decode("utf-8"),
                   BENCH_SESSIONS=",".join(sessions))
    process = await asyncio.create_subprocess_exec(
        findWrk(), f"-t{connections}", f"-c{connections}",
        f"-d{duration}s", "-s", SCRIPT,
        f"http://127.0.0.1:{port}/mcp", env=environ,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    lines = out.decode("utf-8", "replace").strip().splitlines()
    if process.returncode != 0 or not lines or not lines[-1].startswith("{"):
        raise RuntimeError(f"wrk failed ({process.returncode}): "
                           f"{err.decode('utf-8', 'replace')}{out[-500:]!r}")
    return fromWrk(json.loads(lines[-1]))

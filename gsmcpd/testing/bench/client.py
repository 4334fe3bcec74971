"""
A small MCP client over raw HTTP/1.1 on asyncio: enough to open sessions,
hold their event streams, park them in long calls, and time single requests.

A full SDK client would cost more than the server it measures; this one
sends the bytes a 2025-11-25 client sends and reads only what it needs.
"""

import asyncio
import contextlib
import gc
import itertools
import json
import time

import attr

PROTOCOL_VERSION = "2025-11-25"
_ids = itertools.count(1)


class HTTPError(Exception):
    """
    The server answered other than 2xx.
    """


def rpc(method, params=None):
    """
    One JSON-RPC request body.
    """
    message = {"jsonrpc": "2.0", "id": next(_ids), "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode("utf-8")


def toolCall(name, arguments):
    return rpc("tools/call", {"name": name, "arguments": arguments})


class Connection:
    """
    One keep-alive connection to C{/mcp} on a loopback port.
    """

    def __init__(self, reader, writer, port):
        self._reader = reader
        self._writer = writer
        self._port = port

    @classmethod
    async def open(cls, port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer, port)

    def close(self):
        self._writer.close()

    def _send(self, method, headers, body=b""):
        lines = [f"{method} /mcp HTTP/1.1", f"Host: 127.0.0.1:{self._port}",
                 "Accept: application/json, text/event-stream",
                 f"Content-Length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
                           + body)

    async def _head(self):
        head = await self._reader.readuntil(b"\r\n\r\n")
        status, *fields = head.decode("latin-1").split("\r\n")[:-2]
        code = int(status.split()[1])
        headers = {}
        for field in fields:
            name, _, value = field.partition(":")
            headers[name.strip().lower()] = value.strip()
        return code, headers

    async def _body(self, headers):
        if "content-length" in headers:
            return await self._reader.readexactly(
                int(headers["content-length"]))
        body = b""
        while True:
            size = int((await self._reader.readline()).strip(), 16)
            chunk = await self._reader.readexactly(size + 2)
            if size == 0:
                return body
            body += chunk[:-2]

    async def post(self, body, session=None):
        """
        POST C{body}; the response's headers and body.

        @raise HTTPError: on a non-2xx answer.
        """
        headers = {"Content-Type": "application/json"}
        if session is not None:
            headers["Mcp-Session-Id"] = session
            headers["MCP-Protocol-Version"] = PROTOCOL_VERSION
        code, headers, answer = await self.exchange(headers, body)
        if not 200 <= code < 300:
            raise HTTPError(f"POST answered {code}: {answer[:200]!r}")
        return headers, answer

    async def exchange(self, headers, body):
        """
        POST C{body} with C{headers}, whatever the answer: its status,
        headers and body.
        """
        self._send("POST", headers, body)
        code, headers = await self._head()
        return code, headers, await self._body(headers)

    async def delete(self, session):
        """
        End C{session} as a client does.
        """
        self._send("DELETE", {"Mcp-Session-Id": session,
                              "MCP-Protocol-Version": PROTOCOL_VERSION})
        code, headers = await self._head()
        await self._body(headers)
        if not 200 <= code < 300:
            raise HTTPError(f"DELETE answered {code}")

    async def openStream(self, session):
        """
        Open C{session}'s event stream and leave it open, unread.
        """
        self._send("GET", {"Mcp-Session-Id": session,
                           "MCP-Protocol-Version": PROTOCOL_VERSION})
        code, _ = await self._head()
        if code != 200:
            raise HTTPError(f"GET answered {code}")


@attr.s(frozen=True)
class Opened:
    """
    A session just opened by L{initialize}, with what opening it answered,
    so a caller that times the opening or reads the server's instructions
    needs no second C{initialize}.

    @ivar session: the session id.
    @ivar connection: the L{Connection} it was opened on.
    @ivar answered: when C{initialize}'s answer arrived
        (C{time.perf_counter()}).
    @ivar answer: C{initialize}'s answer, the JSON body as received.
    """

    session = attr.ib()
    connection = attr.ib()
    answered = attr.ib()
    answer = attr.ib()


async def initialize(port):
    """
    A new session, as an SDK client opens one: C{initialize}, then
    C{notifications/initialized}.

    @return: an L{Opened}.
    """
    connection = await Connection.open(port)
    headers, answer = await connection.post(rpc("initialize", {
        "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "gsmcpd-bench", "version": "1"}}))
    answered = time.perf_counter()
    session = headers["mcp-session-id"]
    await connection.post(json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}
    ).encode("utf-8"), session)
    return Opened(session, connection, answered, answer)


async def initializeMany(port, count, concurrency=16):
    """
    C{count} new sessions, opened C{concurrency} at a time; their
    connections are closed (a session outlives its connections).
    """
    gate = asyncio.Semaphore(concurrency)

    async def one():
        async with gate:
            opened = await initialize(port)
            opened.connection.close()
            return opened.session

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def delete(port, sessions, concurrency=16):
    """
    End C{sessions} as a client does, with C{DELETE}.
    """
    gate = asyncio.Semaphore(concurrency)

    async def one(session):
        async with gate:
            connection = await Connection.open(port)
            await connection.delete(session)
            connection.close()

    await asyncio.gather(*(one(s) for s in sessions))


@contextlib.contextmanager
def collectorOff():
    """
    No garbage collection in the bench while it times requests: its own
    pauses would pass for the server's.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def probe(connection, body, session, rate, duration):
    """
    Time one request at a time at C{rate} a second for C{duration} seconds.

    Each latency runs from when the request was due, not when it was sent,
    so a stall that delays the next request counts against it too (the
    correction for coordinated omission that a closed loop lacks).

    @return: the latencies in seconds.
    """
    interval = 1.0 / rate
    start = time.perf_counter()
    latencies = []
    for n in range(int(rate * duration)):
        due = start + n * interval
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        await connection.post(body, session)
        latencies.append(time.perf_counter() - due)
    return latencies


async def sequential(connection, body, session, duration):
    """
    Requests back to back on one connection for C{duration} seconds.

    @return: the latencies in seconds.
    """
    latencies = []
    end = time.perf_counter() + duration
    while time.perf_counter() < end:
        sent = time.perf_counter()
        await connection.post(body, session)
        latencies.append(time.perf_counter() - sent)
    return latencies

"""
How answers are framed on the wire, read as raw bytes over a real socket:
what the in-memory answer corpus (L{tests.structure.test_answercorpus})
cannot see, since an HTTP client hides the framing headers.
"""

from twisted.internet import reactor
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.protocol import ClientCreator, Protocol

from gsmcpd.transport.connections import GuardedFactory
from gsmcpd.transport.http import McpSite
from tests.transport.test_web import TransportTestCase

INITIALIZE = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":'
              b'{"protocolVersion":"2025-11-25","capabilities":{},'
              b'"clientInfo":{"name":"framing","version":"1"}}}')
PING = b'{"jsonrpc":"2.0","id":2,"method":"ping"}'


class _Raw(Protocol):
    """
    Sends one request as given and keeps every byte until the server
    closes.
    """

    def __init__(self, request: bytes) -> None:
        self.request = request
        self.received = b""
        self.closed: Deferred[bytes] = Deferred()

    def connectionMade(self) -> None:
        self.transport.write(self.request)

    def dataReceived(self, data: bytes) -> None:
        self.received += data

    def connectionLost(self, reason: object) -> None:
        self.closed.callback(self.received)


def raw(method: bytes, path: bytes = b"/mcp", body: bytes | None = None,
        session: bytes | None = None,
        accept: bytes = b"application/json, text/event-stream") -> bytes:
    lines = [b"%s %s HTTP/1.1" % (method, path), b"Host: 127.0.0.1",
             b"Connection: close", b"Accept: " + accept,
             b"Content-Type: application/json"]
    if session is not None:
        lines += [b"Mcp-Session-Id: " + session,
                  b"Mcp-Protocol-Version: 2025-11-25"]
    if body is not None:
        lines.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")


def framing(headers: list[bytes]) -> list[bytes]:
    """
    The headers among C{headers} that frame the body.
    """
    return sorted(line for line in headers if line.lower().startswith(
        (b"content-length:", b"transfer-encoding:")))


class FramingTests(TransportTestCase):
    """
    Every answer but an event stream is sent whole with its length (at
    b5ef22a, the answers Klein routed, all but C{POST /mcp}, were chunked;
    the lengths are kept, see docs/operating.rst); a C{HEAD} answer has
    neither length nor chunks.
    """

    def setUp(self) -> None:
        super().setUp()
        port = reactor.listenTCP(
            0, GuardedFactory(McpSite(self.app, reactor=reactor)),
            interface="127.0.0.1")
        self.addCleanup(port.stopListening)
        self.port = port.getHost().port

    @inlineCallbacks
    def exchange(self, request: bytes):
        client = _Raw(request)
        yield ClientCreator(reactor, lambda: client).connectTCP(
            "127.0.0.1", self.port)
        answer = yield client.closed
        head, _, body = answer.partition(b"\r\n\r\n")
        status, *headers = head.split(b"\r\n")
        return status, headers, body

    @inlineCallbacks
    def test_framing(self):
        """
        Success and error answers of every verb, at known and unknown
        paths, are framed by their length.
        """
        status, headers, body = yield self.exchange(
            raw(b"POST", body=INITIALIZE))
        self.assertEqual((status, framing(headers)),
                         (b"HTTP/1.1 200 OK",
                          [b"Content-Length: %d" % len(body)]))
        session = next(line.split(b": ", 1)[1] for line in headers
                       if line.lower().startswith(b"mcp-session-id:"))
        cases = [
            (raw(b"POST", body=PING, session=session), b"200 OK"),
            (raw(b"POST", b"/%6Dcp", PING, session), b"200 OK"),
            (raw(b"POST", body=b'{"json', session=session),
             b"400 Bad Request"),
            (raw(b"POST", b"/other", PING, session), b"404 Not Found"),
            (raw(b"POST", b"/%FF", PING, session), b"400 Bad Request"),
            (raw(b"GET", accept=b"text/event-stream"), b"400 Bad Request"),
            (raw(b"DELETE"), b"400 Bad Request"),
            (raw(b"PUT", body=b""), b"405 Method Not Allowed"),
            (raw(b"OPTIONS"), b"405 Method Not Allowed"),
            (raw(b"DELETE", session=session), b"200 OK"),
            (raw(b"DELETE", session=session), b"404 Not Found"),
        ]
        for request, expected in cases:
            status, headers, body = yield self.exchange(request)
            self.assertEqual(
                (status, framing(headers)),
                (b"HTTP/1.1 " + expected, [b"Content-Length: %d" % len(body)]),
                request)
        status, headers, body = yield self.exchange(raw(b"HEAD"))
        self.assertEqual((status, framing(headers), body),
                         (b"HTTP/1.1 405 Method Not Allowed", [], b""))

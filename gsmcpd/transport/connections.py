"""
Connection-level defences: what a client can hold before it has sent a
whole request.

A request's head and body must arrive within a total deadline, however
slowly they trickle; a header line, the number of headers and a declared
body are capped and answered (C{431}, C{413}) as soon as they are known to
be too large; open connections are capped overall and per peer address.
Every refusal is a JSON-RPC error body, never an empty close.  Once a
request has arrived, its connection is the application's: a held-open event
stream or a long call is not a slow request.

Each defence uses Twisted's public knob: the deadline is the channel's
timeout (C{HTTPFactory(timeout=)}), the head's caps are L{HTTPChannel}'s
C{MAX_LENGTH}, C{maxHeaders} and C{totalHeadersSize}, and the connections
are counted by a L{WrappingFactory}.
"""

from typing import Any

import attr
from twisted.internet.interfaces import (
    IAddress,
    IDelayedCall,
    IProtocolNegotiationFactory,
    IReactorTime,
    ITransport,
)
from twisted.internet.protocol import connectionDone
from twisted.logger import Logger
from twisted.protocols.policies import ProtocolWrapper, WrappingFactory
from twisted.python.failure import Failure
from twisted.web.http import RESPONSES, HTTPChannel
from twisted.web.resource import IResource
from twisted.web.server import Site
from zope.interface import implementer

from gsmcpd.protocol.jsonrpc import INVALID_REQUEST, JsonRpcError, encode

REASONS = {**RESPONSES, 431: b"Request Header Fields Too Large"}

MAX_BODY_BYTES = 4 << 20
"""The largest request body accepted; a larger one is answered 413."""

LISTEN_BACKLOG = 1024
"""Connections the kernel queues before the reactor accepts them (capped at
C{net.core.somaxconn}).  Twisted's default of 50 overflowed when 200
clients connected at once: the kernel answered with SYN cookies and reset
some of those connections, which the daemon never saw, so never logged."""

LINGER = 1.0
"""Seconds a refused connection keeps reading (and dropping) what the client
still sends before it is closed: closing with unread data makes the kernel
reset the connection, and the client may lose the answer."""

TWISTED_BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\n\r\n"
"""All L{HTTPChannel} writes when a request is malformed, on the Twisted
range C{docs/contributing.rst} states (C{tests/transport/test_connections}
pins it)."""


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ConnectionLimits:
    """
    What one client may hold of the daemon before its request is served.

    @ivar requestDeadline: seconds from a connection's opening (or the end
        of its previous request) until the next request's head and body
        must have arrived; L{None} for no deadline.
    @ivar maxConnections: open connections, all peers together (L{None}:
        no cap).
    @ivar maxConnectionsPerPeer: open connections from one peer address
        (L{None}: no cap).
    @ivar maxHeaderLine: bytes in the request line or one header line.
    @ivar maxHeaders: header lines in one request.
    @ivar maxHeadBytes: bytes in the request line and all headers together.
    @ivar maxBodyBytes: the largest body a request may declare.
    """

    requestDeadline: float | None = 10.0
    maxConnections: int | None = 512
    maxConnectionsPerPeer: int | None = 128
    maxHeaderLine: int = 16 << 10
    maxHeaders: int = 100
    maxHeadBytes: int = 64 << 10
    maxBodyBytes: int = MAX_BODY_BYTES


DEFAULT_LIMITS = ConnectionLimits()
"""The limits a site guards with when it is given none."""


def _reached(count: int, cap: int | None) -> bool:
    return cap is not None and count >= cap


def peerKey(address: IAddress | None) -> str:
    """
    The peer a connection counts against: its IP address, or (for a Unix
    socket or anything without one) its address type.
    """
    host: str | None = getattr(address, "host", None)
    return host or type(address).__name__


def refusal(status: int, message: str) -> bytes:
    """
    The bytes of a complete C{HTTP/1.1} answer closing the connection, whose
    body is a JSON-RPC error (the request is not read, so its id is
    unknown).
    """
    body = encode(JsonRpcError(INVALID_REQUEST, message).asResponse(None))
    return b"".join([
        b"HTTP/1.1 %d %s\r\n" % (status, REASONS[status]),
        b"Content-Type: application/json\r\n",
        b"Content-Length: %d\r\n" % (len(body),),
        b"Connection: close\r\n\r\n", body])


class GuardedChannel(HTTPChannel):
    """
    An L{HTTPChannel} whose limits are answered as JSON by its L{Guard}.

    Twisted (on the range C{docs/contributing.rst} states) lacks a public
    way to answer its own limits: over C{maxHeaders} or C{totalHeadersSize}
    it writes a bare C{400} (L{TWISTED_BAD_REQUEST}, also its answer to a
    malformed request) and keeps its counts private; it has no hook for a
    C{Content-Length} over a cap; and its timeout is an idle one, moved on
    by every byte.  So this
    channel counts the head itself against the same public attributes and
    refuses first (C{431}), reads the public C{length} once a header has set
    it (C{413}), keeps its timeout from moving (C{resetTimeout}) so that it
    is a deadline (C{408}), and its guard replaces the bare C{400}.
    C{tests/transport/test_connections} pins each of these on that range.

    With no deadline (C{--http-read-timeout none}) the timeout is
    Twisted's own idle one, as the site had it before: moved on by every
    byte, and closing quietly.

    @ivar maxBodyBytes: the largest body a request may declare.
    @ivar idleTimeout: whether the timeout is Twisted's idle one rather
        than the request deadline.
    """

    log = Logger()
    maxBodyBytes = MAX_BODY_BYTES
    idleTimeout = False
    _holding = False
    _held = False
    _heard = False
    _headBytes = 0
    _headers = 0
    _host: IAddress | None = None

    def getHost(self) -> IAddress:
        # Every request asks (twisted.web's Request does, on creation), and
        # each answer was a system call; a connection's own address never
        # changes.
        if self._host is None:
            self._host = super().getHost()
        return self._host

    def resetTimeout(self) -> None:
        """
        Nothing when the timeout is a deadline: a trickled byte does not
        move the request's deadline on.
        """
        if self.idleTimeout:
            super().resetTimeout()

    def setTimeout(self, period: float | None) -> float | None:
        """
        Twisted stops the timeout as a request arrives, to start it again
        once it is answered: held instead (its timer fires unheeded), the
        connection's one timer is moved on rather than cancelled and made
        anew for every request.
        """
        if period is None and self._holding:
            self._holding, self._held = False, True
            held, self.timeOut = self.timeOut, None
            return held
        self._held = False
        return super().setTimeout(period)

    def timeoutConnection(self) -> None:
        """
        The deadline passed before a whole request arrived (a request that
        has arrived holds it until it is answered): answer C{408} if the
        client had begun one, else close.
        """
        if self._held:
            return
        if self.idleTimeout:
            super().timeoutConnection()
            return
        if self._heard or self.requests or self.clearLineBuffer():
            self._refuse(408, f"Request Timeout: a request's headers and "
                              f"body must arrive within {self.timeOut:g} "
                              f"seconds")
            return
        # A request the client sends as the close reaches it is reset by the
        # kernel: this line says when.
        self.log.debug("{peer}: closing a connection idle for {deadline} s",
                       peer=str(self.getPeer()), deadline=self.timeOut)
        self.loseConnection()

    def dataReceived(self, data: bytes) -> None:
        self._heard = True
        super().dataReceived(data)

    def lineLengthExceeded(self, line: bytes) -> None:
        self._refuse(431, f"Request Header Fields Too Large: a request or "
                          f"header line is over {self.MAX_LENGTH} bytes")

    def lineReceived(self, line: bytes) -> None:
        self._headBytes += len(line)
        if self._headBytes > self.totalHeadersSize:
            self._refuse(431, f"Request Header Fields Too Large: the request "
                              f"line and headers are over "
                              f"{self.totalHeadersSize} bytes")
            return
        super().lineReceived(line)

    def headerReceived(self, line: bytes) -> bool:
        if self._headers >= self.maxHeaders:
            self._refuse(431, f"Request Header Fields Too Large: more than "
                              f"{self.maxHeaders} headers")
            return False
        if not super().headerReceived(line):
            return False
        self._headers += 1
        if self.length is not None and self.length > self.maxBodyBytes:
            self._refuse(413, f"Payload Too Large: request bodies are capped "
                              f"at {self.maxBodyBytes} bytes")
            return False
        return True

    def allContentReceived(self) -> None:
        # What arrives from here on belongs to the next request.
        self._heard = False
        self._headBytes = self._headers = 0
        # Twisted stops the timeout first thing (setTimeout): it is held.
        self._holding = True
        super().allContentReceived()

    def _refuse(self, status: int, message: str) -> None:
        guard = self.transport
        assert isinstance(guard, Guard), "built by a GuardedFactory"
        guard.refuse(status, message)


class Guard(ProtocolWrapper):
    """
    A connection's guard, between its transport and its L{GuardedChannel}:
    it answers a refusal as JSON, drops whatever else arrives, and closes
    once the client has had time to read the answer.

    @ivar admitted: whether the connection counts against the caps (one
        refused for being over them does not).
    @ivar peer: the L{peerKey} it counts against.
    """

    log = Logger()
    factory: "GuardedFactory"
    wrappedProtocol: GuardedChannel

    def __init__(self, factory: "GuardedFactory", channel: GuardedChannel,
                 peer: str, refused: tuple[int, str] | None) -> None:
        super().__init__(factory, channel)
        self.peer = peer
        self.admitted = refused is None
        self._refusedAtOnce = refused
        self._refused = False
        self._closeAsked = False
        self._linger: IDelayedCall | None = None

    def makeConnection(self, transport: ITransport) -> None:
        super().makeConnection(transport)
        if self._refusedAtOnce is not None:
            self.refuse(*self._refusedAtOnce)

    def refuse(self, status: int, message: str) -> None:
        """
        Answer C{status} with a JSON error, drop whatever else arrives, and
        close once the client has had time to read the answer.
        """
        if self._refused:
            return
        self._refused = True
        # What the client still sends after the linger is reset by the
        # kernel: this line is why.
        self.log.info("{peer}: refused with {status} and closing: {why}",
                      peer=str(self.getPeer()), status=status, why=message)
        self.wrappedProtocol.setTimeout(None)
        self.wrappedProtocol.clearLineBuffer()
        super().write(refusal(status, message))
        self._linger = self.factory.clock.callLater(LINGER, self._close)

    def _close(self) -> None:
        if self._closeAsked:
            super().loseConnection()
        else:
            # Through the channel, which lets go of the transport first.
            self.wrappedProtocol.loseConnection()

    def dataReceived(self, data: bytes) -> None:
        if not self._refused:
            self.wrappedProtocol.dataReceived(data)

    def write(self, data: bytes) -> None:
        if data == TWISTED_BAD_REQUEST and not self._refused:
            self.refuse(400, "Bad Request: the HTTP request is malformed")
            return
        super().write(data)

    def loseConnection(self) -> None:
        if self._linger is not None and self._linger.active():
            # The refusal's linger closes it.
            self._closeAsked = True
            return
        super().loseConnection()

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        if self._linger is not None and self._linger.active():
            self._linger.cancel()
        super().connectionLost(reason)


IDLE_TIMEOUT = 60 * 60 * 12
"""Twisted's HTTPFactory idle timeout, kept when no request deadline is set."""


class GuardedSite(Site):
    """
    A L{Site} of L{GuardedChannel}s whose timeout is the request deadline:
    serve it as L{GuardedFactory}C{(site)}, which sets the other limits.
    """

    # HTTP/1.1 only: the channel itself, not Twisted's wrapper that would
    # negotiate HTTP/2 (typed as the factory's protocol).
    protocol = GuardedChannel  # type: ignore[assignment]

    def __init__(self, resource: IResource,
                 limits: ConnectionLimits = DEFAULT_LIMITS,
                 reactor: IReactorTime | None = None,
                 **kwargs: Any) -> None:
        # With no deadline, Twisted's own idle timeout (twelve hours), as
        # HTTPFactory has it by default.
        deadline = limits.requestDeadline
        super().__init__(resource, reactor=reactor,
                         timeout=IDLE_TIMEOUT if deadline is None else deadline,
                         **kwargs)
        self.limits = limits


@implementer(IProtocolNegotiationFactory)
class GuardedFactory(WrappingFactory[Guard]):
    """
    A L{GuardedSite} as served: its connections counted overall and per
    peer, and one past either cap answered C{503} and closed.  Over TLS it
    offers HTTP/1.1 by ALPN, as the site would (Twisted asks the factory
    it wraps; one that offers nothing fails a client that asks).

    @ivar open: admitted connections open, per peer key.
    @ivar openTotal: admitted connections open, all peers together.
    """

    wrappedFactory: GuardedSite

    def __init__(self, site: GuardedSite) -> None:
        super().__init__(site)
        self.limits = site.limits
        self.clock = site.reactor
        self.open: dict[str, int] = {}
        self.openTotal = 0

    def buildProtocol(self, addr: IAddress | None) -> Guard:
        channel = self.wrappedFactory.buildProtocol(addr)
        assert isinstance(channel, GuardedChannel)
        channel.MAX_LENGTH = self.limits.maxHeaderLine
        channel.maxHeaders = self.limits.maxHeaders
        channel.totalHeadersSize = self.limits.maxHeadBytes
        channel.maxBodyBytes = self.limits.maxBodyBytes
        channel.idleTimeout = self.limits.requestDeadline is None
        peer = peerKey(addr)
        return Guard(self, channel, peer, self._overCap(peer))

    def acceptableProtocols(self) -> list[bytes]:
        # GuardedChannel speaks HTTP/1.1 alone.
        return [b"http/1.1"]

    def _overCap(self, peer: str) -> tuple[int, str] | None:
        fromPeer = self.open.get(peer, 0)
        if _reached(self.openTotal, self.limits.maxConnections):
            return (503, f"Service Unavailable: the server has "
                         f"{self.openTotal} connections open, its limit")
        if _reached(fromPeer, self.limits.maxConnectionsPerPeer):
            return (503, f"Service Unavailable: {fromPeer} connections are "
                         f"open from your address, the limit per address")
        return None

    def registerProtocol(self, p: Guard) -> None:
        super().registerProtocol(p)
        if p.admitted:
            self.open[p.peer] = self.open.get(p.peer, 0) + 1
            self.openTotal += 1

    def unregisterProtocol(self, p: Guard) -> None:
        super().unregisterProtocol(p)
        if p.admitted:
            self.openTotal -= 1
            left = self.open[p.peer] - 1
            if left:
                self.open[p.peer] = left
            else:
                del self.open[p.peer]

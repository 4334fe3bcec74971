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
"""

import attr
from twisted.logger import Logger
from twisted.web.http import RESPONSES, HTTPChannel
from twisted.web.server import Site

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


def _reached(count, cap):
    return cap is not None and count >= cap


def peerKey(address):
    """
    The peer a connection counts against: its IP address, or (for a Unix
    socket or anything without one) its address type.
    """
    return getattr(address, "host", None) or type(address).__name__


def refusal(status, message):
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
    An L{HTTPChannel} that enforces L{ConnectionLimits} while a request is
    arriving and answers every refusal as JSON before it closes.

    @ivar limits: the L{ConnectionLimits} (set by L{GuardedSite}).
    @ivar refused: L{None}, or C{(status, message)} to answer as soon as the
        connection opens (the site is full).
    """

    log = Logger()
    limits = DEFAULT_LIMITS
    refused = None
    _deadline = None
    _linger = None
    _answered = False
    _heard = False
    _host = None

    def connectionMade(self):
        self.MAX_LENGTH = self.limits.maxHeaderLine
        self.maxHeaders = self.limits.maxHeaders
        self.totalHeadersSize = self.limits.maxHeadBytes
        super().connectionMade()
        if self.refused is not None:
            self._refuse(*self.refused)
        else:
            self._awaitRequest(heard=False)

    def getHost(self):
        # Every request asks (twisted.web's Request does, on creation), and
        # each answer was a system call; a connection's own address never
        # changes.
        if self._host is None:
            self._host = super().getHost()
        return self._host

    def _awaitRequest(self, heard):
        self._heard = heard
        deadline = self.limits.requestDeadline
        if deadline is None:
            return
        # The previous request's timer, moved on rather than replaced: a
        # timer cancelled and another scheduled for every request is a
        # measurable part of a request's cost.
        if self._deadline is not None and self._deadline.active():
            self._deadline.reset(deadline)
        else:
            self._deadline = self.callLater(deadline, self._deadlinePassed)

    def _stopDeadline(self):
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None

    def _deadlinePassed(self):
        self._deadline = None
        if self._handlingRequest:
            # It arrived whole: the application holds it now.
            return
        if not self._heard:
            # Nothing to answer; a request the client sends as the close
            # reaches it is reset by the kernel, so this says when.
            self.log.debug("{peer}: closing a connection idle for {deadline}"
                           " s", peer=str(self.transport.getPeer()),
                           deadline=self.limits.requestDeadline)
            self.loseConnection()
            return
        self._refuse(408, f"Request Timeout: a request's headers and body "
                          f"must arrive within {self.limits.requestDeadline:g}"
                          f" seconds")

    def _refuse(self, status, message):
        """
        Answer C{status} with a JSON error, drop whatever else arrives, and
        close once the client has had time to read the answer.
        """
        if self._answered:
            return
        self._answered = True
        # What the client still sends after the linger is reset by the
        # kernel: this line is why.
        self.log.info("{peer}: refused with {status} and closing: {why}",
                      peer=str(self.transport.getPeer()), status=status,
                      why=message)
        self._stopDeadline()
        self.setTimeout(None)
        self.clearLineBuffer()
        self.transport.write(refusal(status, message))
        self._linger = self.callLater(LINGER, self.loseConnection)

    def dataReceived(self, data):
        if self._answered:
            return
        if not self._handlingRequest:
            self._heard = True
        super().dataReceived(data)

    def lineLengthExceeded(self, line):
        self._refuse(431, f"Request Header Fields Too Large: a request or "
                          f"header line is over {self.limits.maxHeaderLine} "
                          f"bytes")

    def lineReceived(self, line):
        if self._receivedHeaderSize + len(line) > self.limits.maxHeadBytes:
            self._refuse(431, f"Request Header Fields Too Large: the request "
                              f"line and headers are over "
                              f"{self.limits.maxHeadBytes} bytes")
            return
        super().lineReceived(line)

    def headerReceived(self, line):
        if self._receivedHeaderCount >= self.limits.maxHeaders:
            self._refuse(431, f"Request Header Fields Too Large: more than "
                              f"{self.limits.maxHeaders} headers")
            return False
        if not super().headerReceived(line):
            return False
        if self.length is not None and self.length > self.limits.maxBodyBytes:
            self._refuse(413, f"Payload Too Large: request bodies are capped "
                              f"at {self.limits.maxBodyBytes} bytes")
            return False
        return True

    def requestDone(self, request):
        # Armed before the channel parses what the client pipelined, which
        # may be a whole next request.
        self._awaitRequest(heard=any(self._dataBuffer))
        super().requestDone(request)

    def _respondToBadRequestAndDisconnect(self):
        self._refuse(400, "Bad Request: the HTTP request is malformed")

    def connectionLost(self, reason):
        self._stopDeadline()
        if self._linger is not None and self._linger.active():
            self._linger.cancel()
        super().connectionLost(reason)
        if self.refused is None:
            self.site.connectionClosed(self)


class GuardedSite(Site):
    """
    A L{Site} whose connections are L{GuardedChannel}s, counted overall and
    per peer; a connection past either cap is answered C{503} and closed.

    @ivar open: admitted connections open, per peer key.
    @ivar openTotal: admitted connections open, all peers together.
    """

    protocol = GuardedChannel

    def __init__(self, resource, limits=DEFAULT_LIMITS, reactor=None,
                 **kwargs):
        if limits.requestDeadline is not None:
            # The deadline closes an idle connection long before
            # twisted.web's idle timeout would, which would otherwise cost
            # a timer cancelled and another scheduled for every request.
            kwargs.setdefault("timeout", None)
        super().__init__(resource, reactor=reactor, **kwargs)
        self.limits = limits
        self.open = {}
        self.openTotal = 0

    def buildProtocol(self, addr):
        channel = super().buildProtocol(addr)
        channel.limits = self.limits
        channel.peer = peerKey(addr)
        fromPeer = self.open.get(channel.peer, 0)
        if _reached(self.openTotal, self.limits.maxConnections):
            channel.refused = (503, f"Service Unavailable: the server has "
                                    f"{self.openTotal} connections open, its "
                                    f"limit")
        elif _reached(fromPeer, self.limits.maxConnectionsPerPeer):
            channel.refused = (503, f"Service Unavailable: {fromPeer} "
                                    f"connections are open from your "
                                    f"address, the limit per address")
        else:
            self.open[channel.peer] = fromPeer + 1
            self.openTotal += 1
        return channel

    def connectionClosed(self, channel):
        """
        Forget an admitted connection once it has closed.
        """
        self.openTotal -= 1
        left = self.open[channel.peer] - 1
        if left:
            self.open[channel.peer] = left
        else:
            del self.open[channel.peer]

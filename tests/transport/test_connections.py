"""
Tests for L{gsmcpd.transport.connections}, in memory: a L{GuardedSite}
served by its L{GuardedFactory} on a L{Clock}, its connections on
L{StringTransport}s.
"""

import json
from configparser import ConfigParser

import attr
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.logger import formatEvent, globalLogPublisher
from twisted.python.filepath import FilePath
from twisted.trial.unittest import SynchronousTestCase
from twisted.web import http
from twisted.web.http import HTTPChannel
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Site

from gsmcpd.transport.connections import (
    IDLE_TIMEOUT,
    LINGER,
    TWISTED_BAD_REQUEST,
    ConnectionLimits,
    GuardedFactory,
    GuardedSite,
)

LIMITS = ConnectionLimits(
    requestDeadline=10.0, maxConnections=4, maxConnectionsPerPeer=2,
    maxHeaderLine=1024, maxHeaders=10, maxHeadBytes=4096, maxBodyBytes=100)


class Echo(Resource):
    """
    C{POST} answers the body's length; C{GET} holds an event stream open.
    """

    isLeaf = True

    def __init__(self):
        super().__init__()
        self.streams = []
        self.bodies = []

    def render_POST(self, request):
        body = request.content.read()
        self.bodies.append(body)
        return b'{"length": %d}' % (len(body),)

    def render_GET(self, request):
        request.setHeader(b"content-type", b"text/event-stream")
        request.write(b": open\n\n")
        self.streams.append(request)
        return NOT_DONE_YET


def post(body=b"{}", extra=b""):
    return (b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n" + extra +
            b"Content-Length: %d\r\n\r\n" % (len(body),) + body)


def answer(transport):
    """
    C{(status, parsed JSON body)} of the one answer a transport carries.
    """
    head, _, body = transport.value().partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), json.loads(body)


class GuardedSiteTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.resource = Echo()
        self.site = GuardedFactory(
            GuardedSite(self.resource, LIMITS, reactor=self.clock))
        self.logged = []
        globalLogPublisher.addObserver(self.logged.append)
        self.addCleanup(globalLogPublisher.removeObserver,
                        self.logged.append)

    def connect(self, host="127.0.0.1", port=40000):
        peer = IPv4Address("TCP", host, port)
        channel = self.site.buildProtocol(peer)
        transport = StringTransport(peerAddress=peer)
        channel.makeConnection(transport)
        self.addCleanup(self.close, channel, transport)
        return channel, transport

    def close(self, channel, transport):
        if not getattr(transport, "closed", False):
            transport.closed = True
            channel.connectionLost(None)

    def lose(self, channel, transport):
        self.close(channel, transport)

    def assertRefused(self, transport, status, words):
        code, body = answer(transport)
        self.assertEqual(code, status)
        self.assertEqual(body["error"]["code"], -32600)
        self.assertIsNone(body["id"])
        self.assertIn(words, body["error"]["message"])
        [line] = [formatEvent(e) for e in self.logged
                  if "refused" in formatEvent(e)]
        self.assertIn(f"port=40000): refused with {status} and closing: ",
                      line)
        self.assertIn(words, line)
        self.assertIn(b"content-type: application/json",
                      transport.value().lower())
        self.assertFalse(transport.disconnecting)
        self.clock.advance(LINGER)
        self.assertTrue(transport.disconnecting)

    def test_trickledRequestTimesOut(self):
        """
        A request whose headers trickle in, a line at a time, is answered
        C{408} once the total deadline passes, however recent its last byte.
        """
        channel, transport = self.connect()
        channel.dataReceived(b"POST /mcp HTTP/1.1\r\n")
        for n in range(3):
            self.clock.advance(3)
            channel.dataReceived(b"X-Slow-%d: y\r\n" % (n,))
        self.assertEqual(transport.value(), b"")
        self.clock.advance(1)
        self.assertRefused(transport, 408, "within 10 seconds")

    def test_halfSentBodyTimesOut(self):
        """
        A body that stops arriving is answered C{408} at the deadline, and
        the application never sees the request.
        """
        channel, transport = self.connect()
        channel.dataReceived(post(b"0123456789")[:-5])
        self.clock.advance(10)
        self.assertRefused(transport, 408, "Request Timeout")
        self.assertEqual(self.resource.bodies, [])

    def test_silentConnectionClosed(self):
        """
        A connection that never sends a byte is closed at the deadline,
        with nothing to answer.
        """
        channel, transport = self.connect()
        self.clock.advance(10)
        self.assertTrue(transport.disconnecting)
        self.assertEqual(transport.value(), b"")

    def test_idleKeepAliveClosed(self):
        """
        After a request is answered, the deadline starts again: a
        keep-alive connection left idle is closed, with nothing to answer;
        the log says so (a request the client sends as the close reaches
        it is reset).
        """
        channel, transport = self.connect()
        self.clock.advance(9)
        channel.dataReceived(post(b"abc"))
        self.assertIn(b'{"length": 3}', transport.value())
        transport.clear()
        self.clock.advance(9)
        self.assertFalse(transport.disconnecting)
        self.clock.advance(1)
        self.assertTrue(transport.disconnecting)
        self.assertEqual(transport.value(), b"")
        self.assertEqual(
            formatEvent(self.logged[-1]), "IPv4Address(type='TCP', "
            "host='127.0.0.1', port=40000): closing a connection idle for "
            "10.0 s")

    def test_pipelinedRequestsEachHaveTheirDeadline(self):
        """
        Two requests sent at once are both answered, and the connection
        stays open for another.
        """
        channel, transport = self.connect()
        channel.dataReceived(post(b"a") + post(b"bb"))
        self.assertEqual(self.resource.bodies, [b"a", b"bb"])
        self.clock.advance(9)
        self.assertFalse(transport.disconnecting)

    def test_pipelinedHalfRequestTimesOut(self):
        """
        A request half sent behind an answered one, in the same segment or
        while the first was served, is answered C{408} at the deadline,
        which starts again once the first is answered.
        """
        for first, later in [(post(b"a") + b"POST /mcp HTTP/1.1\r\nX-", b""),
                             (post(b"a") + b"POST /m", b""),
                             (b"GET /mcp HTTP/1.1\r\nHost: x\r\n\r\n",
                              b"P")]:
            self.logged.clear()
            channel, transport = self.connect()
            channel.dataReceived(first)
            if later:
                channel.dataReceived(later)
                self.clock.advance(5)
                self.resource.streams.pop().finish()
            self.clock.advance(9)
            self.assertNotIn(b"408", transport.value())
            self.clock.advance(1)
            self.assertIn(b"HTTP/1.1 408 ", transport.value(), first)
            self.clock.advance(LINGER)
            self.assertTrue(transport.disconnecting)
            self.close(channel, transport)

    def test_oneTimerForEveryRequest(self):
        """
        A connection's one timer is its deadline, started again after each
        request: twisted.web's idle timeout is that deadline.
        """
        channel, transport = self.connect()
        for _ in range(3):
            self.clock.advance(5)
            channel.dataReceived(post(b"a"))
            [timer] = self.clock.getDelayedCalls()
            self.assertEqual(timer.getTime(), self.clock.seconds() + 10)

    def test_timerMovedOnNotMadeAnew(self):
        """
        The deadline's timer is held while a request is answered, then moved
        on: not cancelled and made anew for every request.
        """
        channel, transport = self.connect()
        [timer] = self.clock.getDelayedCalls()
        for _ in range(3):
            self.clock.advance(5)
            channel.dataReceived(post(b"a"))
            self.assertEqual(self.clock.getDelayedCalls(), [timer])
            self.assertEqual(timer.getTime(), self.clock.seconds() + 10)
        self.clock.advance(10)
        self.assertTrue(transport.disconnecting)

    def test_deadlinePassingWhileServedIsIgnored(self):
        """
        A request that arrived whole is the application's however long it
        takes; the deadline starts again once it is answered.
        """
        channel, transport = self.connect()
        channel.dataReceived(b"GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n")
        self.clock.advance(30)
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.resource.streams[0].finish()
        self.clock.advance(9)
        self.assertFalse(transport.disconnecting)
        self.clock.advance(1)
        self.assertTrue(transport.disconnecting)

    def test_eventStreamIsNotASlowRequest(self):
        """
        An event stream held open by the application is never cut by the
        request deadline nor the idle timeout.
        """
        channel, transport = self.connect()
        channel.dataReceived(b"GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n")
        self.assertEqual(len(self.resource.streams), 1)
        self.clock.advance(3600 * 24)
        self.assertFalse(transport.disconnecting)
        self.assertNotIn(b"408", transport.value())

    def test_noDeadlineKeepsTwistedsIdleTimeout(self):
        """
        With no request deadline the site keeps Twisted's own idle timeout
        (twelve hours), not none at all.
        """
        site = GuardedSite(self.resource, attr.evolve(
            LIMITS, requestDeadline=None), reactor=self.clock)
        self.assertEqual(site.timeOut, IDLE_TIMEOUT)
        self.assertEqual(IDLE_TIMEOUT, 60 * 60 * 12)

    def test_noDeadlineIdleTimeoutMovedOnByData(self):
        """
        Without a deadline, the timeout is Twisted's idle one, as it was
        before the transport's rewrite: every byte moves it on, and a
        connection idle for it is closed without a C{408}.
        """
        self.site = GuardedFactory(GuardedSite(self.resource, attr.evolve(
            LIMITS, requestDeadline=None), reactor=self.clock))
        channel, transport = self.connect()
        channel.dataReceived(b"POST /mcp HTTP/1.1\r\n")
        self.clock.advance(IDLE_TIMEOUT - 1)
        channel.dataReceived(b"Host: localhost\r\n")
        self.clock.advance(IDLE_TIMEOUT - 1)
        self.assertFalse(transport.disconnecting)
        self.clock.advance(1)
        self.assertTrue(transport.disconnecting)
        self.assertEqual(transport.value(), b"")

    def test_headerLineTooLong(self):
        """
        A header line over the cap is answered C{431} before the connection
        closes, even before its end has arrived.
        """
        channel, transport = self.connect()
        channel.dataReceived(b"POST /mcp HTTP/1.1\r\nX-Big: " + b"x" * 2000)
        self.assertRefused(transport, 431, "over 1024 bytes")

    def test_requestLineTooLong(self):
        """
        So is a request line over the cap.
        """
        channel, transport = self.connect()
        channel.dataReceived(b"GET /" + b"x" * 2000 + b" HTTP/1.1\r\n")
        self.assertRefused(transport, 431, "over 1024 bytes")

    def test_tooManyHeaders(self):
        """
        More headers than the cap is answered C{431}.
        """
        channel, transport = self.connect()
        channel.dataReceived(post(extra=b"".join(
            b"X-H%d: v\r\n" % (n,) for n in range(11))))
        self.assertRefused(transport, 431, "more than 10 headers")
        self.assertEqual(self.resource.bodies, [])

    def test_headTooLarge(self):
        """
        Headers adding up to more than the head cap are answered C{431}.
        """
        channel, transport = self.connect()
        channel.dataReceived(post(extra=b"".join(
            b"X-H%d: %s\r\n" % (n, b"v" * 1000) for n in range(5))))
        self.assertRefused(transport, 431, "over 4096 bytes")

    def test_declaredBodyTooLarge(self):
        """
        A C{Content-Length} over the body cap is answered C{413} as soon as
        the header is read; the body that follows is dropped unread.
        """
        channel, transport = self.connect()
        channel.dataReceived(
            b"POST /mcp HTTP/1.1\r\nContent-Length: 101\r\nHost: x\r\n")
        code, body = answer(transport)
        self.assertEqual(code, 413)
        self.assertIn("capped at 100 bytes", body["error"]["message"])
        channel.dataReceived(b"\r\n" + b"x" * 101)
        self.assertEqual(self.resource.bodies, [])
        self.assertRefused(transport, 413, "Payload Too Large")

    def test_bodyAtTheCap(self):
        """
        A body exactly at the cap is served.
        """
        channel, transport = self.connect()
        channel.dataReceived(post(b"x" * 100))
        self.assertIn(b'{"length": 100}', transport.value())

    def test_malformedRequestAnsweredAsJson(self):
        """
        A malformed request is answered C{400} with a JSON body, not an
        empty one.
        """
        channel, transport = self.connect()
        channel.dataReceived(b"POST /mcp HTTP/1.1\r\nno colon here\r\n\r\n")
        self.assertRefused(transport, 400, "malformed")

    def test_malformedBodyAnsweredAsJson(self):
        """
        So is a malformed chunked body, once its head was served to no one.
        """
        channel, transport = self.connect()
        channel.dataReceived(b"POST /mcp HTTP/1.1\r\nHost: x\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\nZZ\r\n")
        self.assertRefused(transport, 400, "malformed")
        self.assertEqual(self.resource.bodies, [])

    def test_alpnOffersHttp11Alone(self):
        """
        Over TLS the site is offered by ALPN as HTTP/1.1 alone, even where
        Twisted could negotiate HTTP/2 (C{h2} importable).  b5ef22a's site
        offered C{h2} then, as any L{Site} does, but its channel never spoke
        it: a client that chose it got HTTP/1.1 bytes in answer to its
        connection preface.
        """
        self.patch(http, "H2_ENABLED", True)
        self.assertEqual(Site(self.resource).acceptableProtocols(),
                         [b"h2", b"http/1.1"])
        self.assertEqual(self.site.acceptableProtocols(), [b"http/1.1"])
        channel, transport = self.connect()
        channel.dataReceived(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        self.assertTrue(transport.value().startswith(b"HTTP/1.1 "),
                        transport.value())

    def test_capPerPeer(self):
        """
        A peer past its connection cap is answered C{503}; another peer is
        still served, and a closed connection frees its place.
        """
        first = self.connect()
        self.connect()
        _, third = self.connect()
        self.assertRefused(third, 503, "from your address")
        _, other = self.connect(host="127.0.0.2")
        self.assertEqual(other.value(), b"")
        self.lose(*first)
        _, again = self.connect()
        self.assertEqual(again.value(), b"")
        self.assertEqual(self.site.open, {"127.0.0.1": 2, "127.0.0.2": 1})

    def test_capOverall(self):
        """
        Past the overall cap every peer is answered C{503}; refused
        connections do not count.
        """
        for n in range(4):
            self.connect(host=f"10.0.0.{n}")
        _, refused = self.connect(host="10.0.0.9")
        self.assertRefused(refused, 503, "its limit")
        self.assertEqual(self.site.openTotal, 4)

    def test_closingForgetsEveryConnection(self):
        """
        Once every connection has closed, whether it timed out, was refused
        or finished, nothing is counted.
        """
        connections = [self.connect() for _ in range(3)]
        connections[0][0].dataReceived(post())
        connections[1][0].dataReceived(b"POST /mcp HTTP/1.1\r\n")
        self.clock.advance(10 + LINGER)
        for connection in connections:
            self.lose(*connection)
        self.assertEqual((self.site.open, self.site.openTotal), ({}, 0))


class TwistedRelianceTests(SynchronousTestCase):
    """
    What L{gsmcpd.transport.connections} relies on where Twisted has no
    public way (its L{GuardedChannel}'s docstring lists it), pinned on the
    Twisted versions it was read in: a newer Twisted fails here first.
    """

    def test_twistedVersionRange(self):
        """
        The installed Twisted is in the range the reliances were checked
        against (docs/contributing.rst; setup.cfg's C{>=24.7,<27}); widen
        it only after checking the tests below still hold on the new
        version.
        """
        import twisted
        version = tuple(int(part) for part in
                        twisted.__version__.split(".")[:2])
        self.assertTrue((24, 7) <= version < (27, 0), twisted.__version__)
        setup = FilePath(__file__).parent().parent().parent().child(
            "setup.cfg")
        required = ConfigParser()
        required.read(setup.path)
        self.assertIn("twisted[tls]>=24.7,<27", required.get(
            "options", "install_requires").split())

    def test_malformedRequestAnsweredBare(self):
        """
        A plain L{HTTPChannel} answers a malformed request, and a head over
        its public limits, with exactly L{TWISTED_BAD_REQUEST}, the one
        write the guard replaces.
        """
        for request, limits in [
                (b"POST /mcp HTTP/1.1\r\nno colon here\r\n\r\n", {}),
                (b"GET / HTTP/1.1\r\nA: b\r\nC: d\r\n\r\n",
                 {"maxHeaders": 1}),
                (b"GET / HTTP/1.1\r\nA: b\r\n\r\n",
                 {"totalHeadersSize": 15})]:
            channel = HTTPChannel()
            for name, value in limits.items():
                setattr(channel, name, value)
            transport = StringTransport()
            channel.makeConnection(transport)
            channel.dataReceived(request)
            self.assertEqual(transport.value(), TWISTED_BAD_REQUEST)

    def test_idleTimeoutMovedOnByData(self):
        """
        A plain L{HTTPChannel}'s timeout is moved on by every byte (through
        C{resetTimeout}, which L{GuardedChannel} makes a no-op so that it
        is a deadline).
        """
        clock = Clock()
        channel = HTTPChannel()
        channel.callLater = clock.callLater
        channel.timeOut = 10
        resets = []
        channel.resetTimeout = lambda: resets.append(True)
        channel.makeConnection(StringTransport())
        channel.dataReceived(b"GET / HTTP/1.1\r\n")
        self.assertEqual(resets, [True])

    def test_declaredLengthPublic(self):
        """
        Once its C{Content-Length} header is read, a channel's public
        C{length} is the length declared.
        """
        channel = HTTPChannel()
        channel.makeConnection(StringTransport())
        channel.dataReceived(b"POST / HTTP/1.1\r\nContent-Length: 12\r\n"
                             b"Host: x\r\n")
        self.assertEqual(channel.length, 12)

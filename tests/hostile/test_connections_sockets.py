"""
L{gsmcpd.transport.connections} over real loopback sockets: a hundred
trickling and half-sent connections neither slow another client down nor
outlive the request deadline.
"""

import json
import time
from functools import partial

import treq
from twisted.internet import reactor
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.endpoints import TCP4ClientEndpoint, TCP4ServerEndpoint
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.task import LoopingCall, deferLater
from twisted.trial.unittest import TestCase
from twisted.web.client import HTTPConnectionPool
from twisted.web.resource import Resource

from gsmcpd.transport.connections import (
    ConnectionLimits,
    GuardedFactory,
    GuardedSite,
)

SLOW_CLIENTS = 100
PINGS = 200


class Ping(Resource):
    """
    Answers a JSON-RPC C{ping} the way C{/mcp} does.
    """

    isLeaf = True

    def render_POST(self, request):
        message = json.load(request.content)
        request.setHeader(b"content-type", b"application/json")
        return json.dumps({"jsonrpc": "2.0", "id": message["id"],
                           "result": {}}).encode()


class Trickler(Protocol):
    """
    A client that starts a request and never finishes it: either its
    headers trickle a byte at a time, or it sends half a body and stops.
    """

    def __init__(self, halfSent):
        self.halfSent = halfSent
        self.received = b""
        self.closed = Deferred()
        self._drip = None

    def connectionMade(self):
        if self.halfSent:
            self.transport.write(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"
                                 b"Content-Length: 100\r\n\r\n" + b"{" * 50)
            return
        self.transport.write(b"POST /mcp HTTP/1.1\r\n")
        self._drip = LoopingCall(self.transport.write, b"X")
        self._drip.start(0.5, now=False)

    def dataReceived(self, data):
        self.received += data

    def connectionLost(self, reason):
        if self._drip is not None and self._drip.running:
            self._drip.stop()
        self.closed.callback(time.monotonic())


class SlowClientTests(TestCase):

    timeout = 60

    @inlineCallbacks
    def setUp(self):
        self.site = GuardedFactory(GuardedSite(Ping(), ConnectionLimits(
            requestDeadline=10.0, maxConnectionsPerPeer=SLOW_CLIENTS + 8)))
        self.port = yield TCP4ServerEndpoint(
            reactor, 0, interface="127.0.0.1").listen(self.site)
        self.addCleanup(self.port.stopListening)
        self.url = f"http://127.0.0.1:{self.port.getHost().port}/mcp"
        self.pool = HTTPConnectionPool(reactor)
        self.addCleanup(self.allClosed)
        self.addCleanup(self.pool.closeCachedConnections)

    @inlineCallbacks
    def allClosed(self):
        for _ in range(100):
            if not self.site.openTotal:
                return
            yield deferLater(reactor, 0.05, lambda: None)

    @inlineCallbacks
    def test_slowClientsStallNobody(self):
        """
        With 100 trickling or half-sent connections open, another client's
        C{ping} p99 stays under 50 ms, and all 100 are answered C{408} and
        closed within 15 s of opening.
        """
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1",
                                      self.port.getHost().port)
        opened = time.monotonic()
        slow = []
        for n in range(SLOW_CLIENTS):
            slow.append((yield endpoint.connect(
                Factory.forProtocol(partial(Trickler, halfSent=n % 2)))))
        yield deferLater(reactor, 1, lambda: None)
        latencies = []
        for n in range(PINGS):
            started = time.monotonic()
            response = yield treq.post(
                self.url, json={"jsonrpc": "2.0", "id": n, "method": "ping"},
                pool=self.pool)
            answer = yield response.json()
            latencies.append(time.monotonic() - started)
            self.assertEqual(answer["id"], n)
            yield deferLater(reactor, 0.02, lambda: None)
        latencies.sort()
        p99 = latencies[int(len(latencies) * 0.99) - 1]
        self.assertLess(p99, 0.050, f"ping p99 {p99 * 1000:.1f} ms")
        closedAt = []
        for client in slow:
            closedAt.append((yield client.closed))
        self.assertLess(max(closedAt) - opened, 15)
        for client in slow:
            self.assertTrue(client.received.startswith(
                b"HTTP/1.1 408 "), client.received[:40])
        self.assertEqual(self.site.openTotal, 1)

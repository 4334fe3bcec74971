"""
Tests for L{gsmcpd.sessions.clients}: the live 2025 client sessions a
request's era reads by handle, and the grace a client that lost its stream
has, which its next request retracts.
(Which session a session id names:
L{tests.protocol.test_legacy_adapter.ClientNamedTests}; how the transport
answers each failure: L{tests.transport.test_gates}; the rest, through the
registry: L{tests.sessions.test_registry}.)
"""

from types import SimpleNamespace

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.sessions.clients import ClientSessions


class _Closer:

    def __init__(self):
        self.closed = []

    def close(self, handle, reason, code="other"):
        self.closed.append((handle, code))


class GraceTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.closer = _Closer()
        self.clients = ClientSessions(None, None, self.closer, self.clock,
                                      streamLossGrace=10)
        self.client = SimpleNamespace(
            handle="abc", label="abc", stream=None,
            work=SimpleNamespace(busy=False))
        self.clients.byHandle["abc"] = self.client

    def lose(self):
        stream = SimpleNamespace(endedBy="closed")
        self.client.stream = stream
        self.clients._streamLost(self.client, stream)

    def test_closedOnceTheGraceIsOver(self):
        self.lose()
        self.clock.advance(10)
        self.assertEqual(self.closer.closed, [("abc", "stream_lost")])

    def test_retracted(self):
        """
        A request of the client (its activity, counted by the registry)
        retracts the verdict pending on its lost stream.
        """
        self.lose()
        self.clients.retract("abc")
        self.clock.advance(10)
        self.assertEqual(self.closer.closed, [])
        self.assertEqual(self.clock.getDelayedCalls(), [])

"""
Per-session memory a client can grow (issue 11, item 7): subscriptions are
capped in count and URI length and accept only URIs the server resolves.
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.protocol.handlers import MAX_SUBSCRIPTIONS, MAX_URI_LENGTH
from tests.protocol.test_surface import SurfaceTestCase

WATCHED = "test://watched-resource"


class SubscriptionCapTests(SurfaceTestCase):

    @inlineCallbacks
    def test_unresolvableRefused(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "resources/subscribe",
                              uri="test://nothing-here")
        self.assertEqual(body["error"]["code"], -32002)
        self.assertEqual(self.sessions.clients.get(handle).subscriptions,
                         set())

    @inlineCallbacks
    def test_longUriRefused(self):
        handle, _ = yield self.initialize()
        body = yield self.rpc(handle, "resources/subscribe",
                              uri="test://" + "x" * MAX_URI_LENGTH)
        self.assertEqual(body["error"]["code"], -32602)

    @inlineCallbacks
    def test_countCapped(self):
        handle, _ = yield self.initialize()
        session = self.sessions.clients.get(handle)
        session.subscriptions.update(
            f"test://filler/{n}" for n in range(MAX_SUBSCRIPTIONS - 1))
        body = yield self.rpc(handle, "resources/subscribe", uri=WATCHED)
        self.assertEqual(body["result"], {})
        again = yield self.rpc(handle, "resources/subscribe", uri=WATCHED)
        self.assertEqual(again["result"], {})
        session.subscriptions.discard(WATCHED)
        session.subscriptions.add("test://filler/last")
        body = yield self.rpc(handle, "resources/subscribe", uri=WATCHED)
        self.assertEqual(body["error"]["code"], -32602)
        self.assertEqual(len(session.subscriptions), MAX_SUBSCRIPTIONS)

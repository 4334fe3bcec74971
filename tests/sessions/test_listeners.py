"""
Tests for L{gsmcpd.sessions.listeners}: change notices to listeners of
either era; 2025 sessions hear, on their own streams, of the resources they
subscribed to.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern.listen import Listener
from gsmcpd.sessions.listeners import (
    ChangeNotices,
    Filter,
    SessionListeners,
    Subscriber,
)
from tests.builders import clientSession
from tests.fakes import FakeGem

SOURCE = "gemstone://class/Foo/source"
OFFERED = Filter(True, True, False, frozenset({"*"}))


class FilterTests(SynchronousTestCase):

    def test_granted(self):
        """
        A listener is granted what it asked less what the server does not
        announce.
        """
        asked = Filter(True, True, True, frozenset({SOURCE}))
        self.assertEqual(asked.granted(OFFERED),
                         Filter(True, True, False, frozenset({SOURCE})))
        self.assertEqual(asked.granted(Filter()), Filter())

    def test_wire(self):
        self.assertEqual(
            Filter(True, False, False, frozenset({"b", "a"})).wire(),
            {"toolsListChanged": True, "resourceSubscriptions": ["a", "b"]})


class ChangeNoticesTests(SynchronousTestCase):

    def setUp(self):
        self.notices = ChangeNotices()
        self.heard = {}

    def listener(self, name, filter, subscriptionId=None):
        heard = self.heard.setdefault(name, [])
        subscriber = Listener(
            filter, lambda method, params: heard.append((method, params)),
            subscriptionId)
        self.notices.add(subscriber)
        return subscriber

    def test_acknowledgedFirst(self):
        """
        A 2026 listener's first notice says what it will hear of; every
        notice carries its listen request's id.
        """
        listener = self.listener("modern", Filter(
            resourceSubscriptions=frozenset({SOURCE})), 7)
        listener.acknowledge()
        self.notices.resourcesUpdated([SOURCE])
        meta = {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}
        self.assertEqual(self.heard["modern"], [
            ("notifications/subscriptions/acknowledged",
             dict(meta, notifications={"resourceSubscriptions": [SOURCE]})),
            ("notifications/resources/updated", dict(meta, uri=SOURCE))])

    def test_filtered(self):
        """
        Nobody hears of a change they did not ask for.
        """
        self.listener("prompts", Filter(promptsListChanged=True), 1)
        self.listener("source", Filter(
            resourceSubscriptions=frozenset({SOURCE})), 2)
        self.notices.resourcesUpdated([SOURCE])
        self.assertEqual(self.heard["prompts"], [])
        self.assertEqual([m for m, _ in self.heard["source"]],
                         ["notifications/resources/updated"])

    def test_resourceUpdates(self):
        """
        Each updated URI reaches its subscribers once, untagged for a 2025
        session, whose subscriptions are read at each change.
        """
        subscriptions = set()
        heard = []
        self.notices.add(Subscriber(
            lambda: Filter(True, True, True, frozenset(subscriptions)),
            lambda method, params: heard.append((method, params))))
        self.notices.resourcesUpdated([SOURCE])
        subscriptions.add(SOURCE)
        self.notices.resourcesUpdated(
            [SOURCE, SOURCE, "gemstone://class/Bar/source"])
        self.assertEqual(heard, [("notifications/resources/updated",
                                  {"uri": SOURCE})])

    def test_listenStreams(self):
        """
        The 2026 listen streams are counted; a 2025 session's subscriber
        (no subscription id) is not.
        """
        self.listener("modern", Filter(toolsListChanged=True), 7)
        self.notices.add(Subscriber(Filter, lambda method, params: None))
        self.assertEqual((len(self.notices), self.notices.listenStreams()),
                         (2, 1))

    def test_remove(self):
        listener = self.listener("gone", Filter(
            resourceSubscriptions=frozenset({SOURCE})), 1)
        self.notices.remove(listener)
        self.notices.remove(listener)
        self.notices.resourcesUpdated([SOURCE])
        self.assertEqual((self.heard["gone"], len(self.notices)), ([], 0))


class SessionListenersTests(SynchronousTestCase):

    def setUp(self):
        self.notices = ChangeNotices()
        self.listeners = SessionListeners(self.notices)
        self.client = clientSession(FakeGem())
        self.listeners.add(self.client)

    def test_subscriptionsReadAtEachChange(self):
        """
        A session hears of a resource once it subscribed, untagged; its
        subscriptions are read at each change.
        """
        self.notices.resourcesUpdated([SOURCE])
        self.client.subscribe(SOURCE)
        self.notices.resourcesUpdated([SOURCE])
        self.assertEqual(len(self.client.outbox), 1)
        self.assertEqual(self.client.outbox.take(), {
            "jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": SOURCE}})
        self.assertEqual(self.notices.listenStreams(), 0)

    def test_removedByTheClosedWorkSession(self):
        """
        The registry hands over the work session it closes: its client's
        listener goes with it.
        """
        self.listeners.remove(self.client.work)
        self.listeners.remove(self.client.work)
        self.assertEqual(len(self.notices), 0)

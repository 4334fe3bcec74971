"""
Tests for L{gsmcpd.protocol.eras.legacy.listeners}: 2025 sessions hear,
on their own streams, of the resources they subscribed to.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.legacy.listeners import SessionListeners
from gsmcpd.protocol.notices import ChangeNotices
from tests.builders import clientSession
from tests.fakes import FakeGem

SOURCE = "gemstone://class/Foo/source"


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

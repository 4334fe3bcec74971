"""
Tests for L{gsmcpd.daemon.agent}: the line HAProxy's agent check reads.
"""

from twisted.internet.testing import StringTransport
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.admin import Health
from gsmcpd.daemon.agent import AgentFactory, Capacity


class Gone:
    unreachable = "the stone cannot be reached: its login was refused"


class Failed:
    failure = "/var/log/gsmcpd/audit.log: No space left on device (ENOSPC)"


class CapacityTests(TestCase):

    def setUp(self):
        self.health = Health()
        self.health.serving = True
        self.used = 0
        self.limit = 10
        self.capacity = Capacity(self.health, lambda: self.used,
                                 lambda: self.limit)

    def test_weightIsTheFreeShare(self):
        self.used = 4
        self.assertEqual(self.capacity.line(), b"up ready 60%\n")

    def test_nearlyFullIsNeverZero(self):
        self.limit, self.used = 1000, 999
        self.assertEqual(self.capacity.line(), b"up ready 1%\n")

    def test_fullDrains(self):
        """
        A full daemon takes no new session; its sessions still reach it.
        """
        self.used = 10
        self.assertEqual(self.capacity.line(), b"up drain\n")
        self.used = 12
        self.assertEqual(self.capacity.line(), b"up drain\n")

    def test_uncapped(self):
        self.limit = None
        self.assertEqual(self.capacity.line(), b"up ready 100%\n")

    def test_stoppingDrains(self):
        self.health.stopping = True
        self.assertEqual(self.capacity.line(), b"drain\n")

    def test_unreachableStoneIsDown(self):
        self.health.controlSession = Gone()
        self.assertEqual(self.capacity.line(), b"down\n")

    def test_unwritableAuditIsDown(self):
        """
        A daemon that runs no call while its audit trail cannot be written
        is C{down}, not C{drain}: its clients are better sent elsewhere
        than kept on it by the stick table.
        """
        self.health.audit = Failed()
        self.assertEqual(self.capacity.line(), b"down\n")

    def test_startingIsDown(self):
        self.health.serving = False
        self.assertEqual(self.capacity.line(), b"down\n")


class AgentAnswerTests(TestCase):

    def test_oneLineThenClose(self):
        health = Health()
        health.serving = True
        protocol = AgentFactory(Capacity(health, lambda: 1,
                                         lambda: 4)).buildProtocol(None)
        transport = StringTransport()
        protocol.makeConnection(transport)
        self.assertEqual(transport.value(), b"up ready 75%\n")
        self.assertTrue(transport.disconnecting)

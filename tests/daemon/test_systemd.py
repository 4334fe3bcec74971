"""
Tests for L{gsmcpd.daemon.systemd}: the sd_notify datagrams.
"""

import os
import socket
import tempfile

from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from gsmcpd.daemon.systemd import SystemdNotifier


class ListeningSocket:
    """
    A datagram socket standing in for systemd's notification socket.
    """

    def __init__(self, testCase, abstract=False):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        testCase.addCleanup(self.socket.close)
        if abstract:
            name = f"gsmcpd-test-{os.getpid()}-{id(self)}"
            self.socket.bind("\0" + name)
            self.environName = "@" + name
        else:
            directory = tempfile.mkdtemp()
            path = os.path.join(directory, "notify")
            self.socket.bind(path)
            testCase.addCleanup(os.rmdir, directory)
            testCase.addCleanup(os.unlink, path)
            self.environName = path
        self.socket.setblocking(False)

    def datagrams(self):
        received = []
        while True:
            try:
                received.append(self.socket.recv(4096).decode("utf-8"))
            except BlockingIOError:
                return received


class SystemdNotifierTests(TestCase):

    def test_withoutNotifySocketDoesNothing(self):
        notifier = SystemdNotifier({})
        self.assertFalse(notifier.ready("serving"))
        notifier.startWatchdog(Clock())
        notifier.stopWatchdog()

    def test_readySendsOneDatagram(self):
        listener = ListeningSocket(self)
        notifier = SystemdNotifier({"NOTIFY_SOCKET": listener.environName})
        self.assertTrue(notifier.ready("0 sessions"))
        self.assertEqual(listener.datagrams(), ["READY=1\nSTATUS=0 sessions"])

    def test_abstractNamespace(self):
        listener = ListeningSocket(self, abstract=True)
        notifier = SystemdNotifier({"NOTIFY_SOCKET": listener.environName})
        notifier.stopping("logging 2 sessions out")
        notifier.status("3 sessions")
        self.assertEqual(listener.datagrams(),
                         ["STOPPING=1\nSTATUS=logging 2 sessions out",
                          "STATUS=3 sessions"])

    def test_unreachableSocketIsLoggedNotRaised(self):
        notifier = SystemdNotifier({"NOTIFY_SOCKET": "/nonexistent/notify"})
        self.assertFalse(notifier.status("x"))
        self.assertEqual(len(self.flushLoggedErrors()), 0)

    def test_watchdogAtHalfTheInterval(self):
        listener = ListeningSocket(self)
        clock = Clock()
        notifier = SystemdNotifier({"NOTIFY_SOCKET": listener.environName,
                                    "WATCHDOG_USEC": "10000000",
                                    "WATCHDOG_PID": str(os.getpid())})
        notifier.startWatchdog(clock)
        clock.advance(5)
        clock.advance(5)
        notifier.stopWatchdog()
        clock.advance(5)
        self.assertEqual(listener.datagrams(), ["WATCHDOG=1"] * 3)

    def test_watchdogForAnotherProcessIsIgnored(self):
        listener = ListeningSocket(self)
        clock = Clock()
        notifier = SystemdNotifier({"NOTIFY_SOCKET": listener.environName,
                                    "WATCHDOG_USEC": "10000000",
                                    "WATCHDOG_PID": "1"})
        notifier.startWatchdog(clock)
        clock.advance(10)
        self.assertEqual(listener.datagrams(), [])

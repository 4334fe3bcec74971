"""
Who can reach the daemon, and what is refused for it.
"""

import socket

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.transport.exposure import ExposureError, Listening


class ListeningTests(SynchronousTestCase):
    def test_loopback(self):
        for description in ("tcp:8000:interface=127.0.0.1",
                            r"tcp6:8000:interface=\:\:1",
                            "tcp:8000:interface=localhost",
                            "ssl:8443:privateKey=k:interface=127.0.0.2",
                            "unix:/run/gsmcpd.sock"):
            self.assertTrue(Listening.parse(description).local, description)

    def test_everyInterfaceByDefault(self):
        for description in ("tcp:8000", "ssl:8443:privateKey=k",
                            "tcp6:8000", "tcp:8000:interface=0.0.0.0",
                            "tcp:8000:interface=192.0.2.7"):
            self.assertFalse(Listening.parse(description).local,
                             description)

    def test_unauthenticatedRemoteRefused(self):
        error = self.assertRaises(
            ExposureError, Listening.parse(
                "tcp:8000:interface=0.0.0.0").check, False, False)
        self.assertIn("--allow-unauthenticated-remote", str(error))
        self.assertNotIn("\n", str(error))

    def test_unauthenticatedRemoteAllowed(self):
        Listening.parse("tcp:8000").check(False, True)

    def test_authenticatedPlaintextRemoteRefused(self):
        for allowed in (False, True):
            error = self.assertRaises(ExposureError, Listening.parse(
                "tcp:8000").check, True, allowed)
            self.assertIn("ssl:", str(error))

    def test_authenticatedTls(self):
        Listening.parse("ssl:8443:privateKey=k").check(True, False)

    def test_loopbackAnything(self):
        Listening.parse("tcp:8000:interface=127.0.0.1").check(True, False)
        Listening.parse("tcp:8000:interface=127.0.0.1").check(False, False)

    def test_clientUrl(self):
        self.assertEqual(Listening.parse(
            "tcp:0:interface=127.0.0.1").clientUrl(8123),
            "http://127.0.0.1:8123/mcp")
        self.assertEqual(Listening.parse(
            r"ssl:8443:privateKey=k:interface=\:\:1").clientUrl(8443),
            "https://[::1]:8443/mcp")
        self.assertEqual(Listening.parse("ssl:8443:privateKey=k").clientUrl(
            8443), f"https://{socket.getfqdn()}:8443/mcp")
        self.assertEqual(Listening.parse("ssl:8443:privateKey=k").clientUrl(
            8443, "https://gs.example.com/mcp"),
            "https://gs.example.com/mcp")

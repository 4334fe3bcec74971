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

    def test_kindWithoutRegardToCase(self):
        """
        Twisted listens on every interface for C{TCP6:8123} as for
        C{tcp6:8123}, so it is judged the same.
        """
        for description in ("TCP6:8123", "Tcp:8000", "SSL:8443:privateKey=k"):
            listening = Listening.parse(description)
            self.assertFalse(listening.local, description)
            self.assertRaises(ExposureError, listening.check, False, False)
        self.assertTrue(Listening.parse("SSL:8443:privateKey=k").tls)
        self.assertTrue(Listening.parse("UNIX:/run/gsmcpd.sock").local)

    def test_unknownKindRemote(self):
        """
        Only unix sockets and systemd's sockets count as local; a kind this
        cannot judge is refused without authentication.
        """
        self.assertTrue(Listening.parse("systemd:domain=INET:index=0").local)
        for description in ("le:/certs:tcp:443", "onion:80",
                            "txws:tcp:8000"):
            listening = Listening.parse(description)
            self.assertFalse(listening.local, description)
            error = self.assertRaises(ExposureError, listening.check, False,
                                      False)
            self.assertIn("endpoint, which may listen beyond", str(error))
            listening.check(False, True)

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

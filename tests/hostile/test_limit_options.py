"""
The connection limits and Host names as options (issue 11, items 4 and
11): their defaults, their variables, and the contradictions refused.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.transport.connections import ConnectionLimits
from tests.daemon import test_options


class LimitOptionTests(SynchronousTestCase):

    configure = test_options.ConfigTests.configure
    refusal = test_options.ConfigTests.refusal

    def test_defaults(self):
        config = self.configure(["--simulated"])
        self.assertEqual(config.connectionLimits, ConnectionLimits(
            requestDeadline=10.0, maxConnections=512,
            maxConnectionsPerPeer=128))
        self.assertEqual(config.allowedHosts, ())

    def test_given(self):
        config = self.configure(
            ["--simulated", "--http-read-timeout", "none",
             "--max-connections", "none", "--allowed-host", "mcp.example"],
            {"GSMCP_MAX_CONNECTIONS_PER_PEER": "40",
             "GSMCP_ALLOWED_HOSTS": "ignored.example"})
        self.assertEqual(config.connectionLimits, ConnectionLimits(
            requestDeadline=None, maxConnections=None,
            maxConnectionsPerPeer=40))
        self.assertEqual(config.allowedHosts, ("mcp.example",))

    def test_noRoomForTheSessions(self):
        """
        A connection cap under two per session cannot serve --max-sessions
        clients, each with a stream and a call open.
        """
        message = self.refusal(["--simulated", "--max-sessions", "10",
                                "--max-connections-per-peer", "19"])
        self.assertIn("--max-connections-per-peer 19", message)
        self.assertIn("at least 20", message)

"""
Tests for L{gsmcpd.transport.hosts}: which origins may call, and which
names the daemon answers to (issue 11, item 11).
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.transport.hosts import HostPolicy, OriginPolicy, hostName


class OriginPolicyTests(SynchronousTestCase):

    def test_loopbackOnAnyPortByDefault(self):
        policy = OriginPolicy.fromOptions(())
        for origin in ("http://localhost:3000", "https://127.0.0.1",
                       "http://[::1]:8080", "http://LOCALHOST:1"):
            self.assertTrue(policy.allows(origin), origin)
        for origin in ("http://evil.example", "null", "", "localhost",
                       "http://localhost.evil.example:3000", "http://[::1"):
            self.assertFalse(policy.allows(origin), origin)

    def test_bareHostAnyPort(self):
        policy = OriginPolicy.fromOptions(("app.example",))
        self.assertTrue(policy.allows("https://app.example:9999"))
        self.assertTrue(policy.allows("http://localhost:1234"))

    def test_fullOriginPinsSchemeAndPort(self):
        policy = OriginPolicy.fromOptions(("https://app.example:8443",))
        self.assertTrue(policy.allows("https://app.example:8443"))
        self.assertFalse(policy.allows("https://app.example"))
        self.assertFalse(policy.allows("http://app.example:8443"))

    def test_defaultPortsAreTheSame(self):
        policy = OriginPolicy.fromOptions(("https://app.example",))
        self.assertTrue(policy.allows("https://app.example:443"))

    def test_pinnedLoopbackPort(self):
        """
        Naming a loopback origin with its port pins loopback to it: other
        local pages (another user's dev server) are refused.
        """
        policy = OriginPolicy.fromOptions(("http://localhost:3000",))
        self.assertTrue(policy.allows("http://localhost:3000"))
        self.assertFalse(policy.allows("http://localhost:3001"))
        self.assertFalse(policy.allows("http://127.0.0.1:3000"))


class HostPolicyTests(SynchronousTestCase):

    def test_loopbackNames(self):
        policy = HostPolicy.fromOptions(())
        for header in ("localhost:8000", "127.0.0.1", "[::1]:8000",
                       "LocalHost"):
            self.assertTrue(policy.allows(header, "127.0.0.1"), header)

    def test_reboundNameRefused(self):
        """
        DNS rebinding: the attacker's own name, resolving to loopback.
        """
        policy = HostPolicy.fromOptions(())
        for header in ("attacker.example:8000", "localhost.attacker.example",
                       "evil@localhost", "localhost/x", "", "[::1"):
            self.assertFalse(policy.allows(header, "127.0.0.1"), header)

    def test_localAddress(self):
        """
        The address the connection reached is a name it may use.
        """
        policy = HostPolicy.fromOptions(())
        self.assertTrue(policy.allows("10.1.2.3:8000", "10.1.2.3"))
        self.assertFalse(policy.allows("10.1.2.4:8000", "10.1.2.3"))

    def test_allowedHost(self):
        policy = HostPolicy.fromOptions(("mcp.example",))
        self.assertTrue(policy.allows("MCP.example:443", "10.1.2.3"))

    def test_noHostHeader(self):
        self.assertTrue(HostPolicy.fromOptions(()).allows(None, "127.0.0.1"))

    def test_hostName(self):
        self.assertEqual(hostName("[::1]:80"), "::1")
        self.assertEqual(hostName("A.example"), "a.example")
        self.assertIsNone(hostName("a b"))

"""
Tests for L{gsmcpd.transport.gates}: each gate's refusal, on a request
built in memory.
"""

from twisted.trial.unittest import TestCase
from twisted.web.test.requesthelper import DummyRequest

from gsmcpd.transport.gates import (
    Refusal, allowedHosts, checkHeaders, namedSession, originHost)


def requestWith(**headers):
    request = DummyRequest([b"mcp"])
    for name, value in headers.items():
        request.requestHeaders.setRawHeaders(name.replace("_", "-"),
                                             [value.encode("latin-1")])
    return request


class HeaderGateTests(TestCase):

    hosts = allowedHosts(["https://app.example"])

    def test_loopbackAndConfiguredOrigins(self):
        self.assertEqual(self.hosts,
                         {"localhost", "127.0.0.1", "::1", "app.example"})
        for origin in ("http://localhost:3000", "https://app.example"):
            checkHeaders(requestWith(origin=origin), self.hosts)

    def test_foreignOrigin403(self):
        refusal = self.assertRaises(
            Refusal, checkHeaders, requestWith(origin="https://evil.example"),
            self.hosts)
        self.assertEqual((refusal.status, refusal.code), (403, -32600))

    def test_unsupportedVersion400(self):
        """
        A handshake-era revision this server does not negotiate is refused
        here; any other version is the 2026 era's to answer (with -32022).
        """
        refusal = self.assertRaises(
            Refusal, checkHeaders,
            requestWith(mcp_protocol_version="2024-11-05"), self.hosts)
        self.assertEqual(refusal.status, 400)
        self.assertIn("2025-11-25", refusal.message)
        checkHeaders(requestWith(mcp_protocol_version="1999-01-01"),
                     self.hosts)

    def test_toleratedVersion(self):
        checkHeaders(requestWith(mcp_protocol_version="2025-03-26"),
                     self.hosts)

    def test_originHostOfNonsense(self):
        self.assertIsNone(originHost("http://[bad"))


class SessionGateTests(TestCase):

    sessions = {"abc": "the session"}

    def test_named(self):
        self.assertEqual(namedSession(requestWith(mcp_session_id="abc"),
                                      self.sessions), "the session")

    def test_missingHeader400(self):
        refusal = self.assertRaises(Refusal, namedSession, requestWith(),
                                    self.sessions)
        self.assertEqual(refusal.status, 400)

    def test_unknownSession404(self):
        refusal = self.assertRaises(
            Refusal, namedSession, requestWith(mcp_session_id="zzz"),
            self.sessions)
        self.assertEqual(refusal.status, 404)

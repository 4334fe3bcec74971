"""
Tests for L{gsmcpd.transport.gates}: each gate's refusal, on a request
built in memory.
"""

import attr
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import TestCase
from twisted.web.test.requesthelper import DummyRequest

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.eras.legacy.adapter import clientNamed
from gsmcpd.sessions.clients import ClientSessions
from gsmcpd.transport.gates import Refusal, checkHeaders
from gsmcpd.transport.gates import namedSession as gatedSession
from gsmcpd.transport.hosts import HostPolicy, OriginPolicy


def requestWith(**headers):
    request = DummyRequest([b"mcp"])
    for name, value in headers.items():
        request.requestHeaders.setRawHeaders(name.replace("_", "-"),
                                             [value.encode("latin-1")])
    return request


class HeaderGateTests(TestCase):

    origins = OriginPolicy.fromOptions(["https://app.example"])
    hosts = HostPolicy.fromOptions(["mcp.example"])

    def check(self, request):
        return checkHeaders(request, self.origins, self.hosts)

    def test_versionReadOnceAndHandedOn(self):
        """
        The gates answer each C{MCP-Protocol-Version} value as sent (the
        one reading of it, which the eras are told), or none without the
        header: an empty header is not an absent one, and a repeated one
        is the 2026 envelope's to refuse.
        """
        for sent, read in [(None, ()), ("", ("",)),
                           (" 2025-11-25 ", (" 2025-11-25 ",)),
                           ("2026-07-28", ("2026-07-28",))]:
            request = requestWith() if sent is None else requestWith(
                mcp_protocol_version=sent)
            self.assertEqual(self.check(request), read, sent)
        request = requestWith()
        request.requestHeaders.setRawHeaders(
            b"mcp-protocol-version", [b"2026-07-28", b"2025-11-25"])
        self.assertEqual(self.check(request), ("2026-07-28", "2025-11-25"))

    def test_loopbackAndConfiguredOrigins(self):
        for origin in ("http://localhost:3000", "https://app.example"):
            self.check(requestWith(origin=origin))

    def test_foreignOrigin403(self):
        refusal = self.assertRaises(
            Refusal, self.check, requestWith(origin="https://evil.example"))
        self.assertEqual((refusal.status, refusal.code), (403, -32600))

    def test_loopbackAndConfiguredHosts(self):
        for host in ("localhost:8000", "mcp.example", "127.0.0.1"):
            self.check(requestWith(host=host))

    def test_foreignHost421(self):
        refusal = self.assertRaises(
            Refusal, self.check, requestWith(host="attacker.example:8000"))
        self.assertEqual((refusal.status, refusal.code), (421, -32600))
        self.assertIn("--allowed-host", refusal.message)

    def test_unsupportedVersion400(self):
        """
        A handshake-era revision this server does not negotiate is refused
        here; any other version is the 2026 era's to answer (with -32022).
        """
        refusal = self.assertRaises(
            Refusal, self.check,
            requestWith(mcp_protocol_version="2024-11-05"))
        self.assertEqual(refusal.status, 400)
        self.assertIn("2025-11-25", refusal.message)
        self.check(requestWith(mcp_protocol_version="1999-01-01"))

    def test_toleratedVersion(self):
        self.check(requestWith(mcp_protocol_version="2025-03-26"))


@attr.s
class _Work:
    handle = attr.ib()
    principal = attr.ib(default=None)


@attr.s
class _Session:
    handle = attr.ib()
    principal = attr.ib(default=None)

    @property
    def work(self):
        return _Work(self.handle, self.principal)

    @property
    def label(self):
        return self.handle[:8]


def principal(identity):
    return Principal(identity, identity, frozenset(), 0.0)


class _Registry:
    """
    The 2025 client sessions, and the 2026 handles beside them.
    """

    def __init__(self, clients, handles):
        self._clients = clients
        self._handles = handles

    def __getitem__(self, handle):
        return self._clients[handle]

    @property
    def clients(self):
        return self._clients

    def get(self, handle):
        return self._handles.get(handle) or getattr(
            self._clients.get(handle), "work", None)


def namedSession(request, sessions, who=None):
    """
    The gate's answer for the 2025 era's resolution of C{request}'s
    session id among C{sessions}, for C{who}.
    """
    clients = ClientSessions(None, None, None, Clock())
    clients.byHandle.update(sessions.clients)
    return gatedSession(request, lambda sessionId: clientNamed(
        clients, sessionId, who))


class SessionGateTests(TestCase):

    def setUp(self):
        self.sessions = _Registry(
            {"abc": _Session("abc"),
             "alices": _Session("alices", principal("alice"))},
            {"modern": _Work("modern")})

    def test_named(self):
        self.assertIs(namedSession(requestWith(mcp_session_id="abc"),
                                   self.sessions), self.sessions["abc"])

    def test_missingHeader400(self):
        refusal = self.assertRaises(Refusal, namedSession, requestWith(),
                                    self.sessions)
        self.assertEqual(refusal.status, 400)

    def test_unknownSession404(self):
        refusal = self.assertRaises(
            Refusal, namedSession, requestWith(mcp_session_id="zzz"),
            self.sessions)
        self.assertEqual(refusal.status, 404)

    def test_owner(self):
        self.assertIs(namedSession(requestWith(mcp_session_id="alices"),
                                   self.sessions, principal("alice")),
                      self.sessions["alices"])

    def test_strangerAsUnknown(self):
        """
        Another identity's session is refused exactly as an unknown one.
        """
        unknown = self.assertRaises(
            Refusal, namedSession, requestWith(mcp_session_id="zzz"),
            self.sessions, principal("mallory"))
        for who in (principal("mallory"), None):
            stranger = self.assertRaises(
                Refusal, namedSession, requestWith(mcp_session_id="alices"),
                self.sessions, who)
            self.assertEqual(
                (stranger.status, stranger.message, stranger.code),
                (unknown.status, unknown.message, unknown.code))

    def test_handleIsNoSessionId(self):
        """
        A 2026 handle is never a 2025 C{MCP-Session-Id}: refused as one that
        names nothing, with the same log line.
        """
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        refusals = [self.assertRaises(
            Refusal, namedSession, requestWith(mcp_session_id=name),
            self.sessions) for name in ("modern", "zzz")]
        self.assertEqual({(r.status, r.message) for r in refusals},
                         {(refusals[1].status, refusals[1].message)})
        self.assertEqual([(e["what"], e["owner"]) for e in events
                          if "what" in e],
                         [("session modern", None), ("session zzz", None)])

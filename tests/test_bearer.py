"""
The bearer gate: the challenge a request without a good token gets, and a
session answering only the identity that opened it.
"""

import json

import attr
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.test.requesthelper import DummyRequest

from gsmcpd.auth.keys import KeyFile, usableKeys
from gsmcpd.auth.resource import ProtectedResource
from gsmcpd.auth.scopes import ScopeToolsets
from gsmcpd.auth.tokens import Principal, TokenValidator
from gsmcpd.transport.bearer import PRINCIPAL, BearerGate, principalOf
from tests.idp import AUDIENCE, ISSUER, IdentityProvider

NOW = 1_800_000_000.0


@attr.s
class _Session:
    handle = attr.ib(default="0123456789abcdef")
    principal = attr.ib(default=None)


def principal(identity):
    return Principal(identity, identity, frozenset(), NOW + 60)


class BearerGateTests(SynchronousTestCase):
    def setUp(self):
        clock = Clock()
        clock.advance(NOW)
        self.provider = IdentityProvider(now=NOW)
        self.gate = BearerGate(
            TokenValidator(KeyFile(usableKeys(self.provider.jwks())), ISSUER,
                           AUDIENCE, clock, requiredScopes={"gemstone:read"}),
            ProtectedResource(AUDIENCE, ISSUER,
                              frozenset({"gemstone:read"})),
            ScopeToolsets({"gemstone:read": frozenset({"browsing"}),
                           "gemstone:write": frozenset({"mutation"})}))

    def request(self, authorization=None):
        request = DummyRequest([b"mcp"])
        request.method = b"POST"
        request.path = b"/mcp"
        if authorization is not None:
            request.requestHeaders.setRawHeaders(b"authorization",
                                                 [authorization])
        return request

    def test_admitted(self):
        request = self.request(b"Bearer " + self.provider.token().encode())
        self.assertIsNone(self.successResultOf(self.gate.admit(request)))
        self.assertEqual(principalOf(request).user, "DataCurator")

    def test_noToken(self):
        challenge = self.successResultOf(self.gate.admit(self.request()))
        self.assertEqual(challenge.status, 401)
        self.assertNotIn("error=", challenge.authenticate)
        self.assertIsNone(principalOf(self.request()))

    def test_badToken(self):
        challenge = self.successResultOf(self.gate.admit(
            self.request(b"Bearer garbage")))
        self.assertEqual(challenge.status, 401)
        self.assertIn('error="invalid_token"', challenge.authenticate)

    def test_insufficientScope(self):
        challenge = self.successResultOf(self.gate.admit(self.request(
            b"Bearer " + self.provider.token(scope="other").encode())))
        self.assertEqual(challenge.status, 403)
        self.assertIn('scope="gemstone:read"', challenge.authenticate)

    def test_metadata(self):
        request = self.request()
        document = json.loads(self.gate.metadata(request))
        self.assertEqual(document["resource"], AUDIENCE)
        self.assertEqual(request.responseHeaders.getRawHeaders(
            b"content-type"), [b"application/json"])

    def test_owner(self):
        request = self.request()
        setattr(request, PRINCIPAL, principal("alice"))
        self.assertTrue(self.gate.owns(request, _Session(
            principal=principal("alice"))))

    def test_stranger(self):
        request = self.request()
        setattr(request, PRINCIPAL, principal("mallory"))
        self.assertFalse(self.gate.owns(request, _Session(
            principal=principal("alice"))))

    def test_toolsetsFor(self):
        self.assertEqual(self.gate.toolsetsFor(Principal(
            "a", "a", frozenset({"gemstone:read", "gemstone:write"}), 0)),
            {"browsing", "mutation"})
        self.assertIsNone(BearerGate(None, None).toolsetsFor(
            principal("a")))

"""
The protected resource's metadata and challenges, the scope to toolset map,
and the user map.
"""

import json

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.resource import ProtectedResource
from gsmcpd.auth.scopes import ScopeMapError, ScopeToolsets
from gsmcpd.auth.tokens import InsufficientScope, InvalidToken, NoToken
from gsmcpd.auth.users import UserMap, UserMapError

RESOURCE = ProtectedResource(
    resource="https://gemstone.example.com:8443/mcp",
    issuer="https://idp.example.com/realms/gemstone",
    requiredScopes=frozenset({"mcp:use"}),
    offeredScopes=frozenset({"gemstone:read", "gemstone:write"}),
    name="GemStone production")
METADATA_URL = ("https://gemstone.example.com:8443/.well-known/"
                "oauth-protected-resource/mcp")


class ProtectedResourceTests(SynchronousTestCase):
    def test_metadataUrl(self):
        self.assertEqual(RESOURCE.metadataUrl, METADATA_URL)

    def test_metadata(self):
        self.assertEqual(RESOURCE.metadata(), {
            "resource": "https://gemstone.example.com:8443/mcp",
            "authorization_servers": [
                "https://idp.example.com/realms/gemstone"],
            "scopes_supported": ["gemstone:read", "gemstone:write",
                                 "mcp:use"],
            "bearer_methods_supported": ["header"],
            "resource_name": "GemStone production"})

    def test_noToken(self):
        challenge = RESOURCE.challenge(NoToken("no token"))
        self.assertEqual(challenge.status, 401)
        self.assertEqual(challenge.authenticate,
                         f'Bearer resource_metadata="{METADATA_URL}", '
                         'scope="mcp:use"')

    def test_invalidToken(self):
        challenge = RESOURCE.challenge(InvalidToken('the "token" expired'))
        self.assertEqual(challenge.status, 401)
        self.assertEqual(
            challenge.authenticate,
            f'Bearer resource_metadata="{METADATA_URL}", scope="mcp:use", '
            'error="invalid_token", '
            'error_description="the \\"token\\" expired"')

    def test_insufficientScope(self):
        challenge = RESOURCE.challenge(InsufficientScope({"mcp:admin"}))
        self.assertEqual(challenge.status, 403)
        self.assertEqual(
            challenge.authenticate,
            f'Bearer resource_metadata="{METADATA_URL}", '
            'error="insufficient_scope", scope="mcp:admin mcp:use", '
            'error_description="the token lacks the scope mcp:admin"')


class ScopeToolsetsTests(SynchronousTestCase):
    SERVED = ("browsing", "listing", "search", "session", "mutation")

    def test_union(self):
        mapping = ScopeToolsets.parse(json.dumps({
            "gemstone:read": ["browsing", "listing"],
            "gemstone:write": ["listing", "mutation"]}), self.SERVED)
        self.assertEqual(
            mapping.toolsetsFor({"gemstone:read", "gemstone:write", "x"}),
            {"browsing", "listing", "mutation"})
        self.assertEqual(mapping.toolsetsFor({"x"}), frozenset())
        self.assertEqual(mapping.scopes, {"gemstone:read",
                                          "gemstone:write"})

    def test_notJson(self):
        self.assertRaises(ScopeMapError, ScopeToolsets.parse, "{",
                          self.SERVED)

    def test_wrongShape(self):
        self.assertRaises(ScopeMapError, ScopeToolsets.parse,
                          '{"a": "browsing"}', self.SERVED)

    def test_toolsetNotServed(self):
        error = self.assertRaises(ScopeMapError, ScopeToolsets.parse,
                                  '{"a": ["execution"]}', self.SERVED)
        self.assertIn("execution", str(error))


class UserMapTests(SynchronousTestCase):
    def write(self, text):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_mappedAndPassedThrough(self):
        users = UserMap.read(self.write('{"alice@example.com": "Alice"}'))
        self.assertEqual(users.userFor("alice@example.com"), "Alice")
        self.assertEqual(users.userFor("Bob"), "Bob")

    def test_malformed(self):
        self.assertRaises(UserMapError, UserMap.read,
                          self.write('{"alice": 7}'))
        self.assertRaises(UserMapError, UserMap.read, self.write("["))
        self.assertRaises(UserMapError, UserMap.read, self.mktemp())

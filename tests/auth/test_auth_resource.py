"""
The protected resource's metadata and the challenges that point at it.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.resource import ProtectedResource
from gsmcpd.auth.tokens import InsufficientScope, InvalidToken, NoToken

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

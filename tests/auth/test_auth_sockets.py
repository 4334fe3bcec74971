"""
Fetching keys from an identity provider over real loopback TLS: its
certificate checked against a CA made for this run, discovery, and rotated
keys picked up.
"""

from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks
from twisted.internet.ssl import Certificate
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from gsmcpd.auth.documents import verifiedClient
from gsmcpd.auth.keys import UNKNOWN_KEY_REFRESH_INTERVAL, RemoteKeys
from gsmcpd.auth.tokens import InvalidToken, TokenValidator
from tests.idp import AUDIENCE, IdentityProvider, TestCA, serveOverTLS


class RemoteKeysOverTLSTests(TestCase):
    """
    L{RemoteKeys} with L{verifiedClient} against a provider on loopback.
    """

    @inlineCallbacks
    def setUp(self):
        self.ca = TestCA()
        self.clock = Clock()
        self.clock.advance(reactor.seconds())
        self.provider = IdentityProvider(now=self.clock.seconds())
        self.idp = self.provider.resource()
        port, _ = yield serveOverTLS(self, reactor, self.idp, self.ca,
                                     ("localhost",))
        self.provider.issuer = f"https://localhost:{port}/realms/gemstone"

    def validator(self, trusted):
        """
        A validator fetching with a client that trusts C{trusted}; its
        clock (for expiry and the refresh rate limit) is moved by hand.
        """
        client = verifiedClient(reactor, Certificate.loadPEM(trusted.pem()))
        keys = RemoteKeys(client, self.clock, issuer=self.provider.issuer)
        return TokenValidator(keys, self.provider.issuer, AUDIENCE,
                              self.clock)

    @inlineCallbacks
    def test_discoveryAndRotation(self):
        validator = self.validator(self.ca)
        principal = yield validator.validate(self.provider.token())
        self.assertEqual(principal.user, "DataCurator")
        self.provider.rotate()
        self.clock.advance(UNKNOWN_KEY_REFRESH_INTERVAL)
        principal = yield validator.validate(self.provider.token(
            key=self.provider.keys[1], sub="Alice"))
        self.assertEqual(principal.user, "Alice")
        self.assertEqual(self.idp.jwksFetches, 2)

    @inlineCallbacks
    def test_untrustedCertificateRefused(self):
        validator = self.validator(TestCA())
        yield self.assertFailure(validator.validate(self.provider.token()),
                                 InvalidToken)
        self.assertEqual(self.idp.jwksFetches, 0)

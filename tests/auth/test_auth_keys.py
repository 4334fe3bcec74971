"""
The signing keys: which JWKS members are usable, the local file, and the
fetched set with its caching, rotation and failures (in memory, through
StubTreq).
"""

import json

from treq.testing import StubTreq
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.resource import Resource

from gsmcpd.auth.documents import MIN_FRESHNESS
from gsmcpd.auth.keys import (
    UNKNOWN_KEY_REFRESH_INTERVAL,
    KeyFile,
    KeySetError,
    KeysUnavailable,
    RemoteKeys,
    discoveryUrls,
    usableKeys,
)
from gsmcpd.auth.tokens import TokenValidator
from tests.idp import AUDIENCE, CACHE_SECONDS, ISSUER, IdentityProvider

NOW = 1_800_000_000.0


class UsableKeysTests(SynchronousTestCase):
    """
    L{usableKeys} keeps only asymmetric signature keys.
    """

    def test_published(self):
        keys = usableKeys(IdentityProvider().jwks())
        self.assertEqual([key.algorithm_name for key in keys],
                         ["RS256", "ES256", "EdDSA"])

    def test_symmetricAndEncryptionKeysLeftOut(self):
        jwks = IdentityProvider().jwks()
        jwks["keys"][1]["use"] = "enc"
        jwks["keys"].append({"kty": "oct", "k": "c2VjcmV0", "kid": "h"})
        self.assertEqual([key.key_id for key in usableKeys(jwks)],
                         ["rsa-1", "ed-1"])

    def test_nothingUsable(self):
        self.assertRaises(KeySetError, usableKeys,
                          {"keys": [{"kty": "oct", "k": "c2VjcmV0"}]})

    def test_notAJwks(self):
        self.assertRaises(KeySetError, usableKeys, ["keys"])

    def test_keyFile(self):
        path = IdentityProvider().writeJwks(self.mktemp())
        key = self.successResultOf(KeyFile.read(path).keyFor("ec-1",
                                                             "ES256"))
        self.assertEqual(key.key_id, "ec-1")

    def test_keyFileMissing(self):
        self.assertRaises(KeySetError, KeyFile.read, self.mktemp())

    def test_keyIdForAnotherAlgorithm(self):
        keys = KeyFile(usableKeys(IdentityProvider().jwks()))
        self.assertIsNone(self.successResultOf(keys.keyFor("rsa-1",
                                                           "ES256")))


class DiscoveryUrlTests(SynchronousTestCase):
    def test_pathIssuer(self):
        self.assertEqual(discoveryUrls("https://idp.test/realms/x"), (
            "https://idp.test/.well-known/oauth-authorization-server"
            "/realms/x",
            "https://idp.test/.well-known/openid-configuration/realms/x",
            "https://idp.test/realms/x/.well-known/openid-configuration"))

    def test_bareIssuer(self):
        self.assertEqual(discoveryUrls("https://idp.test/")[0],
                         "https://idp.test/.well-known/"
                         "oauth-authorization-server")


class _Switchable(Resource):
    """
    The provider's resource, or HTTP 503 while C{down}.
    """

    isLeaf = True

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.down = False
        self.requests = 0

    def render_GET(self, request):
        self.requests += 1
        if self.down:
            request.setResponseCode(503)
            return b"down"
        return self.inner.render_GET(request)


class _HeldClient:
    """
    An HTTP client whose requests wait until the test answers them.
    """

    def __init__(self):
        self.requests = []

    def get(self, url, headers=None):
        self.requests.append(Deferred())
        return self.requests[-1]


class RemoteKeysTests(SynchronousTestCase):
    """
    L{RemoteKeys} fetches, caches and refreshes the JWKS.
    """

    def setUp(self):
        self.clock = Clock()
        self.clock.advance(NOW)
        self.provider = IdentityProvider(now=NOW)
        self.idp = self.provider.resource()
        self.web = _Switchable(self.idp)
        self.client = StubTreq(self.web)
        self.keys = RemoteKeys(self.client, self.clock, issuer=ISSUER)
        self.validator = TokenValidator(self.keys, ISSUER, AUDIENCE,
                                        self.clock)

    def validate(self, token):
        d = self.validator.validate(token)
        self.client.flush()
        return d

    def test_discoveredAndFetched(self):
        self.successResultOf(self.validate(self.provider.token()))
        self.assertEqual(self.idp.jwksFetches, 1)

    def test_configuredUrl(self):
        keys = RemoteKeys(self.client, self.clock,
                          jwksUrl=ISSUER + "/certs")
        d = keys.keyFor("ed-1", "EdDSA")
        self.client.flush()
        self.assertEqual(self.successResultOf(d).key_id, "ed-1")

    def test_plainHttpRefused(self):
        keys = RemoteKeys(self.client, self.clock,
                          jwksUrl="http://idp.test/certs")
        d = keys.keyFor("rsa-1", "RS256")
        self.client.flush()
        self.failureResultOf(d, KeysUnavailable)
        self.assertEqual(self.idp.jwksFetches, 0)

    def test_cached(self):
        for _ in range(3):
            self.successResultOf(self.validate(self.provider.token()))
        self.assertEqual(self.idp.jwksFetches, 1)

    def test_staleKeysRefreshedInTheBackground(self):
        self.successResultOf(self.validate(self.provider.token()))
        self.clock.advance(CACHE_SECONDS + 1)
        self.successResultOf(self.validate(self.provider.token()))
        self.assertEqual(self.idp.jwksFetches, 2)

    def test_unknownKeyThenRotatedKeysAccepted(self):
        self.successResultOf(self.validate(self.provider.token()))
        self.provider.rotate()
        self.clock.advance(UNKNOWN_KEY_REFRESH_INTERVAL)
        principal = self.successResultOf(self.validate(
            self.provider.token()))
        self.assertEqual(principal.user, "DataCurator")
        self.assertEqual(self.idp.jwksFetches, 2)

    def test_unknownKeyRefreshIsRateLimited(self):
        self.successResultOf(self.validate(self.provider.token()))
        self.clock.advance(1)
        self.provider.rotate()
        for _ in range(5):
            self.failureResultOf(self.validate(self.provider.token()))
        self.assertEqual(self.idp.jwksFetches, 1)
        self.clock.advance(UNKNOWN_KEY_REFRESH_INTERVAL)
        self.successResultOf(self.validate(self.provider.token()))
        self.assertEqual(self.idp.jwksFetches, 2)

    def test_failedFetchKeepsTheLastGoodKeys(self):
        self.successResultOf(self.validate(self.provider.token()))
        self.web.down = True
        self.clock.advance(CACHE_SECONDS + 1)
        self.successResultOf(self.validate(self.provider.token()))
        self.successResultOf(self.validate(self.provider.token()))
        self.assertEqual(len(self.keys.keys), 3)

    def keyFor(self):
        d = self.keys.keyFor("ed-1", "EdDSA")
        self.client.flush()
        return d

    def test_failedRefreshWaitsTheMinimumFreshness(self):
        """
        While the authorization server is down, tokens past the keys'
        freshness cause one refresh, not one each.
        """
        self.successResultOf(self.keyFor())
        self.web.down = True
        self.clock.advance(CACHE_SECONDS + 1)
        self.successResultOf(self.keyFor())
        oneRefresh = self.web.requests
        for _ in range(5):
            self.clock.advance(1)
            self.assertEqual(self.successResultOf(self.keyFor()).key_id,
                             "ed-1")
        self.assertEqual(self.web.requests, oneRefresh)
        self.clock.advance(MIN_FRESHNESS)
        self.successResultOf(self.keyFor())
        self.assertGreater(self.web.requests, oneRefresh)

    def test_noKeysRefreshIsRateLimited(self):
        """
        With no key known and the authorization server down, refusing a
        stream of tokens costs one refresh per interval.
        """
        self.web.down = True
        self.failureResultOf(self.validate(self.provider.token()),
                             KeysUnavailable)
        oneRefresh = self.web.requests
        for _ in range(5):
            self.failureResultOf(self.validate(self.provider.token()),
                                 KeysUnavailable)
        self.assertEqual(self.web.requests, oneRefresh)
        self.clock.advance(UNKNOWN_KEY_REFRESH_INTERVAL)
        self.failureResultOf(self.validate(self.provider.token()),
                             KeysUnavailable)
        self.assertGreater(self.web.requests, oneRefresh)

    def test_noKeysYet(self):
        self.web.down = True
        self.failureResultOf(self.validate(self.provider.token()),
                             KeysUnavailable)
        self.web.down = False
        self.clock.advance(UNKNOWN_KEY_REFRESH_INTERVAL)
        self.successResultOf(self.validate(self.provider.token()))

    def test_discoveryNamingAnotherIssuerIsRefused(self):
        self.provider.issuer = "https://idp.test/realms/other"
        d = self.keys.keyFor("rsa-1", "RS256")
        self.client.flush()
        self.failureResultOf(d, KeysUnavailable)
        self.assertEqual(self.idp.jwksFetches, 0)

    def test_concurrentRefreshesShareOneFetch(self):
        held = _HeldClient()
        keys = RemoteKeys(held, self.clock, jwksUrl=ISSUER + "/certs")
        first, second = keys.refresh(), keys.refresh()
        self.assertNoResult(first)
        self.assertEqual(len(held.requests), 1)
        held.requests[0].errback(ConnectionRefusedError())
        self.successResultOf(first)
        self.successResultOf(second)

    def test_jwksNotJson(self):
        self.provider.jwks = lambda: json.loads('"nope"')
        d = self.keys.keyFor("rsa-1", "RS256")
        self.client.flush()
        self.failureResultOf(d, KeysUnavailable)

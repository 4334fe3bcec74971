"""
Bearer token validation: every way a token is refused, and what a good one
yields.
"""

from twisted.internet.task import Clock
from twisted.logger import formatEvent, globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth import tokens
from gsmcpd.auth.keys import KeyFile, usableKeys
from gsmcpd.auth.tokens import (
    LEEWAY,
    InsufficientScope,
    InvalidToken,
    NoToken,
    Principal,
    TokenValidator,
    admits,
    bearerToken,
)
from gsmcpd.auth.users import UserMap
from tests.idp import (
    AUDIENCE,
    ISSUER,
    IdentityProvider,
    SigningKey,
    hmacWithPublicKey,
    unsignedToken,
)

NOW = 1_800_000_000.0


class BearerTokenTests(SynchronousTestCase):
    """
    L{bearerToken} finds the token in the header.
    """

    def test_absent(self):
        self.assertRaises(NoToken, bearerToken, None)

    def test_otherScheme(self):
        self.assertRaises(NoToken, bearerToken, "Basic dXNlcjpwdw==")

    def test_empty(self):
        self.assertRaises(InvalidToken, bearerToken, "Bearer  ")

    def test_caseInsensitiveScheme(self):
        self.assertEqual(bearerToken("bearer abc.def.ghi"), "abc.def.ghi")


class TokenValidatorTests(SynchronousTestCase):
    """
    L{TokenValidator} against a provider's published keys.
    """

    def setUp(self):
        self.clock = Clock()
        self.clock.advance(NOW)
        self.provider = IdentityProvider(now=NOW)
        self.validator = self.validatorFor(self.provider)

    def validatorFor(self, provider, **kwargs):
        return TokenValidator(
            keys=KeyFile(usableKeys(provider.jwks())), issuer=ISSUER,
            audience=AUDIENCE, clock=self.clock, **kwargs)

    def principal(self, token, validator=None):
        return self.successResultOf(
            (validator or self.validator).validate(token))

    def refusal(self, token, kind=InvalidToken, validator=None):
        failure = self.failureResultOf(
            (validator or self.validator).validate(token), kind)
        self.assertNotIn(token, str(failure.value))
        return str(failure.value)

    def test_valid(self):
        self.assertEqual(
            self.principal(self.provider.token()),
            Principal(identity="DataCurator", user="DataCurator",
                      scopes=frozenset({"gemstone:read"}),
                      expires=NOW + 300))

    def test_everyAcceptedAlgorithm(self):
        for key in self.provider.keys:
            self.assertEqual(self.principal(
                self.provider.token(key=key)).user, "DataCurator")

    def test_garbage(self):
        self.assertIn("not a JWT", self.refusal("not-a-token"))

    def test_wrongSignature(self):
        impostor = SigningKey("rsa-1")
        self.assertIn("signature", self.refusal(
            self.provider.token(key=impostor)))

    def test_tamperedClaims(self):
        header, body, signature = self.provider.token().split(".")
        other = self.provider.token(sub="SystemUser").split(".")[1]
        self.refusal(".".join([header, other, signature]))

    def test_algorithmNone(self):
        self.assertIn("algorithm", self.refusal(
            unsignedToken(self.provider.claims())))

    def test_hmacSignedWithThePublicKey(self):
        self.assertIn("algorithm", self.refusal(hmacWithPublicKey(
            self.provider.claims(), self.provider.keys[0])))

    def test_expired(self):
        self.assertIn("expired", self.refusal(
            self.provider.token(exp=int(NOW - LEEWAY - 1))))

    def test_expiredWithinLeeway(self):
        self.principal(self.provider.token(exp=int(NOW - LEEWAY + 5)))

    def test_noExpiry(self):
        self.assertIn("exp", self.refusal(self.provider.token(exp=None)))

    def test_notYetValid(self):
        self.assertIn("not valid yet", self.refusal(
            self.provider.token(nbf=int(NOW + LEEWAY + 5))))

    def test_notBeforeWithinLeeway(self):
        self.principal(self.provider.token(nbf=int(NOW + LEEWAY - 5)))

    def test_wrongIssuer(self):
        self.assertIn("issuer", self.refusal(
            self.provider.token(iss="https://evil.example")))

    def test_wrongAudience(self):
        self.assertIn("aud", self.refusal(
            self.provider.token(aud="https://other.example/mcp")))

    def test_audienceList(self):
        self.principal(self.provider.token(
            aud=["account", AUDIENCE]))

    def test_audienceListWithoutThisResource(self):
        self.refusal(self.provider.token(aud=["account", "other"]))

    def test_unknownKey(self):
        stranger = SigningKey("unpublished")
        self.assertIn("does not publish", self.refusal(
            self.provider.token(key=stranger)))

    def test_missingScope(self):
        validator = self.validatorFor(
            self.provider, requiredScopes={"gemstone:read", "mcp:use"})
        failure = self.failureResultOf(
            validator.validate(self.provider.token()), InsufficientScope)
        self.assertEqual(failure.value.missing, {"mcp:use"})

    def test_scpClaim(self):
        validator = self.validatorFor(self.provider,
                                      requiredScopes={"mcp:use"})
        principal = self.principal(self.provider.token(
            scope=None, scp=["mcp:use", "gemstone:write"]), validator)
        self.assertEqual(principal.scopes, {"mcp:use", "gemstone:write"})

    def test_malformedScope(self):
        self.assertIn("scope", self.refusal(self.provider.token(scope=7)))

    def test_userClaim(self):
        validator = self.validatorFor(self.provider,
                                      userClaim="preferred_username")
        principal = self.principal(self.provider.token(
            sub="f81d4fae-7dec", preferred_username="alice"), validator)
        self.assertEqual((principal.identity, principal.user),
                         ("f81d4fae-7dec", "alice"))

    def test_userClaimMissing(self):
        validator = self.validatorFor(self.provider,
                                      userClaim="preferred_username")
        self.assertIn("preferred_username", self.refusal(
            self.provider.token(), validator=validator))

    def test_userMap(self):
        validator = self.validatorFor(
            self.provider, users=UserMap({"alice@example.com": "Alice"}))
        self.assertEqual(self.principal(self.provider.token(
            sub="alice@example.com"), validator).user, "Alice")
        self.assertEqual(self.principal(self.provider.token(
            sub="Bob"), validator).user, "Bob")

    def test_tokenWithoutKeyIdUsesTheOnlyKeyOfItsAlgorithm(self):
        token = self.provider.keys[0].sign(self.provider.claims(), kid=None)
        self.principal(token)


class AdmitsTests(SynchronousTestCase):
    """
    L{admits}: what an identity opened answers that identity only.
    """

    def setUp(self):
        self.events = []
        observer = self.events.append
        globalLogPublisher.addObserver(observer)
        self.addCleanup(globalLogPublisher.removeObserver, observer)

    def test_owner(self):
        alice = Principal("alice", "Alice", frozenset(), 0.0)
        self.assertTrue(admits(alice, alice, "session 01234567"))
        self.assertEqual(self.events, [])

    def test_openedWithoutAuthentication(self):
        self.assertTrue(admits(None, None, "session 01234567"))

    def test_strangerLogged(self):
        alice = Principal("alice", "Alice", frozenset(), 0.0)
        mallory = Principal("mallory", "Mallory", frozenset(), 0.0)
        for stranger in (mallory, None):
            self.assertFalse(admits(alice, stranger, "handle 0123abcd"))
        self.assertEqual([(e["what"], e["stranger"], e["owner"])
                          for e in self.events],
                         [("handle 0123abcd", "mallory", "alice"),
                          ("handle 0123abcd", None, "alice")])
        self.assertEqual([formatEvent(e) for e in self.events], [
            "handle 0123abcd: a request from mallory refused as if it did "
            "not exist; it belongs to alice",
            "handle 0123abcd: a request without authentication refused as "
            "if it did not exist; it belongs to alice"])

    def test_missingTakesTheSameSteps(self):
        """
        Nothing found is refused with the same log line as a stranger's
        (its owner L{None}), so a made-up handle answers as a live foreign
        one does; the owner's own identity never admits a missing one.
        """
        alice = Principal("alice", "Alice", frozenset(), 0.0)
        self.assertFalse(admits(None, alice, "handle 0123abcd",
                                exists=False))
        self.assertFalse(admits(None, None, "handle 0123abcd", exists=False))
        self.assertFalse(admits(alice, alice, "handle 0123abcd",
                                exists=False))
        self.assertEqual({tuple(sorted(set(e) - {"log_time"}))
                          for e in self.events}, {tuple(sorted(set(
                              self.events[0]) - {"log_time"}))})
        self.assertEqual([(e["what"], e["stranger"], e["owner"])
                          for e in self.events],
                         [("handle 0123abcd", "alice", None),
                          ("handle 0123abcd", None, None),
                          ("handle 0123abcd", "alice", "alice")])

    def test_missingSaysSo(self):
        """
        The log line of a refusal for nothing found says there is none, and
        who asked, never C{None}.
        """
        alice = Principal("alice", "Alice", frozenset(), 0.0)
        admits(None, alice, "session 0123abcd", exists=False)
        admits(None, None, "session 0123abcd", exists=False)
        self.assertEqual([formatEvent(e) for e in self.events], [
            "session 0123abcd: a request from alice refused: there is none "
            "(it ended, or never existed)",
            "session 0123abcd: a request without authentication refused: "
            "there is none (it ended, or never existed)"])

    def test_identitiesComparedInConstantTime(self):
        """
        The owner's identity is compared with C{hmac.compare_digest}, which
        takes as long whatever prefix two identities share.
        """
        compared = []
        real = tokens.hmac.compare_digest
        self.patch(tokens.hmac, "compare_digest",
                   lambda a, b: compared.append((a, b)) or real(a, b))
        alice = Principal("alice", "Alice", frozenset(), 0.0)
        mallory = Principal("mallory", "Mallory", frozenset(), 0.0)
        admits(alice, mallory, "handle 0123abcd")
        self.assertEqual(compared, [(b"alice", b"mallory")])

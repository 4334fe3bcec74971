"""
Bearer token validation: a JWT signed by one of the authorization server's
keys, for this resource, from the expected issuer, in date, carrying the
required scopes.

Only asymmetric signatures are accepted.  C{none} would let anyone mint a
token, and an HMAC algorithm would let anyone holding the published public
key mint one (the key confusion attack), so both are refused before any key
is looked at.
"""

from __future__ import annotations

import hmac
from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING, Any

import attr
import jwt
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

if TYPE_CHECKING:
    # Each imports this module.
    from gsmcpd.auth.keys import IKeySource
    from gsmcpd.auth.users import UserMap

ACCEPTED_ALGORITHMS = ("RS256", "ES256", "EdDSA")
LEEWAY = 30
"""Seconds of clock skew tolerated on C{exp} and C{nbf}."""


class AuthenticationError(Exception):
    """
    A request is refused for its credentials; the message is safe to show
    the client (it never repeats the token).
    """


class NoToken(AuthenticationError):
    """
    The request carries no bearer token.
    """


class InvalidToken(AuthenticationError):
    """
    The bearer token cannot be trusted: malformed, badly signed, out of
    date, or not meant for this resource.
    """


class InsufficientScope(AuthenticationError):
    """
    A valid token that lacks scopes this resource requires.

    @ivar missing: the scopes it lacks.
    """

    def __init__(self, missing: Iterable[str]) -> None:
        super().__init__("the token lacks the scope "
                         + " ".join(sorted(missing)))
        self.missing = frozenset(missing)


@attr.s(frozen=True, auto_attribs=True)
class Principal:
    """
    Who a valid token speaks for.

    @ivar identity: the issuer's stable name for the person (C{sub}); what a
        session is bound to.
    @ivar user: the GemStone user the person works as.
    @ivar scopes: the scopes the token grants.
    @ivar expires: when the token expires (POSIX seconds).
    @ivar toolsets: the names of the toolsets its scopes open, or L{None}
        for every served one (the bearer gate fills it in).
    """

    identity: str
    user: str
    scopes: frozenset[str]
    expires: float
    toolsets: frozenset[str] | None = None


_log = Logger()


def admits(owner: Principal | None, principal: Principal | None,
           what: str, exists: bool = True) -> bool:
    """
    Whether a request made as C{principal} may use C{what}, which C{owner}
    opened.  A stranger is answered exactly as if C{what} did not exist,
    and in the same time: a caller that found nothing calls this too
    (C{exists=False}), so a live foreign handle and a made-up one take the
    same steps, the same comparison and the same log line, and neither
    answers sooner (telling them apart would tell a guesser a handle is
    live).

    @param owner: the L{Principal} that opened it, or L{None} when it was
        opened without authentication (or nothing was found).
    @param principal: the request's L{Principal}, or L{None}.
    @param what: names it for the log, never in full (a session's prefix).
    @param exists: whether C{what} was found at all.
    """
    mine = hmac.compare_digest(
        _identityKey(owner), _identityKey(principal)) and principal is not None
    if exists and (owner is None or mine):
        return True
    asker = ("a request without authentication" if principal is None
             else "a request from {stranger}")
    happened = ("refused as if it did not exist; it belongs to {owner}"
                if exists else "refused: there is none (it ended, or never "
                "existed)")
    _log.info("{what}: " + asker + " " + happened, what=what,
              stranger=None if principal is None else principal.identity,
              owner=None if owner is None else owner.identity)
    return False


def _identityKey(principal: Principal | None) -> bytes:
    return b"" if principal is None else principal.identity.encode("utf-8")


def bearerToken(authorization: str | None) -> str:
    """
    The token in an C{Authorization} header value.

    @param authorization: the header's value as text, or L{None}.
    @raise NoToken: there is no header, or it is not a bearer credential.
    @raise InvalidToken: a bearer credential with nothing in it.
    """
    if authorization is None:
        raise NoToken("the request carries no bearer token")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        raise NoToken("the Authorization header is not a Bearer credential")
    token = token.strip()
    if not token:
        raise InvalidToken("the bearer token is empty")
    return token


def grantedScopes(claims: dict[str, Any]) -> frozenset[str]:
    """
    The scopes in a token: RFC 9068's space-separated C{scope}, or the
    C{scp} list some authorization servers send instead.
    """
    granted = claims.get("scope", claims.get("scp", ()))
    if isinstance(granted, str):
        granted = granted.split()
    if not isinstance(granted, (list, tuple)) or not all(
            isinstance(each, str) for each in granted):
        raise InvalidToken("the token's scope claim is malformed")
    return frozenset(granted)


def _names(names: Iterable[str]) -> frozenset[str]:
    # A typed converter: mypy's attrs plugin cannot tell frozenset's type.
    return frozenset(names)


@attr.s
class TokenValidator:
    """
    Turns a bearer token into a L{Principal}, or refuses it.

    @ivar keys: an L{IKeySource} of the authorization server's keys.
    @ivar issuer: the required C{iss}.
    @ivar audience: the required C{aud}: this resource's identifier.
    @ivar requiredScopes: scopes every token must carry.
    @ivar users: maps the user claim's value to a GemStone user name.
    @ivar userClaim: the claim naming the person's GemStone user.
    @ivar clock: an C{IReactorTime}, for C{exp} and C{nbf}.
    """

    keys: IKeySource = attr.ib()
    issuer: str = attr.ib()
    audience: str = attr.ib()
    clock: IReactorTime = attr.ib()
    requiredScopes: frozenset[str] = attr.ib(default=frozenset(),
                                             converter=_names)
    users: UserMap | None = attr.ib(default=None)
    userClaim: str = attr.ib(default="sub")

    @inlineCallbacks
    def validate(self, token: str
                 ) -> Generator[Deferred[jwt.PyJWK | None], Any, Principal]:
        """
        The principal C{token} speaks for.

        @return: a L{Deferred} firing with a L{Principal}, or failing with
            L{InvalidToken} or L{InsufficientScope}.
        """
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidToken("the bearer token is not a JWT")
        algorithm = header.get("alg")
        if algorithm not in ACCEPTED_ALGORITHMS:
            raise InvalidToken(
                f"the token's signature algorithm is not accepted (use one "
                f"of {', '.join(ACCEPTED_ALGORITHMS)})")
        key = yield self.keys.keyFor(header.get("kid"), algorithm)
        if key is None:
            raise InvalidToken("the token is signed with a key the "
                               "authorization server does not publish")
        claims = self._decode(token, key, algorithm)
        return self._principal(claims)

    def _decode(self, token: str, key: jwt.PyJWK,
                algorithm: str) -> dict[str, Any]:
        # pyjwt compares exp/nbf against the wall clock; fixing "now" via
        # the leeway would be a trick, so dates are checked here instead.
        try:
            claims = jwt.decode(
                token, key, algorithms=[algorithm], audience=self.audience,
                issuer=self.issuer,
                options={"require": ["exp", "iss", "aud"],
                         "verify_exp": False, "verify_nbf": False,
                         "verify_iat": False})
        except jwt.InvalidSignatureError:
            raise InvalidToken("the token's signature does not verify")
        except jwt.InvalidAudienceError:
            raise InvalidToken("the token is not meant for this resource "
                               "(aud)")
        except jwt.InvalidIssuerError:
            raise InvalidToken("the token is from another issuer (iss)")
        except jwt.MissingRequiredClaimError as e:
            raise InvalidToken(f"the token has no {e.claim} claim")
        except jwt.PyJWTError:
            raise InvalidToken("the bearer token is malformed")
        self._checkDates(claims)
        return claims

    def _checkDates(self, claims: dict[str, Any]) -> None:
        now = self.clock.seconds()
        expires, notBefore = claims["exp"], claims.get("nbf")
        if not _isNumber(expires) or (notBefore is not None
                                      and not _isNumber(notBefore)):
            raise InvalidToken("the token's dates are malformed")
        if expires + LEEWAY <= now:
            raise InvalidToken("the token has expired")
        if notBefore is not None and notBefore - LEEWAY > now:
            raise InvalidToken("the token is not valid yet")

    def _principal(self, claims: dict[str, Any]) -> Principal:
        scopes = grantedScopes(claims)
        missing = self.requiredScopes - scopes
        if missing:
            raise InsufficientScope(missing)
        named = claims.get(self.userClaim)
        if not isinstance(named, str) or not named:
            raise InvalidToken(f"the token has no {self.userClaim} claim "
                               "naming its user")
        identity = claims.get("sub", named)
        if not isinstance(identity, str):
            raise InvalidToken("the token's sub claim is malformed")
        user = named if self.users is None else self.users.userFor(named)
        return Principal(identity=identity, user=user, scopes=scopes,
                         expires=float(claims["exp"]))


def _isNumber(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

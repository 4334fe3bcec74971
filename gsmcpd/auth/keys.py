"""
The authorization server's signing keys: a JWKS read from a local file, or
fetched over verified HTTPS (from a configured URL, or the one the issuer's
metadata names) and kept fresh by the documents' caching headers.
"""

from collections.abc import Generator, Iterable
from typing import Any

import attr
import jwt
from treq.client import HTTPClient
from twisted.internet.defer import Deferred, inlineCallbacks, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import Attribute, Interface, implementer

from gsmcpd.auth.documents import (
    MIN_FRESHNESS,
    DocumentError,
    fetchDocument,
    readJsonFile,
)
from gsmcpd.auth.tokens import ACCEPTED_ALGORITHMS, InvalidToken

UNKNOWN_KEY_REFRESH_INTERVAL = 60.0
"""Seconds between refreshes an unknown C{kid} may cause: a stream of
forged key ids cannot make the daemon hammer the authorization server."""


class KeySetError(Exception):
    """
    A JWKS document holds no key this resource server can use.
    """


class KeysUnavailable(InvalidToken):
    """
    No key is known yet: the authorization server's keys could not be
    fetched, so no token can be checked.
    """


class IKeySource(Interface):
    """
    Where the signing keys come from.
    """

    keys = Attribute("The usable keys known now; empty while none is.")

    def keyFor(keyId: str | None,
               algorithm: str) -> Deferred[jwt.PyJWK | None]:
        """
        The key C{keyId} names, for C{algorithm}.

        @param keyId: the token header's C{kid}, or L{None}.
        @return: a L{Deferred} firing with a C{jwt.PyJWK}, or L{None} when
            no published key fits, or failing with L{KeysUnavailable}.
        """


def usableKeys(document: object) -> tuple[jwt.PyJWK, ...]:
    """
    The signature keys in a JWKS document that an accepted algorithm can
    verify with; symmetric and encryption keys are left out.

    @raise KeySetError: when none is usable.
    """
    found = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(found, list):
        raise KeySetError("not a JWKS document (no keys list)")
    keys = []
    for each in found:
        if not isinstance(each, dict) or each.get("kty") == "oct" or \
                each.get("use", "sig") != "sig":
            continue
        try:
            key = jwt.PyJWK(each)
        except jwt.PyJWTError:
            continue
        if key.algorithm_name in ACCEPTED_ALGORITHMS:
            keys.append(key)
    if not keys:
        raise KeySetError("the JWKS holds no RS256, ES256 or EdDSA "
                          "signature key")
    return tuple(keys)


def selectKey(keys: Iterable[jwt.PyJWK], keyId: str | None,
              algorithm: str) -> jwt.PyJWK | None:
    """
    The key among C{keys} a token's header names: by C{kid}, or, for a
    token without one, the only key for its algorithm.
    """
    fitting = [key for key in keys if key.algorithm_name == algorithm]
    if keyId is None:
        return fitting[0] if len(fitting) == 1 else None
    for key in fitting:
        if key.key_id == keyId:
            return key
    return None


@implementer(IKeySource)
@attr.s
class KeyFile:
    """
    Keys from a local JWKS file (C{--auth-jwks-file}), read once at startup:
    for air-gapped sites and tests.
    """

    keys: tuple[jwt.PyJWK, ...] = attr.ib()

    @classmethod
    def read(cls, path: str) -> "KeyFile":
        """
        @raise KeySetError: the file cannot be read or holds no usable key.
        """
        try:
            return cls(usableKeys(readJsonFile(path)))
        except DocumentError as e:
            raise KeySetError(str(e))

    def keyFor(self, keyId: str | None,
               algorithm: str) -> Deferred[jwt.PyJWK | None]:
        return succeed(selectKey(self.keys, keyId, algorithm))


def discoveryUrls(issuer: str) -> tuple[str, ...]:
    """
    Where an issuer's metadata may be, in the order MCP clients try them:
    RFC 8414's path-inserted form, then OpenID Connect's inserted and
    appended forms.
    """
    scheme, _, rest = issuer.rstrip("/").partition("://")
    host, slash, path = rest.partition("/")
    path = slash + path
    origin = f"{scheme}://{host}"
    return (f"{origin}/.well-known/oauth-authorization-server{path}",
            f"{origin}/.well-known/openid-configuration{path}",
            f"{origin}{path}/.well-known/openid-configuration")


@implementer(IKeySource)
@attr.s
class RemoteKeys:
    """
    Keys fetched over HTTPS, fresh for as long as the JWKS's caching headers
    say.

    Stale keys are still used while a refresh runs in the background; a
    token naming a key not in the set waits for one refresh, at most one per
    L{UNKNOWN_KEY_REFRESH_INTERVAL}, so keys the authorization server
    rotated in are picked up at once.  A failed fetch is logged, the last
    good keys are kept, and the next background refresh waits the minimum
    freshness: tokens arriving while the authorization server is down do
    not each cause a fetch.

    @ivar client: a treq C{HTTPClient} whose agent verifies certificates.
    @ivar clock: an C{IReactorTime}.
    @ivar jwksUrl: the JWKS URL, or L{None} to discover it from C{issuer}.
    @ivar issuer: the issuer whose metadata names the JWKS URL.
    """

    log = Logger()

    client: HTTPClient = attr.ib()
    clock: IReactorTime = attr.ib()
    jwksUrl: str | None = attr.ib(default=None)
    issuer: str | None = attr.ib(default=None)
    keys: tuple[jwt.PyJWK, ...] = attr.ib(init=False, default=())
    _freshUntil: float | None = attr.ib(init=False, default=None)
    _lastFetch: float | None = attr.ib(init=False, default=None)
    _waiting: list[Deferred[None]] | None = attr.ib(init=False, default=None)
    _discovered: tuple[str, float] | None = attr.ib(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        if (self.jwksUrl is None) == (self.issuer is None):
            raise ValueError("RemoteKeys needs exactly one of jwksUrl "
                             "or issuer")

    @inlineCallbacks
    def keyFor(self, keyId: str | None, algorithm: str
               ) -> Generator[Deferred[None], None, jwt.PyJWK | None]:
        now = self.clock.seconds()
        if not self.keys:
            if self._mayRefreshFor(now):
                yield self.refresh()
            if not self.keys:
                raise KeysUnavailable(
                    "the token cannot be checked: the authorization "
                    "server's keys are unavailable (see the server log)")
        elif self._freshUntil is None or now >= self._freshUntil:
            self.refresh()
        key = selectKey(self.keys, keyId, algorithm)
        if key is None and keyId is not None and self._mayRefreshFor(now):
            yield self.refresh()
            key = selectKey(self.keys, keyId, algorithm)
        return key

    def _mayRefreshFor(self, now: float) -> bool:
        return self._waiting is not None or self._lastFetch is None or \
            now - self._lastFetch >= UNKNOWN_KEY_REFRESH_INTERVAL

    def refresh(self) -> Deferred[None]:
        """
        Fetch the keys again; a refresh already under way is joined rather
        than repeated.

        @return: a L{Deferred} firing when it is over, successful or not.
        """
        done: Deferred[None] = Deferred()
        if self._waiting is not None:
            self._waiting.append(done)
            return done
        self._waiting = [done]
        self._lastFetch = self.clock.seconds()
        self._fetch().addBoth(self._fetched)
        return done

    def _fetched(self, outcome: None | Failure) -> None:
        if isinstance(outcome, Failure):
            self.log.failure("refreshing the signing keys failed", outcome)
            self._retryLater()
        waiting, self._waiting = self._waiting or [], None
        for each in waiting:
            each.callback(None)

    @inlineCallbacks
    def _fetch(self) -> Generator[Deferred[Any], Any, None]:
        try:
            url = yield self._keysUrl()
            document, freshFor = yield fetchDocument(self.client, self.clock,
                                                     url)
            self.keys = usableKeys(document)
        except (DocumentError, KeySetError) as e:
            self.log.warn("cannot refresh the authorization server's keys "
                          "({why}); keeping the {count} known", why=e,
                          count=len(self.keys))
            self._retryLater()
            return
        self._freshUntil = self.clock.seconds() + freshFor
        self.log.info("fetched {count} signing key(s) from {url}, fresh "
                      "for {seconds:.0f}s", count=len(self.keys), url=url,
                      seconds=freshFor)

    def _retryLater(self) -> None:
        self._freshUntil = self.clock.seconds() + MIN_FRESHNESS

    @inlineCallbacks
    def _keysUrl(self) -> Generator[Deferred[Any], Any, str]:
        if self.jwksUrl is not None:
            return self.jwksUrl
        issuer = self.issuer
        assert issuer is not None  # one of the two: __attrs_post_init__
        now = self.clock.seconds()
        if self._discovered is not None and now < self._discovered[1]:
            return self._discovered[0]
        failures = []
        for url in discoveryUrls(issuer):
            try:
                document, freshFor = yield fetchDocument(self.client,
                                                         self.clock, url)
            except DocumentError as e:
                failures.append(str(e))
                continue
            if document.get("issuer") != issuer or not isinstance(
                    document.get("jwks_uri"), str):
                failures.append(f"{url} names another issuer or no jwks_uri")
                continue
            self._discovered = (document["jwks_uri"], now + freshFor)
            return document["jwks_uri"]
        if self._discovered is not None:
            return self._discovered[0]
        raise DocumentError("no metadata for issuer " + issuer + ": "
                            + "; ".join(failures))

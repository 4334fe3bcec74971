"""
Fetching the authorization server's JSON documents (its metadata and its
JWKS) over verified HTTPS, with how long each may be cached.
"""

import json
from collections.abc import Generator
from email.utils import parsedate_to_datetime
from typing import Any

import treq
from treq.client import HTTPClient
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IReactorTime
from twisted.web.client import Agent, BrowserLikePolicyForHTTPS
from twisted.web.http_headers import Headers

FETCH_TIMEOUT = 10.0
MAX_DOCUMENT_BYTES = 1 << 20
DEFAULT_FRESHNESS = 3600.0
"""Seconds a document without caching headers is kept."""
MIN_FRESHNESS = 60.0
MAX_FRESHNESS = 86400.0
"""Bounds on the freshness a document's headers may claim: C{no-cache}
must not mean a fetch per request, nor a year-long C{max-age} a key that is
never re-read."""


class DocumentError(Exception):
    """
    A document could not be fetched or is not a JSON object.
    """


class _TooLarge(Exception):
    pass


def readJsonFile(path: str) -> Any:
    """
    A local JSON file's content.

    @raise DocumentError: naming the file, when it is unreadable or not
        JSON.
    """
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise DocumentError(f"{path!r}: {e.strerror}")
    except ValueError as e:
        raise DocumentError(f"{path!r} is not JSON: {e}")


def verifiedClient(reactor: Any, trustRoot: Any = None) -> HTTPClient:
    """
    A treq client that checks each server's certificate chain and host name
    (service-identity): against the platform's trust store, or against
    C{trustRoot} (an C{IOpenSSLTrustRoot}) where a site has its own CA.
    """
    policy = BrowserLikePolicyForHTTPS() if trustRoot is None \
        else BrowserLikePolicyForHTTPS(trustRoot)
    return HTTPClient(Agent(reactor, contextFactory=policy))


def freshness(headers: Headers, now: float) -> float:
    """
    Seconds a response may be cached, from its C{Cache-Control} or
    C{Expires}, within L{MIN_FRESHNESS} and L{MAX_FRESHNESS}.

    @param headers: the response's C{twisted.web.http_headers.Headers}.
    @param now: POSIX seconds, for C{Expires}.
    """
    directives = {}
    for value in headers.getRawHeaders(b"cache-control", []):
        for directive in value.decode("latin-1").split(","):
            name, _, argument = directive.strip().partition("=")
            directives[name.lower()] = argument.strip('"')
    seconds = DEFAULT_FRESHNESS
    if {"no-store", "no-cache"} & set(directives):
        seconds = 0.0
    elif "max-age" in directives:
        try:
            seconds = float(int(directives["max-age"]))
        except ValueError:
            pass
    else:
        expires = headers.getRawHeaders(b"expires", [b""])[0]
        try:
            seconds = parsedate_to_datetime(
                expires.decode("latin-1")).timestamp() - now
        except (TypeError, ValueError):
            pass
    return min(max(seconds, MIN_FRESHNESS), MAX_FRESHNESS)


@inlineCallbacks
def fetchDocument(client: HTTPClient, clock: IReactorTime,
                  url: str
                  ) -> Generator[Deferred[Any], Any, tuple[Any, float]]:
    """
    GET a JSON object over HTTPS.

    @param client: a treq C{HTTPClient}; its agent verifies the server's
        certificate and host name.
    @param clock: an C{IReactorTime}, for the timeout and freshness.
    @return: a L{Deferred} firing with C{(document, seconds it is fresh)}.
    @raise DocumentError: on anything short of that.
    """
    if not url.startswith("https://"):
        raise DocumentError(f"{url} is not an https URL")
    chunks = []

    def collect(data: bytes) -> None:
        chunks.append(data)
        if sum(map(len, chunks)) > MAX_DOCUMENT_BYTES:
            raise _TooLarge()

    try:
        response = yield client.get(
            url, headers=Headers({b"accept": [b"application/json"]})
        ).addTimeout(FETCH_TIMEOUT, clock)
        if response.code != 200:
            raise DocumentError(f"{url} answered HTTP {response.code}")
        yield treq.collect(response, collect).addTimeout(FETCH_TIMEOUT,
                                                         clock)
    except DocumentError:
        raise
    except _TooLarge:
        raise DocumentError(f"{url} is larger than {MAX_DOCUMENT_BYTES} "
                            "bytes")
    except Exception as e:
        raise DocumentError(f"{url}: {e.__class__.__name__}: {e}")
    try:
        document = json.loads(b"".join(chunks))
    except ValueError:
        raise DocumentError(f"{url} did not answer JSON")
    if not isinstance(document, dict):
        raise DocumentError(f"{url} did not answer a JSON object")
    return document, freshness(response.headers, clock.seconds())

"""
The bearer gate: with authentication on, every request to C{/mcp} carries a
token naming who sends it.  (A session answers only the identity that
opened it: L{gsmcpd.transport.gates.namedSession} looks it up with the
principal this gate attaches.)

It wraps the app's resource rather than living in its routes: a request is
admitted (or answered with the challenge) before the app sees it, and the
Protected Resource Metadata a client reads before it has a token is served
beside it.
"""

import json
from collections.abc import Generator

import attr
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web.iweb import IRequest
from twisted.web.resource import IResource, Resource
from twisted.web.server import NOT_DONE_YET, Request

from gsmcpd.auth.resource import METADATA_PATH, Challenge, ProtectedResource
from gsmcpd.auth.scopes import ScopeToolsets
from gsmcpd.auth.tokens import (
    AuthenticationError,
    NoToken,
    Principal,
    TokenValidator,
    bearerToken,
)
from gsmcpd.observe.clipping import clipped
from gsmcpd.protocol.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    JsonRpcError,
    encode,
    parseMessage,
)
from gsmcpd.transport.connections import MAX_BODY_BYTES

PRINCIPAL = "gsmcpdPrincipal"
"""Where an admitted request carries its L{Principal}."""

AUTH_REFUSED = "authRefused"
"""Marks a request refused for its token, which the metrics count
(L{gsmcpd.observe.metrics})."""


@attr.s
class BearerGate:
    """
    @ivar validator: a L{TokenValidator}.
    @ivar resource: the L{ProtectedResource} this server is.
    @ivar scopeToolsets: a L{ScopeToolsets}, or L{None} when every token
        may use every served toolset.
    @ivar refusals: the L{RefusalSummary} a refused token is counted in; by
        default one on the validator's clock.
    """

    log = Logger()

    validator: TokenValidator = attr.ib()
    resource: ProtectedResource = attr.ib()
    scopeToolsets: ScopeToolsets | None = attr.ib(default=None)
    refusals: "RefusalSummary" = attr.ib(default=attr.Factory(
        lambda self: RefusalSummary(self.validator.clock), takes_self=True))

    @inlineCallbacks
    def admit(self, request: Request) -> Generator[
            "Deferred[Principal]", Principal, Challenge | None]:
        """
        Check the request's token.

        @return: a L{Deferred} firing with L{None} when it is admitted (its
            principal is then L{principalOf} it), or else with the
            L{Challenge} to answer.
        """
        header = request.getHeader(b"authorization")
        try:
            token = bearerToken(None if header is None
                                else header.decode("latin-1"))
            principal = yield self.validator.validate(token)
        except AuthenticationError as e:
            if not isinstance(e, NoToken):
                self.log.debug("refused a bearer token on {method} {path}: "
                               "{why}",
                               method=clipped(request.method.decode(
                                   "latin-1")),
                               path=clipped(request.path.decode("latin-1")),
                               why=e)
                self.refusals.refused(type(e).__name__)
            return self.resource.challenge(e)
        setattr(request, PRINCIPAL, attr.evolve(
            principal, toolsets=self.toolsetsFor(principal)))
        return None

    def metadata(self, request: Request) -> bytes:
        """
        The RFC 9728 document, as a response body.
        """
        request.setHeader(b"content-type", b"application/json")
        request.setHeader(b"cache-control", b"max-age=3600")
        return json.dumps(self.resource.metadata()).encode("utf-8")

    def toolsetsFor(self,
                    principal: Principal | None) -> frozenset[str] | None:
        """
        The toolset names C{principal}'s scopes open, or L{None} for all.
        """
        if self.scopeToolsets is None or principal is None:
            return None
        return self.scopeToolsets.toolsetsFor(principal.scopes)


@attr.s
class RefusalSummary:
    """
    Counts refused tokens by reason and logs at most one info line a
    summary period: each refusal is logged at debug level, so a flood of
    bad tokens does not fill the log.  The first refusal after a quiet
    period is summarised at once (a count of one), the ones after it with
    the first refusal once the period has passed.

    @ivar clock: an C{IReactorTime}.
    """

    log = Logger()
    PERIOD = 60.0

    clock: IReactorTime = attr.ib()
    _counts: dict[str, int] = attr.ib(factory=dict, init=False)
    _nextSummary: float | None = attr.ib(default=None, init=False)

    def refused(self, reason: str) -> None:
        """
        Count a token refused for C{reason} (an error's class name).
        """
        self._counts[reason] = self._counts.get(reason, 0) + 1
        now = self.clock.seconds()
        if self._nextSummary is not None and now < self._nextSummary:
            return
        self.log.info("refused {count} bearer token(s) since the last "
                      "summary: {reasons}", count=sum(self._counts.values()),
                      reasons=", ".join(
                          f"{n} {why}" for why, n in
                          sorted(self._counts.items())))
        self._counts = {}
        self._nextSummary = now + self.PERIOD


def principalOf(request: IRequest) -> Principal | None:
    """
    The L{Principal} the bearer gate admitted C{request} as, or L{None}.
    """
    return getattr(request, PRINCIPAL, None)


class BearerResource(Resource):
    """
    The site's root with authentication on: the metadata at its well-known
    paths, and everything else through L{BearerGate} to the app.

    A request with two C{Authorization} headers is refused before either is
    read: a proxy that reads the first and a daemon that reads the last
    would each think it knew who was asking.
    """

    isLeaf = True
    log = Logger()

    def __init__(self, app: IResource, gate: BearerGate) -> None:
        super().__init__()
        self.app = app
        self.gate = gate
        self.metadataPaths = {METADATA_PATH.encode(),
                              (METADATA_PATH + "/mcp").encode()}

    def render(self, request: Request) -> bytes | int:
        if request.path in self.metadataPaths:
            if request.method not in (b"GET", b"HEAD"):
                request.setHeader(b"allow", b"GET")
                return _refusal(request, 405, "Method Not Allowed: the "
                                "metadata is read with GET")
            return self.gate.metadata(request)
        if len(request.requestHeaders.getRawHeaders(
                b"authorization", ())) > 1:
            return _refusal(request, 400, "Bad Request: more than one "
                            "Authorization header")
        gone: list[Failure] = []
        request.notifyFinish().addErrback(gone.append)
        self.gate.admit(request).addCallback(
            self._admitted, request, gone).addErrback(
            self._failed, request, gone)
        return NOT_DONE_YET

    def _admitted(self, challenge: Challenge | None, request: Request,
                  gone: list[Failure]) -> None:
        if gone:
            return
        if challenge is not None:
            setattr(request, AUTH_REFUSED, True)
            request.setHeader(b"www-authenticate",
                              challenge.authenticate.encode("utf-8"))
            body = _refusal(request, challenge.status, challenge.message)
        else:
            body = self.app.render(request)
        if body is not NOT_DONE_YET:
            request.write(body)
            request.finish()

    def _failed(self, failure: Failure, request: Request,
                gone: list[Failure]) -> None:
        self.log.failure("checking a bearer token failed", failure)
        if gone:
            return
        request.write(_refusal(request, 500, "Internal error checking the "
                               "bearer token", INTERNAL_ERROR))
        request.finish()


def _refusal(request: Request, status: int, message: str,
             code: int = INVALID_REQUEST) -> bytes:
    request.setResponseCode(status)
    request.setHeader(b"content-type", b"application/json")
    return encode(JsonRpcError(code, message).asResponse(_requestId(request)))


def _requestId(request: Request) -> object:
    """
    The id of the JSON-RPC request in C{request}'s body, where it parses
    far enough to have one, so that even a refused client can match the
    answer to its request.  Read only for a refusal: an admitted request's
    body is the app's to parse.
    """
    if request.content is None:
        return None
    body = request.content.read(MAX_BODY_BYTES + 1)
    request.content.seek(0)
    if not body or len(body) > MAX_BODY_BYTES:
        return None
    try:
        message = parseMessage(body)
    except JsonRpcError as e:
        return e.requestId
    return message.id if message.kind == "request" else None

"""
The Streamable HTTP transport: C{POST}, C{GET} and C{DELETE /mcp}.

This module owns the routes, their status codes, the C{MCP-Session-Id}
header given to an initialized 2025 client, C{Last-Event-ID} and the one
error handler; the gates (L{gsmcpd.transport.gates}) read the rest of the
request's head, but for C{Accept} (L{gsmcpd.transport.sse}).
"""

import secrets
from collections.abc import Generator
from functools import partial

from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web import http
from twisted.web.resource import IResource
from twisted.web.server import Request

from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.metrics import UNOBSERVED, Metrics
from gsmcpd.protocol.endpoint import Endpoint, Exchange, Reply
from gsmcpd.protocol.eras.legacy.adapter import LegacyEra, clientNamed
from gsmcpd.protocol.eras.legacy.entry import LegacyEntry
from gsmcpd.protocol.eras.modern.entry import ModernEntry
from gsmcpd.protocol.jsonrpc import (
    INTERNAL_ERROR,
    JsonObject,
    JsonRpcError,
    encode,
)
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.outbound import PendingRequests
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.transport.bearer import principalOf
from gsmcpd.transport.connections import (
    DEFAULT_LIMITS,
    MAX_BODY_BYTES,
    ConnectionLimits,
    GuardedSite,
)
from gsmcpd.transport.gates import (
    Refusal,
    checkHeaders,
    namedSession,
    sessionIdOf,
)
from gsmcpd.transport.hosts import HostPolicy, OriginPolicy
from gsmcpd.transport.modern import ModernPost, headerValues
from gsmcpd.transport.resource import AnsweringResource, Body
from gsmcpd.transport.sse import (
    CallStream,
    EventStream,
    acceptsStream,
    callStream,
    parseEventId,
)


class CappedRequest(Request):
    """
    A request that stops storing its body one byte past L{MAX_BODY_BYTES},
    so an oversized body costs no memory before it is answered 413.
    """

    defaultContentType = b"application/json"

    def handleContentChunk(self, data: bytes) -> None:
        assert self.content is not None, "made by gotLength"
        room = MAX_BODY_BYTES + 1 - self.content.tell()
        if room > 0:
            self.content.write(data[:room])


class McpSite(GuardedSite):
    """
    The daemon's site: connections guarded (L{ConnectionLimits}), requests
    capped in size, and an access log only when asked for (a line per
    request costs about a quarter of the throughput, and the daemon logs
    what matters itself).  No POST body is parsed as an HTML form:
    twisted.web would otherwise parse every POST's Content-Type through the
    email package to look for one.
    """

    requestFactory = CappedRequest

    def __init__(self, resource: IResource, accessLog: bool = False,
                 limits: ConnectionLimits = DEFAULT_LIMITS,
                 reactor: IReactorTime | None = None,
                 metrics: Metrics = UNOBSERVED) -> None:
        super().__init__(resource, limits, reactor,
                         parsePOSTFormSubmission=False)
        self._accessLog = accessLog
        self._metrics = metrics

    def log(self, request: http.Request) -> None:
        # Called once each response is finished.
        self._metrics.responded(request)
        if self._accessLog:
            super().log(request)


MESSAGE_ID = "mcpMessageId"
"""Where a C{POST} keeps the id of the request it carries, for the error
handler: the id alone, so the request holds neither body nor L{Exchange}
(a cycle through it would outlive the POST in the frozen heap)."""


def messageIdOf(request: Request) -> object:
    """
    The id of the JSON-RPC request C{request} carries, or L{None} before
    its body is parsed (or for a notification).
    """
    return getattr(request, MESSAGE_ID, None)


def _written(reply: Reply, request: Request) -> bytes | None:
    """
    Write C{reply}'s status and headers; answer its body, or finish its
    stream with its response.
    """
    if reply.status is not None:
        request.setResponseCode(reply.status)
    for name, value in reply.headers:
        request.setHeader(name, value)
    if reply.stream is not None:
        return reply.stream.finish(reply.response)
    return reply.body


class McpApp(AnsweringResource):
    """
    The C{/mcp} endpoint, the site's resource (behind the bearer gate and
    the trace when they are on).

    @ivar origins: the L{OriginPolicy}: which browser pages may call.
    @ivar hosts: the L{HostPolicy}: which names requests may address.
    @ivar pending: the server's outstanding requests to clients.
    @ivar endpoint: the protocol layer's L{Endpoint}, called once a POST.
    """

    log = Logger()
    path = b"/mcp"
    allowed = b"DELETE, GET, HEAD, POST"
    unrouted = "this server answers MCP on /mcp (POST, GET, DELETE)"

    def __init__(self, sessions: SessionRegistry, legacy: LegacyEra,
                 modern: ModernPost, pending: PendingRequests,
                 clock: IReactorTime, origins: OriginPolicy,
                 hosts: HostPolicy) -> None:
        """
        Built by its caller, who builds each collaborator once
        (L{gsmcpd.daemon.service.assemble}).

        @param sessions: the L{SessionRegistry}.
        @param legacy: the L{gsmcpd.protocol.eras.legacy.adapter.LegacyEra}
            that answers 2025 requests.
        @param modern: the L{ModernPost} that answers 2026-07-28 requests.
        @param pending: the L{PendingRequests} answered by POSTed responses.
        @param origins: the L{OriginPolicy}.
        @param hosts: the L{HostPolicy}.
        """
        self.sessions = sessions
        self.legacy = legacy
        self.modern = modern
        self.pending = pending
        self.endpoint = Endpoint((ModernEntry(modern.era),
                                  LegacyEntry(legacy, pending)))
        self.clock = clock
        self.origins = origins
        self.hosts = hosts
        super().__init__()

    def _json(self, request: Request, document: object) -> bytes:
        request.setHeader(b"content-type", b"application/json")
        return encode(document)

    def _client(self, request: Request) -> ClientSession:
        return namedSession(request, partial(
            clientNamed, self.sessions.clients,
            principal=principalOf(request)))

    # Routes.

    def render_POST(self, request: Request) -> "Deferred[Body]":
        """
        Answer one JSON-RPC message: gated, read, handed to the protocol
        layer's L{Endpoint} once, and its L{Reply} written.

        @return: a L{Deferred} firing with the response body (or with
            L{None} when its event stream was already ended).
        """
        version = checkHeaders(request, self.origins, self.hosts)
        assert request.content is not None, "made by gotLength"
        body = request.content.read(MAX_BODY_BYTES + 1)
        if len(body) > MAX_BODY_BYTES:
            raise Refusal(413, f"Payload Too Large: request bodies are capped "
                          f"at {MAX_BODY_BYTES} bytes")
        exchange = Exchange(
            body, version, sessionIdOf(request), partial(headerValues, request),
            principalOf(request), acceptsStream(request),
            partial(callStream, request, self.clock),
            partial(self._internalError, request),
            partial(self.modern.listen, request))
        try:
            replied = self.endpoint.post(exchange)
        finally:
            setattr(request, MESSAGE_ID, exchange.requestId)
        return replied.addCallback(_written, request)

    def render_HEAD(self, request: Request) -> bytes:
        request.setResponseCode(405)
        request.setHeader(b"allow", b"GET, POST, DELETE")
        return b""

    def render_GET(self, request: Request) -> "Deferred[None]":
        checkHeaders(request, self.origins, self.hosts)
        client = self._client(request)
        resumed = parseEventId(
            (request.getHeader(b"last-event-id") or b"").decode("latin-1"))
        replay: list[bytes] = []
        if resumed is not None:
            key, after = resumed
            sequence = client.sequences.get(key)
            if sequence is not None and isinstance(sequence.owner,
                                                   CallStream):
                self.sessions.active(client.work)
                return sequence.owner.resume(request, after)
            if sequence is not None:
                replay = sequence.since(after)
        done: Deferred[None] = self.sessions.clients.openStream(
            client, lambda generation, onLost: EventStream(
                request, self.clock, client.outbox, generation, onLost,
                replay=replay)).done
        return done

    @inlineCallbacks
    def render_DELETE(self, request: Request) -> Generator[
            "Deferred[None]", None, bytes]:
        checkHeaders(request, self.origins, self.hosts)
        client = self._client(request)
        # Answered once the session is gone: its running call broken and
        # its GemStone session logged out, whether or not we are heard.
        yield self.sessions.close(client.handle, "the client deleted it",
                                  code="deleted")
        return self._json(request, {})

    # Errors: every answer is JSON, whatever went wrong.

    def failed(self, request: Request, failure: Failure) -> bytes:
        """
        The answer to a request that failed, the one error entry: a
        L{Refusal}'s status (an unknown path's and method's too), or a
        bug's.
        """
        if failure.check(Refusal):
            refusal = failure.value
            assert isinstance(refusal, Refusal)
            return self._refused(request, refusal)
        return self._unexpected(request, failure)

    def _refused(self, request: Request, refusal: Refusal) -> bytes:
        request.setResponseCode(refusal.status)
        return self._json(request, JsonRpcError(
            refusal.code, refusal.message).asResponse(messageIdOf(request)))

    def _unexpected(self, request: Request, failure: Failure) -> bytes:
        """
        A bug: answered as a JSON-RPC internal error.  A request with an id
        is answered 200, so its client matches the error to the request.
        """
        response = self._internalError(request, failure,
                                       messageIdOf(request))
        request.setResponseCode(500 if response["id"] is None else 200)
        return self._json(request, response)

    def _internalError(self, request: Request, failure: Failure,
                       messageId: object) -> JsonObject:
        """
        The response to a request that met a bug: a JSON-RPC internal error
        carrying the request's id and a correlation id; the log gets one
        line, and the traceback at debug level.
        """
        correlation = secrets.token_hex(6)
        self.log.error("internal error {correlation} answering {method} "
                       "{path}: {error}", correlation=correlation,
                       method=request.method.decode("latin-1"),
                       path=clipped(request.path.decode("latin-1")),
                       error=clipped(failure.getErrorMessage()))
        self.log.debug("internal error {correlation}: {traceback}",
                       correlation=correlation,
                       traceback=failure.getTraceback())
        return JsonRpcError(
            INTERNAL_ERROR, f"Internal error (correlation id {correlation}); "
            "the server log has the details.",
            {"correlationId": correlation}).asResponse(messageId)

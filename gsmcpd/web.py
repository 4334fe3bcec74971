"""
The Streamable HTTP transport: C{POST}, C{GET} and C{DELETE /mcp}.

This module owns everything HTTP: the gates (Origin, protocol version,
session id, body size), status codes, and the C{MCP-Session-Id} header that
maps a 2025-revision client onto a session handle.
"""

import json
from urllib.parse import urlsplit

from klein import Klein
from twisted.internet.defer import DeferredList, FirstError, inlineCallbacks
from twisted.logger import Logger
from twisted.web.server import Request, Site

from gsmcpd.dispatch import SUPPORTED_PROTOCOL_VERSIONS, SessionGoneError
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.pool import SessionLimitReached
from gsmcpd.jsonrpc import (
    INVALID_REQUEST, SERVER_ERROR, JsonRpcError, parseMessage, result)
from gsmcpd.escalation import RunningCall
from gsmcpd.outbound import PendingRequests
from gsmcpd.sse import CallStream, parseEventId

MAX_BODY_BYTES = 4 << 20
"""The largest request body accepted; a larger one is answered 413."""

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

TOLERATED_VERSION_HEADERS = ("2025-03-26",)
"""Revisions never negotiated here but accepted in the header of a request
inside a session: the conformance suite's raw requests and older SDK
transports send them, and the body's meaning does not change."""

GEMSTONE_METHODS = frozenset({"tools/call", "resources/read"})
"""The methods that run on the session's GemStone session, and so can have
a deadline, be cancelled, report progress or stream."""

SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"


class CappedRequest(Request):
    """
    A request that stops storing its body one byte past L{MAX_BODY_BYTES},
    so an oversized body costs no memory before it is answered 413.
    """

    def handleContentChunk(self, data):
        room = MAX_BODY_BYTES + 1 - self.content.tell()
        if room > 0:
            self.content.write(data[:room])


class McpSite(Site):
    """
    The daemon's site: requests capped in size, and an access log only when
    asked for (a line per request costs about a quarter of the throughput,
    and the daemon logs what matters itself).
    """

    requestFactory = CappedRequest

    def __init__(self, resource, accessLog=False):
        super().__init__(resource, parsePOSTFormSubmission=False)
        self._accessLog = accessLog

    def log(self, request):
        if self._accessLog:
            super().log(request)


def originHost(origin):
    """
    The lowercased host of an C{Origin} header value, or L{None}.
    """
    try:
        return urlsplit(origin).hostname
    except ValueError:
        return None


class McpApp:
    """
    The C{/mcp} endpoint.

    @ivar allowedOriginHosts: hosts a browser page may call from, besides
        loopback.
    @ivar pending: the server's outstanding requests to clients.
    @ivar requestTimeout: the per-request deadline in seconds, or L{None}.
    """

    app = Klein()
    log = Logger()

    def __init__(self, sessions, dispatcher, clock, allowedOriginHosts=(),
                 pending=None, requestTimeout=None, pinnedViewGrace=600.0):
        self.sessions = sessions
        self.dispatcher = dispatcher
        self.clock = clock
        self.pending = PendingRequests(clock) if pending is None else pending
        self.requestTimeout = requestTimeout
        self.pinnedViewGrace = pinnedViewGrace
        self.allowedOriginHosts = LOOPBACK_HOSTS | {
            originHost(host) or host.lower() for host in allowedOriginHosts}

    def resource(self):
        return self.app.resource()

    # Gates, in the order the routes apply them.

    def _refusal(self, request, status, message, code=INVALID_REQUEST):
        request.setResponseCode(status)
        return self._json(request, JsonRpcError(code, message).asResponse(None))

    def _json(self, request, document):
        request.setHeader(b"content-type", b"application/json")
        return json.dumps(document, ensure_ascii=False).encode("utf-8")

    def _gate(self, request):
        """
        The refusal common to every verb, or L{None}.
        """
        origin = request.getHeader(b"origin")
        if origin is not None and originHost(
                origin.decode("latin-1")) not in self.allowedOriginHosts:
            return self._refusal(
                request, 403, f"Forbidden: Origin {origin.decode('latin-1')!r} "
                "is not allowed")
        version = request.getHeader(VERSION_HEADER)
        if version is not None and version.decode("latin-1") not in \
                SUPPORTED_PROTOCOL_VERSIONS + TOLERATED_VERSION_HEADERS:
            return self._refusal(
                request, 400, f"Bad Request: unsupported MCP-Protocol-Version "
                f"{version.decode('latin-1')!r}; this server speaks "
                f"{', '.join(SUPPORTED_PROTOCOL_VERSIONS)}")
        return None

    def _gatedSession(self, request):
        """
        The common gates, then the session the request names, for the
        routes that have nothing to check before them.
        """
        refusal = self._gate(request)
        if refusal is not None:
            return None, refusal
        return self._session(request)

    def _session(self, request):
        """
        C{(session, None)} for the session the request names, or
        C{(None, refusal)}.
        """
        handle = request.getHeader(SESSION_HEADER)
        if handle is None:
            return None, self._refusal(
                request, 400, "Bad Request: MCP-Session-Id header is required")
        session = self.sessions.get(handle.decode("latin-1"))
        if session is None:
            return None, self._refusal(
                request, 404, "Not Found: no such session (it ended or never "
                "existed); initialize a new one")
        return session, None

    # Routes.

    @app.route("/mcp", methods=["POST"])
    @inlineCallbacks
    def post(self, request):
        refusal = self._gate(request)
        if refusal is not None:
            return refusal
        body = request.content.read(MAX_BODY_BYTES + 1)
        if len(body) > MAX_BODY_BYTES:
            return self._refusal(
                request, 413, f"Payload Too Large: request bodies are capped "
                f"at {MAX_BODY_BYTES} bytes")
        try:
            message = parseMessage(body)
        except JsonRpcError as e:
            request.setResponseCode(400)
            return self._json(request, e.asResponse(None))
        if message.kind == "request" and message.method == "initialize":
            answer = yield self._initialize(request, message)
            return answer
        session, refusal = self._session(request)
        if refusal is not None:
            return refusal
        if message.kind == "response":
            # An answer proves the client is listening, not that it is
            # working: it does not count as activity.
            self.pending.answer(session, message)
            request.setResponseCode(202)
            return b""
        self.sessions.touch(session)
        if session.replacing is not None:
            yield session.replacing
            session, refusal = self._session(request)
            if refusal is not None:
                return refusal
        if message.kind == "notification":
            if message.method == "notifications/cancelled":
                self._cancel(session, message.params)
            request.setResponseCode(202)
            return b""
        if message.method not in GEMSTONE_METHODS:
            # Answered from memory: nothing to end, nothing to stream.
            response = yield self.dispatcher.handle(session, message)
            return self._json(request, response)
        response = yield self._call(request, session, message)
        return response

    def _cancel(self, session, params):
        run = session.running.get(params.get("requestId"))
        if run is not None:
            self.log.info("session {handle}: the client cancelled request "
                          "{id!r}: {reason}", handle=session.handle,
                          id=run.requestId, reason=params.get("reason"))
            run.end("cancelled")

    @inlineCallbacks
    def _call(self, request, session, message):
        """
        Run one request on the session's GemStone session, answering it as
        JSON, or as an event stream carrying progress when the client asked
        for progress and accepts one.
        """
        run = RunningCall(session, message.id, self.sessions, self.clock)
        session.running[message.id] = run
        if self.requestTimeout is not None:
            run.setDeadline(self.requestTimeout)
        run.pending = self.pending
        stream = None
        token = (message.params.get("_meta") or {}).get("progressToken")
        tool = self.dispatcher.registry.get(message.params.get("name")) \
            if message.method == "tools/call" else None
        if (token is not None or getattr(tool, "streams", False)) and \
                message.method == "tools/call" and \
                b"text/event-stream" in (request.getHeader(b"accept") or b""):
            stream = CallStream(
                request, self.clock, session.callSequence(None), run, token,
                prime=session.protocolVersion >= "2025-11-25")
        answered = self.dispatcher.handle(session, message, run)

        def callOver(result):
            run.finished()
            return result

        answered.addBoth(callOver)
        try:
            response, _ = yield DeferredList(
                [answered, run.abandoned, run.cancelled],
                fireOnOneCallback=True, fireOnOneErrback=True,
                consumeErrors=True)
        except FirstError as e:
            failure = e.subFailure
            failure.trap(SessionGoneError)
            response = yield self._sessionGone(session, message,
                                               failure.value)
        finally:
            session.running.pop(message.id, None)
        if run.why == "cancelled":
            if stream is not None:
                return stream.finish(None)
            request.setResponseCode(202)
            return b""
        if run.why in ("deadline", "pinned"):
            response = JsonRpcError(
                SERVER_ERROR,
                run.endedMessage(self.requestTimeout, self.pinnedViewGrace),
                {"kind": run.why, "step": run.step}
            ).asResponse(message.id)
        if stream is not None:
            return stream.finish(response)
        return self._json(request, response)

    @inlineCallbacks
    def _sessionGone(self, session, message, error):
        self.log.error(
            "session {handle}: its gem died ({error}; reason: {reason})",
            handle=session.handle, error=error.gciError,
            reason=error.gciError.reason)
        yield self.sessions.close(session.handle, "its gem died")
        return error.asResponse(message.id)

    @inlineCallbacks
    def _initialize(self, request, message):
        params = message.params
        try:
            opening = self.sessions.open(
                params.get("protocolVersion"), params.get("clientInfo"))
        except SessionLimitReached as e:
            return self._json(request, JsonRpcError(
                SERVER_ERROR, str(e), {"kind": "sessionLimit",
                                       "limit": e.limit}
            ).asResponse(message.id))
        try:
            session = yield opening
        except GciError as e:
            self.log.error("GemStone login failed: {error} ({reason})",
                           error=e, reason=e.reason)
            return self._json(request, JsonRpcError(
                SERVER_ERROR, f"The GemStone login failed (GemStone error "
                f"{e.number}); the server log has the details.",
                {"kind": "loginFailed", "number": e.number}
            ).asResponse(message.id))
        request.setHeader(SESSION_HEADER, session.handle.encode("ascii"))
        return self._json(request, result(
            message.id, self.dispatcher.initializeResult(params)))

    @app.route("/mcp", methods=["GET"])
    def get(self, request):
        if request.method == b"HEAD":
            request.setResponseCode(405)
            request.setHeader(b"allow", b"GET, POST, DELETE")
            return b""
        session, refusal = self._gatedSession(request)
        if refusal is not None:
            return refusal
        resumed = parseEventId(
            (request.getHeader(b"last-event-id") or b"").decode("latin-1"))
        sequence = resumed and session.sequences.get(resumed[0])
        if sequence and isinstance(sequence.owner, CallStream):
            self.sessions.touch(session)
            return sequence.owner.resume(request, resumed[1])
        replay = sequence.since(resumed[1]) if sequence else ()
        return self.sessions.openStream(session, request, replay).done

    @app.route("/mcp", methods=["DELETE"])
    @inlineCallbacks
    def delete(self, request):
        session, refusal = self._gatedSession(request)
        if refusal is not None:
            return refusal
        yield self.sessions.close(session.handle, "the client deleted it")
        return b""

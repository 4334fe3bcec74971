"""
The 2026-07-28 era on C{POST /mcp}: its headers handed to the protocol
layer, its HTTP statuses, and its two kinds of event stream (a call that
reports progress, and C{subscriptions/listen}).
"""

from collections.abc import Generator, Sequence
from typing import Any

import attr
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IReactorTime
from twisted.web.iweb import IRequest
from twisted.web.server import Request

from gsmcpd.protocol.eras.modern.adapter import ModernEra
from gsmcpd.protocol.eras.modern.envelope import (
    Envelope,
    Headers,
    httpStatus,
    readEnvelope,
)
from gsmcpd.protocol.eras.modern.listen import OFFERED, Listener, readFilter
from gsmcpd.protocol.jsonrpc import (
    INVALID_REQUEST,
    JsonObject,
    JsonRpcError,
    Message,
    encode,
)
from gsmcpd.protocol.notices import ChangeNotices
from gsmcpd.sessions.outbox import Outbox
from gsmcpd.transport.bearer import principalOf
from gsmcpd.transport.gates import VERSION_HEADER
from gsmcpd.transport.sse import CallStream, EventStream, acceptsStream, callStream

CALL_STREAM = "c1"
"""A 2026 call's stream is its POST's only one: its events are numbered
under this key."""


def headerValues(request: IRequest) -> Headers:
    """
    The request's headers by lowercased name, each a list of its values,
    but for C{MCP-Protocol-Version}, which the gates read.
    """
    headers = {name.decode("latin-1").lower(): [v.decode("latin-1")
                                                for v in values]
               for name, values in request.requestHeaders.getAllRawHeaders()}
    headers.pop(VERSION_HEADER.decode("ascii"), None)
    return headers


class ModernPost:
    """
    One 2026-era C{POST}, from parsed message to HTTP response.
    """

    def __init__(self, era: ModernEra, notices: ChangeNotices,
                 clock: IReactorTime) -> None:
        """
        @param era: the L{gsmcpd.protocol.eras.modern.adapter.ModernEra}.
        @param notices: the L{gsmcpd.protocol.notices.ChangeNotices}
            listeners are added to.
        """
        self.era = era
        self.notices = notices
        self.clock = clock

    def _json(self, request: Request, document: object) -> bytes:
        request.setHeader(b"content-type", b"application/json")
        return encode(document)

    @inlineCallbacks
    def post(self, request: Request, message: Message,
             version: Sequence[str]) -> Generator[
            "Deferred[Any]", Any, bytes | None]:
        if message.kind != "request":
            # Nothing a 2026 client sends without an id needs an answer;
            # and no server-to-client request exists for it to answer.
            request.setResponseCode(202 if message.kind == "notification"
                                    else 400)
            return b"" if message.kind == "notification" else self._json(
                request, JsonRpcError(INVALID_REQUEST, "Invalid Request: MCP "
                                      "2026-07-28 has no server-to-client "
                                      "requests to answer").asResponse(None))
        headers = headerValues(request)
        streams: list[CallStream] = []

        def openStream() -> CallStream | None:
            if not acceptsStream(request):
                return None
            stream = callStream(request, self.clock, CALL_STREAM,
                                message.params)
            streams.append(stream)
            return stream

        try:
            envelope = attr.evolve(
                readEnvelope(message.method, message.params, headers,
                             version),
                principal=principalOf(request))
            if message.method == "subscriptions/listen":
                answer = yield self._listen(request, message, envelope)
                return answer
            answer = yield self.era.answer(message, envelope, headers,
                                           openStream)
            if answer.minted is not None:
                request.setHeader(b"mcp-param-session",
                                  answer.minted.encode("ascii"))
            response = answer.response(message.id)
        except JsonRpcError as e:
            response = e.asResponse(message.id)
            if not streams:
                request.setResponseCode(httpStatus(e.code))
        if streams:
            return streams[0].finish(response)
        return self._json(request, response)

    def _listen(self, request: Request, message: Message,
                envelope: Envelope) -> "Deferred[None]":
        """
        Hold the response open as the listener's stream: acknowledged
        first, then every change its filter names, until the client goes.
        """
        wants = self.era.listenable(
            readFilter(message.params).granted(OFFERED), envelope)
        outbox = Outbox(f"listener {message.id!r}")
        stream = EventStream(request, self.clock, outbox)

        def deliver(method: str, params: JsonObject) -> None:
            outbox.put({"jsonrpc": "2.0", "method": method, "params": params})
            stream.flush()

        subscriber = Listener(wants, deliver, message.id)
        self.notices.add(subscriber)
        subscriber.acknowledge()
        stream.done.addBoth(lambda _: self.notices.remove(subscriber))
        return stream.done

"""
The 2026-07-28 era's answer to a C{POST}: its envelope read and answered,
as JSON with its HTTP status or as its stream's last event.
"""

from collections.abc import Generator
from typing import Any

import attr
from twisted.internet.defer import Deferred, inlineCallbacks
from zope.interface import implementer

from gsmcpd.protocol.endpoint import (
    Exchange,
    IPostEra,
    IPostStream,
    Reply,
    json,
)
from gsmcpd.protocol.eras.modern.adapter import ModernEra
from gsmcpd.protocol.eras.modern.envelope import (
    httpStatus,
    isModern,
    readEnvelope,
)
from gsmcpd.protocol.eras.modern.listen import OFFERED, readFilter
from gsmcpd.protocol.jsonrpc import (
    INVALID_REQUEST,
    JsonRpcError,
    Message,
    result,
)


@implementer(IPostEra)
@attr.s(auto_attribs=True)
class ModernEntry:
    """The POSTs L{isModern} says are the 2026 era's."""

    era: ModernEra

    def claims(self, message: Message, version: tuple[str, ...]) -> bool:
        return isModern(version[-1] if version else None, message.params)

    @inlineCallbacks
    def post(self, exchange: Exchange, message: Message) -> Generator[
            "Deferred[Any]", Any, Reply]:
        if message.kind == "notification":
            # Nothing a 2026 client sends without an id needs an answer.
            return Reply(b"", 202)
        if message.kind == "response":
            return json(JsonRpcError(
                INVALID_REQUEST, "Invalid Request: MCP 2026-07-28 has no "
                "server-to-client requests to answer").asResponse(None), 400)
        streams: list[IPostStream] = []

        def openStream() -> IPostStream | None:
            if exchange.streams:
                # Its POST's only stream: its events are numbered under c1.
                streams.append(exchange.openStream("c1", message.params,
                                                   False))
                return streams[0]
            return None

        minted: tuple[tuple[bytes, bytes], ...] = ()
        status = None
        try:
            envelope = attr.evolve(
                readEnvelope(message.method, message.params,
                             exchange.headers, exchange.version),
                principal=exchange.principal)
            if message.method == "subscriptions/listen":
                ended = yield exchange.listen(self.era.listenable(
                    readFilter(message.params).granted(OFFERED), envelope),
                    message.id)
                return Reply(ended)
            answer = yield self.era.answer(message, envelope,
                                           exchange.headers, openStream)
            if answer.minted is not None:
                minted = ((b"mcp-param-session",
                           answer.minted.encode("ascii")),)
            response = result(message.id, answer.value)
        except JsonRpcError as e:
            response = e.asResponse(message.id)
            if not streams:
                status = httpStatus(e.code)
        if streams:
            return Reply(None, None, minted, streams[0], response)
        return json(response, status, minted)

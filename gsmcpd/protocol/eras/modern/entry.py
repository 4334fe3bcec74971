"""
The 2026-07-28 era's answer to a C{POST}: its envelope read and answered,
as JSON with its HTTP status or as its stream's last event.
"""

import attr
from twisted.internet.defer import Deferred, succeed
from twisted.python.failure import Failure
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
    JsonObject,
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

    def post(self, exchange: Exchange, message: Message) -> Deferred[Reply]:
        """Callbacks rather than a generator: this runs for every request."""
        if message.kind == "notification":
            # Nothing a 2026 client sends without an id needs an answer.
            return succeed(Reply(b"", 202))
        if message.kind == "response":
            return succeed(json(JsonRpcError(
                INVALID_REQUEST, "Invalid Request: MCP 2026-07-28 has no "
                "server-to-client requests to answer").asResponse(None), 400))
        streams: list[IPostStream] = []

        def openStream() -> "IPostStream | None":
            if exchange.streams:
                # Its POST's only stream: its events are numbered under c1.
                streams.append(exchange.openStream("c1", message.params,
                                                   False))
                return streams[0]
            return None

        def replied(response: JsonObject, status: int | None = None,
                    minted: str | None = None) -> Reply:
            named = () if minted is None else (
                (b"mcp-param-session", minted.encode("ascii")),)
            if streams:
                return Reply(None, None, named, streams[0], response)
            return json(response, status, named)

        def failed(failure: Failure) -> Reply:
            failure.trap(JsonRpcError)
            error = failure.value
            assert isinstance(error, JsonRpcError)
            return replied(error.asResponse(message.id),
                           None if streams else httpStatus(error.code))

        headers = exchange.headers()
        try:
            envelope = attr.evolve(readEnvelope(
                message.method, message.params, headers, exchange.version),
                principal=exchange.principal)
            if message.method == "subscriptions/listen":
                return exchange.listen(self.era.listenable(
                    readFilter(message.params).granted(OFFERED), envelope),
                    message.id).addCallbacks(Reply, failed)
            answering = self.era.answer(message, envelope, headers,
                                        openStream)
        except JsonRpcError:
            return succeed(failed(Failure()))
        return answering.addCallbacks(lambda answer: replied(
            result(message.id, answer.value), None, answer.minted), failed)

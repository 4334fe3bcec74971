"""
The protocol layer's one entry for a C{POST /mcp}: what the transport read
in, one L{Reply} out, so the transport only gates, calls and writes.
"""

from collections.abc import Callable
from typing import NoReturn

import attr
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure
from zope.interface import Attribute, Interface

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.jsonrpc import (
    INVALID_REQUEST,
    JsonObject,
    JsonRpcError,
    Message,
    encode,
    parseMessage,
)
from gsmcpd.protocol.notices import Filter
from gsmcpd.sessions.clients import NoSessionId, NoSuchSession
from gsmcpd.sessions.interfaces import ICallSink

JSON = ((b"content-type", b"application/json"),)

Headers = dict[str, list[str]]
"""A request's header values by lowercased name, as the transport hands
them over."""


@attr.s(auto_exc=True, auto_attribs=True)
class Refusal(Exception):
    """
    A request this server will not answer, and how to say so (raised by the
    gates and by this entry; the transport's error handler renders it).

    @ivar status: the HTTP status.
    @ivar code: the JSON-RPC error code.
    """

    status: int
    message: str
    code: int = INVALID_REQUEST


def sessionRefused(failure: Failure) -> NoReturn:
    """
    A failure to find the request's 2025 session, as its L{Refusal}: 400
    without the header, 404 for no such session (another identity's
    session or a 2026 handle the same, by the same steps).
    """
    if failure.check(NoSessionId):
        raise Refusal(400, "Bad Request: MCP-Session-Id header is required")
    failure.trap(NoSuchSession)
    raise Refusal(404, "Not Found: no such session (it ended or never "
                  "existed); initialize a new one")


class IPostStream(ICallSink):
    """A C{POST} answered as an event stream (the transport's)."""

    sequence = Attribute("The stream's numbered events, kept for a resume.")

    def finish(response: JsonObject | None) -> bytes | None:
        """Send the response: C{b""}, or L{None} if the POST is gone."""


OpenPostStream = Callable[[str, JsonObject, bool], IPostStream]
"""Opens a call's stream: its key, the call's params, whether primed."""


@attr.s(auto_attribs=True)
class Exchange:
    """
    What the transport read of one C{POST}, and the id of the request it
    carries once parsed (its error handler answers with it).

    @ivar version: each C{MCP-Protocol-Version} value, as the gates read.
    @ivar headers: the other headers' values by lowercased name.
    @ivar streams: whether the client accepts an event stream.
    @ivar internalError: the response to a call that met a bug, logged.
    @ivar listen: holds the response open as a C{subscriptions/listen}
        stream of the changes C{Filter} names, for the message's id.
    """

    body: bytes
    version: tuple[str, ...]
    sessionId: str | None
    headers: Headers
    principal: Principal | None
    streams: bool
    openStream: OpenPostStream
    internalError: Callable[[Failure], JsonObject]
    listen: Callable[[Filter, object], "Deferred[None]"]
    requestId: object = None


@attr.s(auto_attribs=True, frozen=True)
class Reply:
    """
    What the transport writes: a status and headers, then a body (L{None}:
    a stream ended the response) or C{response} as C{stream}'s last event.
    """

    body: bytes | None
    status: int | None = None
    headers: tuple[tuple[bytes, bytes], ...] = ()
    stream: IPostStream | None = None
    response: JsonObject | None = None


class IPostEra(Interface):
    """An era's answer to the POSTs it claims."""

    def claims(message: Message, version: tuple[str, ...]) -> bool:
        """Whether C{message}, sent with C{version}'s values, is its."""

    def post(exchange: Exchange, message: Message) -> "Deferred[Reply]":
        """
        The L{Reply} to C{message}.

        @raise Refusal: for a request naming no session of its sender.
        """


def json(document: object, status: int | None = None,
         header: tuple[tuple[bytes, bytes], ...] = ()) -> Reply:
    """A JSON L{Reply}: C{header}, then its content type."""
    return Reply(encode(document), status, header + JSON)


@attr.s(auto_attribs=True)
class Endpoint:
    """
    Both eras behind one call: the message read and handed to the first
    era that claims it.
    """

    eras: tuple[IPostEra, ...]

    def post(self, exchange: Exchange) -> "Deferred[Reply]":
        """
        The L{Reply} to one C{POST}.

        @raise Refusal: for a body that is no JSON-RPC message, or as its
            era does.
        """
        try:
            message = parseMessage(exchange.body)
        except JsonRpcError as e:
            exchange.requestId = e.requestId
            raise Refusal(400, e.message, e.code)
        if message.kind == "request":
            exchange.requestId = message.id
        era = next(era for era in self.eras
                   if era.claims(message, exchange.version))
        return era.post(exchange, message)

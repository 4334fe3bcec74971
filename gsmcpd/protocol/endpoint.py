"""
The protocol layer's one entry for a C{POST /mcp}: what the transport read
in, one L{Reply} out, so the transport only gates, calls and writes.
"""

from collections.abc import Callable

import attr
from twisted.internet.defer import Deferred, succeed
from twisted.python.failure import Failure
from zope.interface import Attribute, Interface

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol import jsonrpc
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError, Message
from gsmcpd.sessions.clients import NoSessionId, NoSuchSession
from gsmcpd.sessions.interfaces import ICallSink
from gsmcpd.sessions.listeners import Filter

Headers = dict[str, list[str]]
"""A request's header values by lowercased name."""


class IPostStream(ICallSink):
    """A C{POST} answered as an event stream (the transport's)."""

    sequence = Attribute("Its numbered events, kept for a resume.")

    def finish(response: JsonObject | None) -> bytes | None:
        """Send the response: C{b""}, or L{None} if the POST is gone."""


@attr.s(auto_attribs=True)
class Exchange:
    """
    What the transport read of one C{POST}, and what it does for it: open
    a call's stream (key, params, primed; only if C{streams}), answer a bug
    (failure, message id), hold a C{subscriptions/listen} open.  The
    C{requestId} is set before L{Endpoint.post} returns.
    """

    body: bytes
    version: tuple[str, ...]
    sessionId: str | None
    headers: Callable[[], Headers]
    principal: Principal | None
    streams: bool
    openStream: Callable[[str, JsonObject, bool], IPostStream]
    internalError: Callable[[Failure, object], JsonObject]
    listen: Callable[[Filter, object], "Deferred[None]"]
    requestId: object = None


@attr.s(auto_attribs=True, frozen=True)
class Reply:
    """A status and headers, then a body (L{None}: a stream ended the
    response), or C{response} as C{stream}'s last event."""

    body: bytes | None
    status: int | None = None
    headers: tuple[tuple[bytes, bytes], ...] = ()
    stream: IPostStream | None = None
    response: JsonObject | None = None


def json(document: object, status: int | None = None,
         header: tuple[tuple[bytes, bytes], ...] = ()) -> Reply:
    return Reply(jsonrpc.encode(document), status,
                 header + ((b"content-type", b"application/json"),))


def refused(status: int, error: JsonRpcError, requestId: object) -> Reply:
    """A request not answered: its status and error, without its data."""
    return json(JsonRpcError(error.code, error.message).asResponse(requestId),
                status)


def sessionRefused(failure: Failure, requestId: object) -> Reply:
    """No 2025 session for the request: 400 without its id, else 404."""
    bad = jsonrpc.INVALID_REQUEST
    if failure.check(NoSessionId):
        return refused(400, JsonRpcError(bad, "Bad Request: MCP-Session-Id "
                                         "header is required"), requestId)
    failure.trap(NoSuchSession)
    return refused(404, JsonRpcError(bad, "Not Found: no such session (it "
                                     "ended or never existed); initialize a "
                                     "new one"), requestId)


class IPostEra(Interface):
    """An era's answer to the POSTs it claims."""

    def claims(message: Message, version: tuple[str, ...]) -> bool:
        """Whether C{message}, sent with C{version}'s values, is its."""

    def post(exchange: Exchange, message: Message) -> "Deferred[Reply]":
        """The L{Reply} to C{message}."""


@attr.s(auto_attribs=True)
class Endpoint:
    """Both eras behind one call: the first that claims the message."""

    eras: tuple[IPostEra, ...]

    def post(self, exchange: Exchange) -> "Deferred[Reply]":
        """The L{Reply} to one C{POST}."""
        try:
            message = jsonrpc.parseMessage(exchange.body)
        except JsonRpcError as e:
            exchange.requestId = e.requestId
            return succeed(refused(400, e, e.requestId))
        if message.kind == "request":
            exchange.requestId = message.id
        era = next(era for era in self.eras
                   if era.claims(message, exchange.version))
        return era.post(exchange, message)

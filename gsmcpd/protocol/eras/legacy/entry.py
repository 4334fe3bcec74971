"""
The 2025 era's answer to a C{POST}: C{initialize}, a client's response to
the server's request, or a request on the session C{MCP-Session-Id} names.
"""


from functools import partial

import attr
from twisted.internet.defer import Deferred, succeed
from twisted.python.failure import Failure
from zope.interface import implementer

from gsmcpd.gci.session import shielded
from gsmcpd.protocol.endpoint import (
    Exchange,
    IPostEra,
    IPostStream,
    Reply,
    json,
    sessionRefused,
)
from gsmcpd.protocol.eras.legacy.adapter import LegacyEra, Opened, clientNamed
from gsmcpd.protocol.jsonrpc import JsonObject, Message
from gsmcpd.protocol.versions import PRIMED_STREAMS_SINCE, atLeast
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.clients import NoSessionId, NoSuchSession
from gsmcpd.sessions.outbound import PendingRequests


@implementer(IPostEra)
@attr.s(auto_attribs=True)
class LegacyEntry:
    """Every POST the 2026 era leaves is the 2025 era's."""

    era: LegacyEra
    pending: PendingRequests

    def claims(self, message: Message, version: tuple[str, ...]) -> bool:
        return True

    def post(self, exchange: Exchange, message: Message) -> "Deferred[Reply]":
        if message.kind == "request" and message.method == "initialize":
            return self.era.initialize(
                message, exchange.principal).addCallback(_initialized)
        found = partial(clientNamed, self.era.sessions.clients,
                        exchange.sessionId, exchange.principal)
        try:
            client = found()
        except (NoSessionId, NoSuchSession) as e:
            return succeed(sessionRefused(Failure(e), exchange.requestId))
        if message.kind == "response":
            # An answer proves the client is listening, not that it is
            # working: it does not count as activity.
            self.pending.answer(client, message)
            return succeed(Reply(b"", 202))
        if client.work.calls.replacing is not None:
            # Served by the new GemStone session once it is in place, found
            # again then (a second step into the sessions layer, on this
            # rare path only).
            return self.era.sessions.replaced(client.work).addCallback(
                lambda _: found()).addCallbacks(
                    lambda client: self._call(exchange, client, message),
                    sessionRefused, errbackArgs=(exchange.requestId,))
        return self._call(exchange, client, message)

    def _call(self, exchange: Exchange, client: ClientSession,
              message: Message) -> "Deferred[Reply]":
        streams: list[IPostStream] = []

        def openStream(client: ClientSession) -> "IPostStream | None":
            if exchange.streams:
                streams.append(exchange.openStream(
                    client.nextCallKey(), message.params,
                    atLeast(client.protocolVersion, PRIMED_STREAMS_SINCE)))
                client.keep(streams[0].sequence)
                return streams[0]
            return None

        answered = self.era.answer(client, message, exchange.principal,
                                   openStream)
        if not streams:
            # A client that hangs up cancels this: its answer can no longer
            # reach anyone, so the call is ended as notifications/cancelled
            # ends one (see sessions.running.Running).
            return answered.addCallback(_answered)
        # Finished when the call is, whether or not this POST is still
        # there: a dropped stream is resumed with Last-Event-ID.  The
        # stream has begun, so its last event carries a bug's error.
        return shielded(answered.addErrback(exchange.internalError, message.id)
                        .addCallback(streams[0].finish).addCallback(Reply))


def _initialized(opened: Opened) -> Reply:
    client, response = opened
    return json(response, None, () if client is None else (
        (b"mcp-session-id", client.handle.encode("ascii")),))


def _answered(response: JsonObject | None) -> Reply:
    return Reply(b"", 202) if response is None else json(response)

"""
The 2025 clients' sessions, each working in a work session under its
handle (the C{MCP-Session-Id}), and the grace a client that hung up its
event stream has to come back.
"""

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger

from gsmcpd.auth.tokens import Principal
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.interfaces import ISessionCloser, JsonObject
from gsmcpd.sessions.logins import SessionOpener
from gsmcpd.sessions.table import WorkSessions
from gsmcpd.sessions.work import WorkSession

StreamMaker = Callable[[int, Callable[[Any], None]], Any]
"""Makes a client's event stream, given its generation and what to call
when its client loses it; answers the stream."""


class NoSessionId(Exception):
    """
    The request names no session, and only C{initialize} may.
    """


class NoSuchSession(Exception):
    """
    The request names no live session of its identity: one that ended or
    never existed, another identity's, or a 2026 handle (never a 2025
    session id), all alike.
    """


class ClientSessions:
    """
    The live 2025 client sessions, by handle.

    @ivar byHandle: the live 2025 client sessions by handle, read as they
        are (a request's era finds its client session there,
        L{gsmcpd.protocol.eras.legacy.adapter.clientNamed}).
    @ivar streamLossGrace: seconds a session whose client hung up its stream
        keeps its GemStone session, in case the client reattaches.
    """

    log = Logger()

    def __init__(self, opener: SessionOpener, work: WorkSessions,
                 closer: ISessionCloser, clock: IReactorTime,
                 streamLossGrace: float = 10.0) -> None:
        self._opener = opener
        self._work = work
        self._closer = closer
        self._clock = clock
        self.streamLossGrace = streamLossGrace
        self.byHandle: dict[str, ClientSession] = {}
        self._graceTimers: dict[str, IDelayedCall] = {}

    def live(self) -> list[ClientSession]:
        """The live 2025 client sessions."""
        return list(self.byHandle.values())

    def get(self, handle: str) -> ClientSession | None:
        """The live 2025 client session C{handle} names, or L{None}."""
        return self.byHandle.get(handle)

    def open(self, protocolVersion: str, clientInfo: JsonObject | None,
             clientCapabilities: JsonObject | None = None,
             principal: Principal | None = None
             ) -> Deferred[ClientSession]:
        """
        Open a 2025 client's session: a work session
        (L{SessionOpener.open}) and the client's protocol state beside it.

        @return: a L{Deferred} firing with the registered L{ClientSession}.
        @raise gsmcpd.gci.pool.SessionLimitReached: as L{SessionOpener.open}.
        """
        def registered(work: WorkSession) -> ClientSession:
            client = ClientSession(work, protocolVersion, clientInfo,
                                   clientCapabilities, self._clock.seconds)
            self.byHandle[work.handle] = client
            return client

        return self._opener.open(principal, clientInfo).addCallback(
            registered)

    def openStream(self, client: ClientSession, makeStream: StreamMaker
                   ) -> Any:
        """
        Give C{client} a new event stream.  A client reopens its stream on
        its own, so this retracts a stream-loss verdict but is not activity.

        @param makeStream: called with the stream's generation and what to
            call when its client loses it; answers the stream.
        """
        self.retract(client.handle)
        return client.attachStream(
            lambda generation: makeStream(
                generation, lambda stream: self._streamLost(client, stream)))

    def forget(self, session: WorkSession) -> None:
        """
        C{session} is being closed: its client's session goes, and its
        stream ends.  The client is told nothing: its next request gets
        404.
        """
        client = self.byHandle.pop(session.handle, None)
        self.retract(session.handle)
        if client is not None and client.stream is not None:
            client.stream.end()

    def retract(self, handle: str) -> None:
        """A stream-loss verdict pending on C{handle}'s session: retracted."""
        timer = self._graceTimers.pop(handle, None)
        if timer is not None:
            timer.cancel()

    def _streamLost(self, client: ClientSession, stream: Any) -> None:
        """
        C{client}'s C{stream} ended: unless a newer stream took its place,
        its session closes once the grace passes without one.
        """
        # A superseded stream, or one of a session already closed, is no
        # longer what keeps its session: losing it decides nothing.
        if (self.byHandle.get(client.handle) is not client
                or client.stream is not stream):
            return
        client.stream = None
        self.log.info("session {handle}: its client {how} the event stream",
                      handle=client.label,
                      how="stopped reading" if stream.endedBy == "slow"
                      else "closed")
        if self.streamLossGrace == 0:
            self._graceOver(client)
        else:
            self._graceTimers[client.handle] = self._clock.callLater(
                self.streamLossGrace, self._graceOver, client)

    def _graceOver(self, client: ClientSession) -> None:
        self._graceTimers.pop(client.handle, None)
        if client.stream is None and not client.work.busy:
            self._closer.close(
                client.handle, f"its client closed its event stream and did "
                f"not come back within {self.streamLossGrace:g}s",
                code="stream_lost")

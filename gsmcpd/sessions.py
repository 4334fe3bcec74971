"""
MCP sessions: one client's GemStone session and its server-to-client stream.

The registry is keyed by an opaque handle.  The 2025 transport hands it out
as C{MCP-Session-Id}; nothing below the transport knows that header.
"""

import secrets

from twisted.internet.defer import DeferredList, succeed
from twisted.logger import Logger

from gsmcpd.tools.ledger import ReadLedger


def newHandle():
    """
    A session handle: 128 bits from the operating system's CSPRNG.
    """
    return secrets.token_hex(16)


class McpSession:
    """
    One client's session.

    @ivar handle: the opaque id the client sends back.
    @ivar gem: the L{GemSession} every call of this client runs on.
    @ivar protocolVersion: the revision negotiated at C{initialize}.
    @ivar clientInfo: what the client said it is.
    @ivar stream: the open server-to-client event stream, or L{None}.
    @ivar ledger: what this client has read in its present view, for the
        blind-write guardrail; it lives here, in the daemon, not the stone.
    """

    def __init__(self, handle, gem, protocolVersion, clientInfo):
        self.handle = handle
        self.gem = gem
        self.protocolVersion = protocolVersion
        self.clientInfo = clientInfo
        self.stream = None
        self.ledger = ReadLedger()

    def attachStream(self, stream):
        """
        Make C{stream} this session's event stream; the newest GET wins, so
        the previous stream ends.
        """
        previous, self.stream = self.stream, stream
        if previous is not None:
            previous.end()

    def detachStream(self, stream):
        if self.stream is stream:
            self.stream = None


class SessionRegistry:
    """
    The live MCP sessions, each holding a GemStone session from the pool.
    """

    log = Logger()

    def __init__(self, pool):
        self._pool = pool
        self._sessions = {}

    def __len__(self):
        return len(self._sessions)

    def open(self, protocolVersion, clientInfo):
        """
        Log a GemStone session in for a new client.

        @return: a L{Deferred} firing with the registered L{McpSession}.
        @raise gsmcpd.gci.pool.SessionLimitReached: synchronously when the
            pool is full; no login is attempted.
        """
        handle = newHandle()
        d = self._pool.open(name=handle[:8])

        def opened(gem):
            session = McpSession(handle, gem, protocolVersion, clientInfo)
            self._sessions[handle] = session
            self.log.info("session {handle} opened for {client}",
                          handle=handle, client=clientInfo)
            return session

        return d.addCallback(opened)

    def get(self, handle):
        """
        The live session C{handle} names, or L{None}.
        """
        return self._sessions.get(handle)

    def close(self, handle, reason):
        """
        Unmap the session and log its GemStone session out.
        """
        session = self._sessions.pop(handle, None)
        if session is None:
            return succeed(None)
        self.log.info("session {handle} closed: {reason}", handle=handle,
                      reason=reason)
        if session.stream is not None:
            session.stream.end()
        return self._pool.close(session.gem)

    def closeAll(self, reason):
        """
        Close every session; fires when every GemStone session is out.
        """
        closing = [self.close(handle, reason) for handle in list(self._sessions)]
        return DeferredList(closing + [self._pool.closeAll()],
                            consumeErrors=True)

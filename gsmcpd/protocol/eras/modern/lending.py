"""
Which work session a 2026-era call runs in: its handle's, a throwaway one
(commits locked, logged out when the call ends), or none for what never
touches the stone.  A tool whose point is a lasting change
(L{OWN_SESSION}) is refused without a handle.
"""

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.python.failure import Failure

from gsmcpd.gci.pool import ServerStopping, SessionLimitReached
from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol import kinds
from gsmcpd.protocol.calls import loginFailed, sessionLimitMessage
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.eras.modern.handles import (
    OPEN_SESSION,
    SESSION_ARGUMENT,
    closed,
    needsHandle,
    noSuchHandle,
    opened,
)
from gsmcpd.protocol.jsonrpc import (
    SERVER_ERROR,
    JsonObject,
    JsonRpcError,
    stoppingError,
)
from gsmcpd.protocol.recording import CallRecords
from gsmcpd.protocol.shares import CLOSE_ONE, shareRefusal
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.shares import ShareExhausted
from gsmcpd.tools.base import OWN_SESSION, Tool, ToolResult
from gsmcpd.tools.templates.outcomes import ToolError

Lent = tuple[IWorkSession, Callable[[], Any]]
"""A call's work session, and what to call when the call is over."""


def toolError(error: ToolError) -> JsonObject:
    """A tool's refusal as a finished C{tools/call} result."""
    return ToolResult.fromError(error).asResult()


def nothingToRelease() -> None:
    """What a call over needs done to a session that outlives it."""


class Lending:
    """The work sessions 2026-era calls run in, from the registry."""

    def __init__(self, sessions: SessionRegistry):
        self.sessions = sessions

    @inlineCallbacks
    def forTool(self, tool: Tool, handle: str | None, envelope: Envelope,
                admit: Callable[[IWorkSession | None], None]) -> Any:
        """
        The L{Lent} session a GemStone tool's call runs in.  A call without
        a handle is admitted (C{admit}) before one is lent.

        @raise JsonRpcError: for a handle that names no session, or a
            caller over its share of calls or sessions.
        @raise ToolError: for a lasting change without a handle, or no
            session free.
        """
        if handle is not None:
            session = yield self.sessions.working(handle, envelope.principal)
            if session is None:
                raise noSuchHandle(handle)
            return session, nothingToRelease
        if tool.runsOn == OWN_SESSION:
            raise needsHandle(tool)
        admit(None)
        borrowed = yield self.borrowed(
            envelope, "its one call (without a session handle) is done")
        return borrowed

    @inlineCallbacks
    def forRead(self, envelope: Envelope, records: CallRecords) -> Any:
        """
        A L{Lent} throwaway session for one resource read: a full server
        told as the 2025 era tells it (C{sessionLimit}: a read has no
        result to carry a tool's error), a caller over its share counted
        in C{records} (though no audit line names a read).
        """
        try:
            lent = yield self.borrowed(
                envelope, "its one read (a resource) is done")
        except ToolError as e:
            raise JsonRpcError(SERVER_ERROR, e.message,
                               dict(e.details or {}, kind=e.kind))
        except JsonRpcError as e:
            if isinstance(e.data, dict) and \
                    e.data.get("kind") == kinds.SHARE_CAP:
                records.refused(None, CallRefused(kinds.SHARE_CAP, e))
            raise
        return lent

    def borrowed(self, envelope: Envelope, why: str) -> Deferred[Lent]:
        """
        A throwaway session with a fresh view for one call (a spare of the
        request's GemStone user, never used, or a new login), and what
        ends it (a logout for C{why}, a spare logged in ahead when the call
        ended cleanly); raises L{JsonRpcError} for an identity at its share
        of sessions (a lent one counts while its call runs).
        """
        try:
            self.sessions.shares.admitSession(envelope.principal)
        except ShareExhausted as e:
            raise shareRefusal(e, CLOSE_ONE)
        taking = self.sessions.warm.take(envelope.principal)
        if taking is None:
            opening = self._loggedIn(envelope, throwaway=True)
        else:
            opening = taking.addCallback(
                lambda session: session or self._loggedIn(
                    envelope, throwaway=True))
        return self._lent(opening, lambda session:
                          self.sessions.warm.giveBack(session, why))

    def _loggedIn(self, envelope: Envelope, throwaway: bool = False
                  ) -> Deferred[IWorkSession]:
        """A new GemStone session as the request's GemStone user."""
        try:
            opening = self.sessions.opener.open(envelope.principal,
                                         envelope.clientInfo, throwaway)
        except SessionLimitReached as e:
            raise ToolError("sessionLimit", sessionLimitMessage(
                e.limit, "Close a session you no longer need (close_session) "
                "or pass the handle of one you hold as 'session'; else try "
                "again in a minute."), {"limit": e.limit})
        except ShareExhausted as e:
            raise shareRefusal(e, CLOSE_ONE)
        except ServerStopping as e:
            raise stoppingError(e)
        return opening.addErrback(loginFailed)

    def _lent(self, opening: Deferred[IWorkSession],
              end: Callable[[IWorkSession], Any]) -> Deferred[Lent]:
        """
        The session C{opening} fires with, and what ends it when its call
        is over (C{end}, with the session).
        """
        # The login runs to its end whoever stops waiting for it (a client
        # that hangs up): its slot is held until then, and the session it
        # opens for nobody is closed.
        borrowing: Deferred[Lent] = Deferred()

        def opened(session: IWorkSession) -> Any:
            if borrowing.called:
                return self.sessions.close(
                    session.handle, "its client stopped waiting for it",
                    code="abandoned")
            borrowing.callback((session, lambda: end(session)))

        def failed(failure: Failure) -> None:
            if not borrowing.called:
                borrowing.errback(failure)
        opening.addCallbacks(opened, failed)
        return borrowing

    @inlineCallbacks
    def handleTool(self, tool: Tool, arguments: JsonObject,
                   envelope: Envelope, minted: Callable[[str], object]
                   ) -> Any:
        """
        A L{Deferred} of C{open_session}'s result (C{minted} is told its
        handle) or C{close_session}'s.
        """
        try:
            tool.validate(arguments)
            if tool.name == OPEN_SESSION:
                lent = yield self._lent(self._loggedIn(envelope),
                                        lambda session: None)
                minted(lent[0].handle)
                answer = opened(lent[0].handle)
            else:
                handle = arguments[SESSION_ARGUMENT]
                if self.sessions.handled(handle, envelope.principal) is None:
                    raise noSuchHandle(handle)
                yield self.sessions.close(
                    handle, "the client closed it (close_session)",
                    code="closed")
                answer = closed(handle)
        except ToolError as e:
            return toolError(e)
        return answer.asResult()

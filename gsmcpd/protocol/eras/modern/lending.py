"""
Which session a 2026-era call runs on.

The 2025 era has one answer (the MCP session's); the 2026 era has three: the
session the C{session} argument's handle names (opened by C{open_session},
kept under the same lifetime policy and C{--max-sessions} count as a 2025
session), a throwaway session with a fresh view for a call made without a
handle, its work aborted when the call ends (kept warm for the next,
L{gsmcpd.sessions.warm}), or a detached session with no GemStone session
behind it for what never touches the stone.  A tool whose whole point is a
lasting change (L{OWN_SESSION}) has no throwaway session: without a handle
it is refused.
"""

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred, inlineCallbacks, succeed

from gsmcpd.auth.tokens import admits
from gsmcpd.gci.pool import ServerStopping, SessionLimitReached
from gsmcpd.protocol.calls import loginFailed, sessionLimitMessage
from gsmcpd.protocol.jsonrpc import JsonObject, stoppingError
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.eras.modern.handles import (
    needsHandle, noSuchHandle, sessionTools)
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.sessions.client import McpSession, newHandle, userOf
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.tools.base import OWN_SESSION, Tool, ToolResult
from gsmcpd.tools.templates.outcomes import ToolError


def toolError(error: ToolError) -> JsonObject:
    """
    A tool's refusal as a finished C{tools/call} result.
    """
    return ToolResult.fromError(error).asResult()


def nothingToRelease() -> None:
    """
    What a call's session needs done when the call is over, for one that
    outlives it (a handle's) or never logged in (a detached one).
    """


class CallSessions:
    """
    The sessions 2026-era calls run on, from the session registry.
    """

    def __init__(self, sessions, clock):
        self.sessions = sessions
        self.clock = clock

    def detached(self, envelope: Envelope) -> McpSession:
        """
        A session with no GemStone session behind it, for one request that
        does not touch the stone.
        """
        session = McpSession(newHandle(), None, MODERN_VERSION,
                             envelope.clientInfo, self.clock.seconds(),
                             self.clock.seconds, envelope.clientCapabilities,
                             expectsStream=False)
        session.logLevel = envelope.logLevel
        session.principal = envelope.principal
        return session

    def named(self, handle: str, envelope: Envelope) -> McpSession | None:
        """
        The live session C{handle} names, if the request's identity opened
        it in this era; else L{None}, by the same steps as for a handle that
        names nothing (a 2025 session id is never a handle).
        """
        session = self.sessions.get(handle)
        live = session is not None and \
            session.protocolVersion == MODERN_VERSION
        if not admits(session.principal if live else None,
                      envelope.principal, f"handle {handle[:8]}",
                      exists=live):
            return None
        return session

    @inlineCallbacks
    def forTool(self, tool, handle, envelope):
        """
        The session a GemStone tool's call runs on, and what to call when
        the call is over.

        @raise JsonRpcError: for a handle that names no session.
        @raise ToolError: for a tool that makes a lasting change called
            without a handle, or no session free.
        """
        if handle is not None:
            session = self.named(handle, envelope)
            if session is not None and session.calls.replacing is not None:
                yield session.calls.replacing
                session = self.named(handle, envelope)
            if session is None:
                raise noSuchHandle(handle)
            self.sessions.touch(session)
            session.logLevel = envelope.logLevel
            return session, nothingToRelease
        if tool.runsOn == OWN_SESSION:
            raise needsHandle(tool)
        borrowed = yield self.borrowed(
            envelope, "its one call (without a session handle) is done",
            changed=not tool.annotations.get("readOnlyHint"))
        return borrowed

    def borrowed(self, envelope: Envelope, why: str, changed: bool = False
                 ) -> Deferred[tuple[McpSession, Callable[[], Any]]]:
        """
        A throwaway GemStone session with a fresh view, for one call; and
        what ends it (its work aborted if the call C{changed} anything, it
        is kept warm for the next call of its GemStone user when the call
        ended cleanly, else closed for C{why}).  It is an idle one of the
        request's GemStone user, its view moved to the newest commit, or
        else a new login as that user.
        """
        taking = self.sessions.warm.take(userOf(envelope.principal))
        if taking is None:
            opening = self._loggedIn(envelope)
        else:
            opening = taking.addCallback(
                lambda session: session or self._loggedIn(envelope))
        return self._lent(opening, envelope, lambda session:
                          self.sessions.warm.keep(session, why, changed),
                          throwaway=True)

    def _loggedIn(self, envelope):
        """
        A new GemStone session as the request's GemStone user.
        """
        try:
            opening = self.sessions.open(MODERN_VERSION, envelope.clientInfo,
                                         envelope.clientCapabilities,
                                         envelope.principal,
                                         expectsStream=False)
        except SessionLimitReached as e:
            raise ToolError("sessionLimit", sessionLimitMessage(
                e.limit, "Close a session you no longer need (close_session) "
                "or pass the handle of one you hold as 'session'; else try "
                "again in a minute."), {"limit": e.limit})
        except ServerStopping as e:
            raise stoppingError(e)
        return opening.addErrback(loginFailed)

    def _lent(self, opening, envelope, end, throwaway=False):
        """
        The session C{opening} fires with, for the request, and what to
        call when its call is over (C{end}, with the session).

        @param throwaway: whether nothing its calls change is kept.
        """
        # The login runs to its end whoever stops waiting for it (a client
        # that hangs up): its slot is held until then, and the session it
        # opens for nobody is closed.
        borrowing = Deferred()

        def opened(session):
            if borrowing.called:
                return self.sessions.close(
                    session.handle, "its client stopped waiting for it",
                    code="abandoned")
            session.logLevel = envelope.logLevel
            session.clientInfo = envelope.clientInfo
            session.clientCapabilities = envelope.clientCapabilities or {}
            session.principal = envelope.principal
            session.throwaway = throwaway
            borrowing.callback((session, lambda: end(session)))

        def failed(failure):
            if not borrowing.called:
                borrowing.errback(failure)
        opening.addCallbacks(opened, failed)
        return borrowing

    @inlineCallbacks
    def sessionTool(self, tool, arguments, envelope):
        """
        Run C{open_session} or C{close_session}.
        """
        running = {t.name: t for t in sessionTools(
            lambda: self._open(envelope),
            lambda handle: self._close(handle, envelope))}
        try:
            tool.validate(arguments)
            answer = yield running[tool.name].run(None, arguments)
        except ToolError as e:
            return toolError(e)
        return answer.asResult()

    def _open(self, envelope):
        opened = self._lent(self._loggedIn(envelope), envelope,
                            nothingToRelease)
        return opened.addCallback(lambda lent: lent[0].handle)

    def _close(self, handle, envelope):
        if self.named(handle, envelope) is None:
            return succeed(False)
        return self.sessions.close(
            handle, "the client closed it (close_session)",
            code="closed").addCallback(
                lambda _: True)

"""
Which session a 2026-era call runs on.

The 2025 era has one answer (the MCP session's); the 2026 era has three: the
session the C{session} argument's handle names (opened by C{open_session},
kept under the same lifetime policy and C{--max-sessions} count as a 2025
session), a short-lived session with a fresh view for a read-only call made
without a handle (kept warm for the next, L{gsmcpd.sessions.warm}), or a
detached session with no GemStone session behind it for what never
touches the stone.
"""

from twisted.internet.defer import Deferred, inlineCallbacks, succeed

from gsmcpd.auth.tokens import admits
from gsmcpd.gci.pool import ServerStopping, SessionLimitReached
from gsmcpd.protocol.calls import loginFailed
from gsmcpd.protocol.eras import MODERN_VERSION
from gsmcpd.protocol.jsonrpc import stoppingError
from gsmcpd.protocol.handles import needsHandle, noSuchHandle, sessionTools
from gsmcpd.sessions.client import McpSession, newHandle, userOf
from gsmcpd.tools.base import ToolResult
from gsmcpd.tools.templates.outcomes import ToolError


def toolError(error):
    """
    A tool's refusal as a finished C{tools/call} result.
    """
    return ToolResult.fromError(error).asResult()


def nothingToRelease():
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

    def detached(self, envelope):
        """
        A session with no GemStone session behind it, for one request that
        does not touch the stone.
        """
        session = McpSession(newHandle(), None, MODERN_VERSION,
                             envelope.clientInfo, self.clock.seconds(),
                             self.clock.seconds, envelope.clientCapabilities)
        session.logLevel = envelope.logLevel
        session.principal = envelope.principal
        return session

    def named(self, handle, envelope):
        """
        The live session C{handle} names, if the request's identity opened
        it; else L{None}, exactly as for a handle that names nothing.
        """
        session = self.sessions.get(handle)
        if session is None or not admits(session.principal,
                                         envelope.principal,
                                         f"handle {handle[:8]}"):
            return None
        return session

    @inlineCallbacks
    def forTool(self, tool, handle, envelope):
        """
        The session a GemStone tool's call runs on, and what to call when
        the call is over.

        @raise ToolError: for a handle that names no session, a tool that
            changes the repository called without one, or no session free.
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
        if not tool.annotations.get("readOnlyHint"):
            raise needsHandle(tool)
        borrowed = yield self.borrowed(envelope, "its one read (without a "
                                       "session handle) is done")
        return borrowed

    def borrowed(self, envelope, why):
        """
        A short-lived GemStone session with a fresh view, for one read; and
        what ends it (it is kept warm for the next read of its GemStone
        user when the read ended cleanly, else closed for C{why}).  It is
        an idle one of the request's GemStone user, its view moved to the
        newest commit, or else a new login as that user.
        """
        taking = self.sessions.warm.take(userOf(envelope.principal))
        if taking is None:
            opening = self._loggedIn(envelope)
        else:
            opening = taking.addCallback(
                lambda session: session or self._loggedIn(envelope))
        return self._lent(opening, envelope, lambda session:
                          self.sessions.warm.keep(session, why))

    def _loggedIn(self, envelope):
        """
        A new GemStone session as the request's GemStone user.
        """
        try:
            opening = self.sessions.open(MODERN_VERSION, envelope.clientInfo,
                                         envelope.clientCapabilities,
                                         envelope.principal)
        except SessionLimitReached as e:
            raise ToolError("other", f"{e}; try again, or open_session and "
                            "reuse it", {"limit": e.limit})
        except ServerStopping as e:
            raise stoppingError(e)
        return opening.addErrback(loginFailed)

    def _lent(self, opening, envelope, end):
        """
        The session C{opening} fires with, for the request, and what to
        call when its call is over (C{end}, with the session).
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

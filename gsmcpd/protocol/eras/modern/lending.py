"""
Which work session a 2026-era call runs in, as the era words it: its
handle's, found by reading the live sessions (L{handleNamed}; admitted as
it runs), a throwaway one admitted and lent by the sessions layer
(L{gsmcpd.sessions.lending}), or none for what never touches the stone.  A
tool whose point is a lasting change (L{OWN_SESSION}) is refused without a
handle; C{open_session} and C{close_session} are answered here.
"""

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import (
    Deferred,
    fail,
    inlineCallbacks,
    maybeDeferred,
    succeed,
)
from twisted.python.failure import Failure

from gsmcpd.auth.tokens import Principal, admits
from gsmcpd.gci.pool import ServerStopping, SessionLimitReached
from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol import kinds
from gsmcpd.protocol.calls import loginFailed, sessionLimitMessage
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.eras.modern.handles import (
    OPEN_SESSION,
    SESSION_ARGUMENT,
    asRefusal,
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
from gsmcpd.sessions.lending import Lender, NotAdmitted
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.shares import ShareExhausted
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.base import OWN_SESSION, Tool, ToolResult
from gsmcpd.tools.templates.outcomes import ToolError


def handleNamed(sessions: SessionRegistry, handle: str,
                principal: Principal | None) -> WorkSession | None:
    """
    The live work session a 2026 C{handle} names, if C{principal} opened it
    as a handle (read, nothing counted), else L{None} by the same steps as
    for one that names nothing (a 2025 session id, a throwaway session).
    """
    session = sessions.work.byHandle.get(handle)
    live = session is not None and not session.throwaway and \
        handle not in sessions.clients.byHandle
    if not admits(session.principal if session and live else None,
                  principal, f"handle {handle[:8]}", exists=live):
        return None
    return session


def nothingToRelease() -> None:
    """What a call over needs done to a session that outlives it."""


def unlent(failure: Failure) -> Failure:
    """
    A lending's failure as the 2026 era words it; a L{NotAdmitted} as it
    is, for its call's era to record.
    """
    error = failure.value
    if isinstance(error, NotAdmitted):
        return failure
    if isinstance(error, ShareExhausted):
        raise shareRefusal(error, CLOSE_ONE)
    if isinstance(error, SessionLimitReached):
        raise ToolError("sessionLimit", sessionLimitMessage(
            error.limit, "Close a session you no longer need (close_session) "
            "or pass the handle of one you hold as 'session'; else try "
            "again in a minute."), {"limit": error.limit})
    if isinstance(error, ServerStopping):
        raise stoppingError(error)
    loginFailed(failure)


class Lending:
    """
    The work sessions 2026-era calls run in (L{Lender}, in the sessions
    layer), their refusals worded.
    """

    def __init__(self, sessions: SessionRegistry):
        self.sessions = sessions
        self.lender = Lender(sessions)

    def forTool(self, tool: Tool, handle: str | None, envelope: Envelope,
                requestId: object) -> Deferred[Any]:
        """
        The L{Lent} session a GemStone tool's call runs in: its handle's
        (admitted as it runs), else a throwaway one lent once the call is
        admitted (a second step down, on that path only); failing with its
        refusal (no such handle, a lasting change without one, none free).
        """
        if handle is not None:
            return self._handled(handle, envelope.principal)
        if tool.runsOn == OWN_SESSION:
            return fail(needsHandle(tool))
        return maybeDeferred(
            self.lender.forCall, envelope.principal, envelope.clientInfo,
            requestId, "its one call (without a session handle) is done"
        ).addErrback(unlent)

    def _handled(self, handle: str, principal: Principal | None
                 ) -> Deferred[Any]:
        session = handleNamed(self.sessions, handle, principal)
        if session is None:
            return fail(noSuchHandle(handle))
        if session.calls.replacing is None:
            return succeed((session, nothingToRelease))
        # Served by the new GemStone session once it is in place, found
        # again then (a second step into the sessions layer, on this rare
        # path only).
        return self.sessions.replaced(session).addCallback(
            lambda _: self._handled(handle, principal))

    @inlineCallbacks
    def forRead(self, envelope: Envelope, records: CallRecords) -> Any:
        """
        A L{Lent} throwaway session for one resource read: a full server
        told as the 2025 era tells it (C{sessionLimit}: a read has no
        result to carry a tool's error), a caller over its share counted
        in C{records} (though no audit line names a read).
        """
        try:
            lent = yield maybeDeferred(
                self.lender.borrowed, envelope.principal,
                envelope.clientInfo, "its one read (a resource) is done"
            ).addErrback(unlent)
        except ToolError as e:
            raise JsonRpcError(SERVER_ERROR, e.message,
                               dict(e.details or {}, kind=e.kind))
        except JsonRpcError as e:
            if isinstance(e.data, dict) and \
                    e.data.get("kind") == kinds.SHARE_CAP:
                records.refused(None, CallRefused(kinds.SHARE_CAP, e))
            raise
        return lent

    @inlineCallbacks
    def handleTool(self, tool: Tool, arguments: JsonObject,
                   envelope: Envelope, minted: Callable[[str], object]
                   ) -> Any:
        """
        A L{Deferred} of C{open_session}'s result (C{minted} is told its
        handle) or C{close_session}'s; a handle its caller may not use is
        refused as a L{CallRefused}.
        """
        try:
            tool.validate(arguments)
            if tool.name == OPEN_SESSION:
                lent = yield maybeDeferred(lambda: self.lender.lent(
                    self.lender.loggedIn(envelope.principal,
                                         envelope.clientInfo),
                    lambda session: None)).addErrback(unlent)
                minted(lent[0].handle)
                answer = opened(lent[0].handle)
            else:
                handle = arguments[SESSION_ARGUMENT]
                if handleNamed(self.sessions, handle,
                               envelope.principal) is None:
                    raise noSuchHandle(handle)
                yield self.sessions.close(
                    handle, "the client closed it (close_session)",
                    code="closed")
                answer = closed(handle)
        except ToolError as e:
            return ToolResult.fromError(e).asResult()
        except JsonRpcError as e:
            raise asRefusal(e, arguments.get(SESSION_ARGUMENT),
                            envelope.principal, self.sessions)
        return answer.asResult()

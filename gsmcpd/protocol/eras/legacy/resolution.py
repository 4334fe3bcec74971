"""
Which session a 2025 request works in: the client session its session id
names, if the request's identity opened it (its work session then says
whether a call must wait for a replacement: C{awaitReplacement}).

The id comes from the transport (C{MCP-Session-Id}, read there); what a
failure is called on the wire (400, 404) is the transport's too.
"""

from gsmcpd.auth.tokens import Principal, admits
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.registry import SessionRegistry


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


def clientSession(sessions: SessionRegistry, sessionId: str | None,
                  principal: Principal | None) -> ClientSession:
    """
    The live 2025 client session C{sessionId} names, if C{principal} opened
    it.

    @param sessionId: the request's session id, or L{None} without one.
    @param principal: the identity the request was admitted as, or
        L{None} without authentication.
    @raise NoSessionId: without a session id.
    @raise NoSuchSession: for no such session, and by the same steps for
        another identity's.
    """
    if sessionId is None:
        raise NoSessionId()
    session: ClientSession | None = sessions.clients.get(sessionId)
    # One check for a live session and for none, by the same steps: a
    # guesser cannot tell a foreign session from a made-up id.
    admitted = admits(None if session is None else session.work.principal,
                      principal, f"session {sessionId[:8]}",
                      exists=session is not None)
    if session is None or not admitted:
        raise NoSuchSession()
    return session

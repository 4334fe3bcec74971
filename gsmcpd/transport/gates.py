"""
The checks a request passes before anything answers it, and the refusal
each raises: the Host, Origin and protocol-version headers, the session
id.  The protocol version header is read here alone, and handed on.

A refusal is raised as a L{Refusal}; the app's one error handler renders
it as a JSON-RPC error with its HTTP status.
"""

import attr
from twisted.web.iweb import IRequest

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.eras.legacy.resolution import (
    NoSessionId,
    NoSuchSession,
    clientSession,
)
from gsmcpd.protocol.jsonrpc import INVALID_REQUEST
from gsmcpd.protocol.versions import (
    HANDSHAKE_ERA_VERSIONS,
    LEGACY_VERSIONS,
    TOLERATED_VERSION_HEADERS,
)
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.transport.hosts import HostPolicy, OriginPolicy

SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"


@attr.s(auto_exc=True, auto_attribs=True)
class Refusal(Exception):
    """
    A request this server will not answer, and how to say so.

    @ivar status: the HTTP status.
    @ivar code: the JSON-RPC error code.
    """

    status: int
    message: str
    code: int = INVALID_REQUEST


def checkHeaders(request: IRequest, origins: OriginPolicy,
                 hosts: HostPolicy) -> str | None:
    """
    The gates common to every verb: Host, Origin, then protocol version.

    @return: the C{MCP-Protocol-Version} header as sent, or L{None} without
        one: the one reading of it, which decides the request's era.
    @raise Refusal: 421, 403 or 400.
    """
    host = request.getHeader(b"host")
    if not hosts.allows(None if host is None else host.decode("latin-1"),
                        getattr(request.getHost(), "host", None)):
        raise Refusal(421, f"Misdirected Request: this server does not "
                      f"answer to Host {host.decode('latin-1')[:200]!r} "
                      "(see --allowed-host)")
    origin = request.getHeader(b"origin")
    if origin is not None and not origins.allows(origin.decode("latin-1")):
        raise Refusal(403, f"Forbidden: Origin "
                      f"{origin.decode('latin-1')[:200]!r} is not allowed "
                      "(see --allowed-origin)")
    header = request.getHeader(VERSION_HEADER)
    sent = None if header is None else header.decode("latin-1")
    version = (sent or "").strip()
    # A version outside the handshake era is the 2026 era's to answer
    # (eras.isModern): with -32022 when it is none of ours.
    if version in HANDSHAKE_ERA_VERSIONS and version not in \
            LEGACY_VERSIONS + TOLERATED_VERSION_HEADERS:
        raise Refusal(
            400, f"Bad Request: unsupported MCP-Protocol-Version "
            f"{version!r}; this server speaks "
            f"{', '.join(LEGACY_VERSIONS)}")
    return sent


def namedSession(request: IRequest, sessions: SessionRegistry,
                 principal: Principal | None = None) -> ClientSession:
    """
    The live 2025 client session the request's C{MCP-Session-Id} names, if
    the request's identity opened it
    (L{gsmcpd.protocol.eras.legacy.resolution.clientSession}).

    @param principal: the L{gsmcpd.auth.tokens.Principal} the bearer gate
        admitted the request as, or L{None} without authentication.
    @raise Refusal: 400 without the header, 404 for no such session, and
        the same 404, by the same steps, for another identity's session or
        a 2026 handle (never a 2025 session id).
    """
    header = request.getHeader(SESSION_HEADER)
    try:
        return clientSession(
            sessions, None if header is None else header.decode("latin-1"),
            principal)
    except NoSessionId:
        raise Refusal(400, "Bad Request: MCP-Session-Id header is required")
    except NoSuchSession:
        raise Refusal(404, "Not Found: no such session (it ended or never "
                      "existed); initialize a new one")

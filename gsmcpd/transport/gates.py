"""
The checks a request passes before anything answers it, and the refusal
each raises: the Host, Origin and protocol-version headers, the session
id.

A refusal is raised as a L{Refusal}; the app's one error handler renders
it as a JSON-RPC error with its HTTP status.
"""

import attr

from gsmcpd.auth.tokens import admits
from gsmcpd.protocol.jsonrpc import INVALID_REQUEST
from gsmcpd.protocol.versions import (
    HANDSHAKE_ERA_VERSIONS,
    LEGACY_VERSIONS,
    TOLERATED_VERSION_HEADERS,
)

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


def checkHeaders(request, origins, hosts):
    """
    The gates common to every verb: Host, Origin, then protocol version.

    @param origins: the L{OriginPolicy}.
    @param hosts: the L{HostPolicy}.
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
    version = (request.getHeader(VERSION_HEADER) or b"").decode(
        "latin-1").strip()
    # A version outside the handshake era is the 2026 era's to answer
    # (eras.isModern): with -32022 when it is none of ours.
    if version in HANDSHAKE_ERA_VERSIONS and version not in \
            LEGACY_VERSIONS + TOLERATED_VERSION_HEADERS:
        raise Refusal(
            400, f"Bad Request: unsupported MCP-Protocol-Version "
            f"{version!r}; this server speaks "
            f"{', '.join(LEGACY_VERSIONS)}")


def namedSession(request, sessions, principal=None):
    """
    The live 2025 client session the request's C{MCP-Session-Id} names, if
    the request's identity opened it.

    @param principal: the L{gsmcpd.auth.tokens.Principal} the bearer gate
        admitted the request as, or L{None} without authentication.
    @raise Refusal: 400 without the header, 404 for no such session, and
        the same 404, by the same steps, for another identity's session or
        a 2026 handle (never a 2025 session id).
    """
    handle = request.getHeader(SESSION_HEADER)
    if handle is None:
        raise Refusal(400, "Bad Request: MCP-Session-Id header is required")
    handle = handle.decode("latin-1")
    session = sessions.clients.get(handle)
    live = session is not None
    if not admits(session.work.principal if live else None, principal,
                  f"session {handle[:8]}", exists=live):
        raise Refusal(404, "Not Found: no such session (it ended or never "
                      "existed); initialize a new one")
    return session

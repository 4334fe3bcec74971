"""
The checks a request passes before anything answers it, and the refusal
each raises: the Host, Origin and protocol-version headers, the session
id.  The protocol version header is read here alone, and handed on.

A refusal is raised as a L{Refusal} (the protocol layer's, which raises
them too); the app's one error handler renders it as a JSON-RPC error with
its HTTP status.
"""

from collections.abc import Callable
from typing import TypeVar

from twisted.python.failure import Failure
from twisted.web.iweb import IRequest

from gsmcpd.protocol.endpoint import Refusal, sessionRefused
from gsmcpd.protocol.versions import (
    HANDSHAKE_ERA_VERSIONS,
    LEGACY_VERSIONS,
    TOLERATED_VERSION_HEADERS,
)
from gsmcpd.sessions.clients import NoSessionId, NoSuchSession
from gsmcpd.transport.hosts import HostPolicy, OriginPolicy

T = TypeVar("T")

SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"


def checkHeaders(request: IRequest, origins: OriginPolicy,
                 hosts: HostPolicy) -> tuple[str, ...]:
    """
    The gates common to every verb: Host, Origin, then protocol version.

    @return: each C{MCP-Protocol-Version} value as sent (none without the
        header): the one reading of it, handed down to decide the
        request's era and, in the 2026 era, to check its envelope.
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
    sent = tuple(value.decode("latin-1") for value in
                 request.requestHeaders.getRawHeaders(VERSION_HEADER, []))
    version = sent[-1].strip() if sent else ""
    # A version outside the handshake era is the 2026 era's to answer
    # (eras.isModern): with -32022 when it is none of ours.
    if version in HANDSHAKE_ERA_VERSIONS and version not in \
            LEGACY_VERSIONS + TOLERATED_VERSION_HEADERS:
        raise Refusal(
            400, f"Bad Request: unsupported MCP-Protocol-Version "
            f"{version!r}; this server speaks "
            f"{', '.join(LEGACY_VERSIONS)}")
    return sent


def sessionIdOf(request: IRequest) -> str | None:
    """
    The request's C{MCP-Session-Id}, or L{None} without one.
    """
    header = request.getHeader(SESSION_HEADER)
    return None if header is None else header.decode("latin-1")


def namedSession(request: IRequest, resolve: Callable[[str | None], T]) -> T:
    """
    What C{resolve} (the 2025 era's) makes of the request's
    C{MCP-Session-Id}: its client session.

    @raise Refusal: 400 without the header, 404 for no such session, and
        the same 404, by the same steps, for another identity's session or
        a 2026 handle (never a 2025 session id).
    """
    try:
        return resolve(sessionIdOf(request))
    except (NoSessionId, NoSuchSession) as e:
        sessionRefused(Failure(e))

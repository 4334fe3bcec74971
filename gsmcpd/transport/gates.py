"""
The checks a request passes before anything answers it, and the refusal
each raises: the Host, Origin and protocol-version headers, the session
id.  The protocol version header is read here alone, and handed on.

A refusal is raised as a L{Refusal}; the app's one error handler renders
it as a JSON-RPC error with its HTTP status.
"""

from collections.abc import Callable
from typing import NoReturn, TypeVar

import attr
from twisted.python.failure import Failure
from twisted.web.iweb import IRequest

from gsmcpd.protocol.jsonrpc import INVALID_REQUEST
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
_REFUSED_VERSIONS = frozenset(HANDSHAKE_ERA_VERSIONS) - frozenset(
    LEGACY_VERSIONS + TOLERATED_VERSION_HEADERS)
"""The handshake-era versions a header may not name."""


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
    sent = tuple([value.decode("latin-1") for value in
                  request.requestHeaders.getRawHeaders(VERSION_HEADER, ())])
    version = sent[-1].strip() if sent else ""
    # A version outside the handshake era is the 2026 era's to answer
    # (eras.isModern): with -32022 when it is none of ours.
    if version in _REFUSED_VERSIONS:
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


def sessionRefused(failure: Failure) -> NoReturn:
    """
    A failure to find the request's 2025 session, as its L{Refusal}.
    """
    if failure.check(NoSessionId):
        raise Refusal(400, "Bad Request: MCP-Session-Id header is required")
    failure.trap(NoSuchSession)
    raise Refusal(404, "Not Found: no such session (it ended or never "
                  "existed); initialize a new one")

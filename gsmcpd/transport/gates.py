"""
The checks a request passes before anything answers it, and the refusal
each raises: the Origin and protocol-version headers, the session id.

A refusal is raised as a L{Refusal}; the app's one error handler renders
it as a JSON-RPC error with its HTTP status.
"""

from urllib.parse import urlsplit

import attr

from gsmcpd.protocol.dispatch import SUPPORTED_PROTOCOL_VERSIONS
from gsmcpd.protocol.eras import HANDSHAKE_ERA_VERSIONS
from gsmcpd.protocol.jsonrpc import INVALID_REQUEST

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

TOLERATED_VERSION_HEADERS = ("2025-03-26",)
"""Revisions never negotiated here but accepted in the header of a request
inside a session: the conformance suite's raw requests and older SDK
transports send them, and the body's meaning does not change."""

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


def originHost(origin):
    """
    The lowercased host of an C{Origin} header value, or L{None}.
    """
    try:
        return urlsplit(origin).hostname
    except ValueError:
        return None


def allowedHosts(extra):
    """
    The hosts a browser page may call from: loopback, and C{extra} (hosts
    or origins).
    """
    return LOOPBACK_HOSTS | {originHost(host) or host.lower()
                             for host in extra}


def checkHeaders(request, allowedOriginHosts):
    """
    The gates common to every verb: Origin, then protocol version.

    @raise Refusal: 403 or 400.
    """
    origin = request.getHeader(b"origin")
    if origin is not None and originHost(
            origin.decode("latin-1")) not in allowedOriginHosts:
        raise Refusal(403, f"Forbidden: Origin {origin.decode('latin-1')!r} "
                      "is not allowed")
    version = (request.getHeader(VERSION_HEADER) or b"").decode(
        "latin-1").strip()
    # A version outside the handshake era is the 2026 era's to answer
    # (eras.isModern): with -32022 when it is none of ours.
    if version in HANDSHAKE_ERA_VERSIONS and version not in \
            SUPPORTED_PROTOCOL_VERSIONS + TOLERATED_VERSION_HEADERS:
        raise Refusal(
            400, f"Bad Request: unsupported MCP-Protocol-Version "
            f"{version!r}; this server speaks "
            f"{', '.join(SUPPORTED_PROTOCOL_VERSIONS)}")


def namedSession(request, sessions):
    """
    The live session the request's C{MCP-Session-Id} names.

    @raise Refusal: 400 without the header, 404 for no such session.
    """
    handle = request.getHeader(SESSION_HEADER)
    if handle is None:
        raise Refusal(400, "Bad Request: MCP-Session-Id header is required")
    session = sessions.get(handle.decode("latin-1"))
    if session is None:
        raise Refusal(404, "Not Found: no such session (it ended or never "
                      "existed); initialize a new one")
    return session

"""
Which era a request is, and what a 2026-07-28 one carries instead of a
handshake (a 2025 client negotiates once and names its session): on every
request its version and capabilities in C{params._meta}, its method and
name again in C{Mcp-Method}/C{Mcp-Name} so an intermediary routes without
reading the body.  No HTTP object: the transport hands down the values.
"""

import base64
import binascii
import re
from collections.abc import Callable, Sequence

import attr

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.endpoint import Headers
from gsmcpd.protocol.jsonrpc import (
    INVALID_PARAMS,
    JsonObject,
    JsonRpcError,
    invalidParams,
)
from gsmcpd.protocol.versions import (
    HANDSHAKE_ERA_VERSIONS,
    MODERN_VERSION,
    SUPPORTED_VERSIONS,
)
from gsmcpd.sessions.client import LOG_LEVELS

HEADER_MISMATCH = -32020
MISSING_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022
NO_SUCH_SESSION = -32004
"""A C{session} handle that names no live session of the request's
identity (answered 404, as the 2025 era answers an unknown session id)."""

PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"

NAMED_PARAMS = {"tools/call": "name", "prompts/get": "name",
                "resources/read": "uri", "tasks/get": "taskId",
                "tasks/update": "taskId", "tasks/cancel": "taskId"}
"""The body parameter each method mirrors into the C{Mcp-Name} header (the
task methods by the tasks extension)."""

VERSION_HEADER = "mcp-protocol-version"
METHOD_HEADER = "mcp-method"
NAME_HEADER = "mcp-name"
PARAM_HEADER_PREFIX = "mcp-param-"
PARAM_HEADER_KEYWORD = "x-mcp-header"
"""The input-schema keyword that declares a tool argument mirrored into an
C{Mcp-Param-<token>} header (a load balancer can route on it)."""

HTTP_STATUS = {-32700: 400, -32600: 400, INVALID_PARAMS: 400,
               HEADER_MISMATCH: 400, MISSING_CLIENT_CAPABILITY: 400,
               UNSUPPORTED_PROTOCOL_VERSION: 400, -32601: 404,
               NO_SUCH_SESSION: 404}
"""The HTTP status of a 2026-era error response, by JSON-RPC code; any other
code (a tool's own failure, an internal error) is answered 200."""


def httpStatus(code: int) -> int:
    return HTTP_STATUS.get(code, 200)


def isModern(versionHeader: str | None, params: JsonObject) -> bool:
    """
    Whether a request takes the 2026-07-28 path: its version header names
    no handshake-era revision (an unknown one is answered with the
    supported list), or, without one, its C{_meta} names a version.
    """
    if versionHeader is not None:
        return versionHeader.strip() not in HANDSHAKE_ERA_VERSIONS
    meta = params.get("_meta")
    return isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta


def unsupportedVersion(requested: object) -> JsonRpcError:
    return JsonRpcError(
        UNSUPPORTED_PROTOCOL_VERSION,
        f"Unsupported protocol version {requested!r}; this server speaks "
        f"{', '.join(SUPPORTED_VERSIONS)}",
        {"supported": list(SUPPORTED_VERSIONS), "requested": requested})


def missingCapability(name: str, why: str) -> JsonRpcError:
    return JsonRpcError(
        MISSING_CLIENT_CAPABILITY,
        f"Missing required client capability {name!r}: {why}",
        {"requiredCapabilities": {name: {}}})


def methodRemoved(method: str | None) -> JsonRpcError:
    """A method the 2026 era dropped (C{initialize}, C{ping},
    C{logging/setLevel}, C{resources/subscribe}: the 2025 path serves them)
    or never had (the tasks extension's first C{tasks/result} and
    C{tasks/list})."""
    return JsonRpcError(-32601, f"Method not found: {method} (not part of "
                        f"MCP {MODERN_VERSION})")


def mismatch(message: str) -> JsonRpcError:
    return JsonRpcError(HEADER_MISMATCH, f"Header mismatch: {message}")


@attr.s(frozen=True, auto_attribs=True)
class Envelope:
    """
    What a 2026-era request says about its client, in place of a handshake.

    @ivar clientCapabilities: the capabilities this request declares; a
        capability counts only for the request that declares it.
    @ivar logLevel: the least severe log level the client wants on this
        request's stream, or L{None} for no log messages at all.
    @ivar principal: who sends it (the L{gsmcpd.auth.tokens.Principal} the
        bearer gate admitted it as), or L{None} without authentication:
        the GemStone user its sessions log in as, and who may use a handle
        or a task it opens.
    """

    protocolVersion: str
    clientCapabilities: JsonObject
    clientInfo: JsonObject | None = None
    logLevel: str | None = None
    principal: Principal | None = None

    def supports(self, capability: str) -> bool:
        return isinstance(self.clientCapabilities.get(capability), dict)


def _single(headers: Headers, name: str) -> str | None:
    return _one(name, headers.get(name) or ())


def _one(name: str, values: Sequence[str]) -> str | None:
    """The one value of header C{name}, stripped, or L{None}; one sent twice
    is refused (a router reading the first copy and a server the last would
    disagree about the request)."""
    if len(values) > 1:
        raise mismatch(f"{name} appears more than once")
    return values[0].strip() if values else None


def readEnvelope(method: str | None, params: JsonObject,
                 headers: Headers, version: Sequence[str]) -> Envelope:
    """
    A 2026-era request's L{Envelope}, checked in rungs, the first failure
    raised: a version header naming a revision we do not speak, on a body
    that names none (C{-32022}); C{_meta} and its two required keys
    (C{-32602}); the version, method and name headers against the body
    (C{-32020}); the version itself (C{-32022}).
    """
    versionHeader = _one(VERSION_HEADER, version)
    meta = params["_meta"] if isinstance(params.get("_meta"), dict) else None
    if (versionHeader is not None and versionHeader not in SUPPORTED_VERSIONS
            and (meta is None or PROTOCOL_VERSION_KEY not in meta)):
        raise unsupportedVersion(versionHeader)
    if meta is None:
        raise invalidParams(f"MCP {MODERN_VERSION} requests carry "
                            f"params._meta with {PROTOCOL_VERSION_KEY} and "
                            f"{CLIENT_CAPABILITIES_KEY}")
    missing = [key for key in (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY)
               if key not in meta]
    if missing:
        raise invalidParams(f"params._meta lacks {' and '.join(missing)}")
    version = meta[PROTOCOL_VERSION_KEY]
    if versionHeader != version:
        raise mismatch(f"MCP-Protocol-Version {versionHeader!r} but "
                       f"_meta says {version!r}")
    methodHeader = _single(headers, METHOD_HEADER)
    if methodHeader != method:
        raise mismatch(f"Mcp-Method {methodHeader!r} but the body's method "
                       f"is {method!r}")
    if method in NAMED_PARAMS:
        named = params.get(NAMED_PARAMS[method])
        nameHeader = decodeHeaderValue(_single(headers, NAME_HEADER))
        if named is not None and nameHeader != named:
            raise mismatch(f"Mcp-Name {nameHeader!r} but the body's "
                           f"{NAMED_PARAMS[method]} is {named!r}")
    if version not in SUPPORTED_VERSIONS:
        raise unsupportedVersion(version)
    capabilities = meta[CLIENT_CAPABILITIES_KEY]
    if not isinstance(capabilities, dict):
        raise invalidParams(f"{CLIENT_CAPABILITIES_KEY} must be an object")
    level = meta.get(LOG_LEVEL_KEY)
    if level is not None and level not in LOG_LEVELS:
        raise invalidParams(f"{LOG_LEVEL_KEY} must be one of "
                            f"{', '.join(LOG_LEVELS)}")
    info = meta.get(CLIENT_INFO_KEY)
    return Envelope(version, capabilities,
                    info if isinstance(info, dict) else None, level)


_BASE64_WRAPPED = re.compile(r"=\?base64\?(.*)\?=\Z", re.DOTALL)


def decodeHeaderValue(value: str | None) -> str | None:
    """
    A header value as the body would carry it: C{=?base64?...?=} unwrapped
    (how a client mirrors a value a header cannot carry as is), anything
    else literal.

    @raise JsonRpcError: C{-32020} for a wrapped value that is not canonical
        base64 of UTF-8.
    """
    wrapped = None if value is None else _BASE64_WRAPPED.match(value)
    if wrapped is None:
        return value
    payload = wrapped.group(1)
    try:
        decoded = base64.b64decode(payload, validate=True)
        if base64.b64encode(decoded).decode("ascii") != payload:
            raise ValueError("not canonical")
        return decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        raise mismatch(f"{value!r} is not valid base64 of UTF-8 text")


def mirroredParameters(inputSchema: JsonObject) -> dict[str, str]:
    """C{{argument: header token}} of the top-level arguments a tool
    declares for header mirroring."""
    return {name: spec[PARAM_HEADER_KEYWORD]
            for name, spec in inputSchema.get("properties", {}).items()
            if isinstance(spec, dict) and PARAM_HEADER_KEYWORD in spec}


def checkParameterHeaders(inputSchema: JsonObject, arguments: JsonObject,
                          headers: Headers,
                          expected: Callable[[], bool]) -> None:
    """
    Check a tool call's C{Mcp-Param-*} headers against its arguments: each
    mirrored argument and its header are present together and agree.

    @param expected: answers (asked only for a header missing) whether the
        client was shown the schema that declares the mirroring (the tool's
        C{tools/list} entry), so must have sent the headers; else a header
        it sent must still agree, and one it did not send is not missed.
    @raise JsonRpcError: C{-32020} on any disagreement.
    """
    for argument, token in mirroredParameters(inputSchema).items():
        header = f"Mcp-Param-{token}"
        raw = _single(headers, PARAM_HEADER_PREFIX + token.lower())
        value = arguments.get(argument)
        if value is None:
            if raw is not None:
                raise mismatch(f"{header} is set but the {argument!r} "
                               "argument is absent")
            continue
        if raw is None:
            if not expected():
                continue
            raise mismatch(f"{header} is missing; it must mirror the "
                           f"{argument!r} argument")
        rendered = str(value).lower() if isinstance(value, bool) else str(value)
        if decodeHeaderValue(raw) != rendered:
            raise mismatch(f"{header} does not match the {argument!r} "
                           "argument")

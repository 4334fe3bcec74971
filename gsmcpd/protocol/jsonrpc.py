"""
JSON-RPC 2.0 as MCP uses it: parsing a body, and the envelopes we answer.

A body is UTF-8 JSON holding one message.  Malformed UTF-8 is refused with
the byte offset where it goes wrong, rather than repaired into stored text;
batches are refused (MCP dropped them in 2025-06-18).
"""

import json
import re
from typing import Any, NoReturn, cast

import attr
from twisted.python.failure import Failure

from gsmcpd.protocol.kinds import KINDS

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32001
"""Implementation-defined: session limit, session gone, request ended."""


JsonObject = dict[str, Any]
"""A JSON object as parsed: a message, its params, a result."""


def _closedKind(error: object, attribute: object, data: object) -> None:
    """A C{kind} is one of L{gsmcpd.protocol.kinds.KINDS}: clients branch
    on it."""
    if isinstance(data, dict) and "kind" in data and \
            data["kind"] not in KINDS:
        raise ValueError(f"{data['kind']!r} is not one of the error kinds "
                         "gsmcpd.protocol.kinds declares")


@attr.s(auto_exc=True, auto_attribs=True)
class JsonRpcError(Exception):
    """
    A JSON-RPC error to answer in place of a result.

    @ivar data: what the client may read besides the message.
    """

    code: int
    message: str
    data: object = attr.ib(default=None, validator=_closedKind)
    requestId: object = attr.ib(default=None, kw_only=True)
    """The id of the request refused, when it could be read."""

    def asResponse(self, id: object) -> JsonObject:
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return {"jsonrpc": "2.0", "id": id, "error": error}


def invalidParams(detail: str, data: object = None, *,
                  requestId: object = None) -> JsonRpcError:
    """-32602, worded as every refusal of params is: C{Invalid params: why}."""
    return JsonRpcError(INVALID_PARAMS, f"Invalid params: {detail}", data,
                        requestId=requestId)


def stoppingError(stopping: Any) -> JsonRpcError:
    """A draining daemon's answer to a new session's request, either era
    (L{gsmcpd.gci.pool.ServerStopping})."""
    return JsonRpcError(SERVER_ERROR, str(stopping), {"kind": stopping.kind})


@attr.s(frozen=True, auto_attribs=True)
class Message:
    """
    One parsed JSON-RPC message.

    @ivar kind: C{"request"}, C{"notification"} or C{"response"} (a client
        answering a request the server sent it).
    """

    kind: str
    method: str | None
    id: object
    params: JsonObject
    raw: JsonObject


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""Only a body that escapes a surrogate can decode to a lone one."""


def _refuseLoneSurrogates(value: Any) -> None:
    # json.loads turns a lone \ud800 escape into a str no UTF-8 can carry.
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise JsonRpcError(
                PARSE_ERROR, f"Parse error: a lone surrogate escape "
                f"(\\u{ord(value[e.start]):04x}) is not a character")
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuseLoneSurrogates(key)
            _refuseLoneSurrogates(item)
    elif isinstance(value, list):
        for item in value:
            _refuseLoneSurrogates(item)


MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a message may have: far more
than any MCP message needs, far less than would exhaust a stack."""
_TOO_DEEP = f"Parse error: nested deeper than {MAX_DEPTH} levels"


def _refuseConstant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _deeperThan(document: Any, limit: int) -> bool:
    """Iterative: the check of depth must not itself recurse."""
    level = [document] if isinstance(document, (dict, list)) else []
    for _ in range(limit):
        level = [child for value in level
                 for child in (value.values() if isinstance(value, dict)
                               else value)
                 if isinstance(child, (dict, list))]
    return bool(level)


def parseMessage(body: bytes) -> Message:
    """
    Parse one JSON-RPC message from a request body.

    @raise JsonRpcError: -32700 for bad UTF-8 or JSON, -32600 for a batch or
        anything that is not a JSON-RPC 2.0 message.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JsonRpcError(
            PARSE_ERROR, f"Parse error: malformed UTF-8 at byte offset "
            f"{e.start} ({e.reason})")
    try:
        if text.startswith("\ufeff"):
            # What json.loads says of a BOM before it builds its decoder.
            raise json.JSONDecodeError(
                "Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        document = _DECODER.decode(text)
    except ValueError as e:
        raise JsonRpcError(PARSE_ERROR, f"Parse error: {e}")
    except RecursionError:
        raise JsonRpcError(PARSE_ERROR, _TOO_DEEP)
    # Counting brackets is cheap; walking a million elements is not.
    if text.count("[") + text.count("{") > MAX_DEPTH and \
            _deeperThan(document, MAX_DEPTH):
        raise JsonRpcError(PARSE_ERROR, _TOO_DEEP)
    if _SURROGATE_ESCAPE.search(text):
        _refuseLoneSurrogates(document)
    if isinstance(document, list):
        raise JsonRpcError(
            INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not "
            "supported (MCP removed them in 2025-06-18)")
    if not isinstance(document, dict) or document.get("jsonrpc") != "2.0":
        raise JsonRpcError(
            INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message '
            '(an object with "jsonrpc": "2.0")')
    messageId = document.get("id")
    if "id" in document and (isinstance(messageId, bool) or not isinstance(
            messageId, (str, int))):
        raise JsonRpcError(
            INVALID_REQUEST, "Invalid Request: id must be a string or an "
            "integer")
    method = document.get("method")
    if method is None:
        if "id" not in document or not ("result" in document or
                                         "error" in document):
            raise JsonRpcError(
                INVALID_REQUEST, "Invalid Request: no method, and not a "
                "response")
        return Message("response", None, messageId, {}, document)
    if not isinstance(method, str):
        raise JsonRpcError(INVALID_REQUEST,
                           "Invalid Request: method must be a string",
                           requestId=messageId)
    params = document.get("params", {})
    if params is None or params == []:
        # Some clients send [] for a method that takes nothing: no params.
        params = {}
    if not isinstance(params, dict):
        raise invalidParams("params must be an object", requestId=messageId)
    if not isinstance(params.get("_meta", {}), dict):
        raise invalidParams("_meta must be an object", requestId=messageId)
    kind = "request" if "id" in document else "notification"
    return Message(kind, method, messageId, params, document)


def result(id: object, value: object) -> JsonObject:
    """A success response."""
    return {"jsonrpc": "2.0", "id": id, "result": value}


def errorResponse(failure: Failure, messageId: object) -> JsonObject:
    """A request's L{JsonRpcError} as its response; anything else fails on."""
    failure.trap(JsonRpcError)
    return cast(JsonRpcError, failure.value).asResponse(messageId)


def progressTokenOf(params: JsonObject) -> object:
    """The progress token a request's C{_meta} carries, or L{None}."""
    return (params.get("_meta") or {}).get("progressToken")


def refuseCursor(params: JsonObject, method: str) -> None:
    """Lists answer in one page, so a cursor cannot have come from us."""
    if params.get("cursor") is not None:
        raise invalidParams(f"{method} answers in one page; this server "
                            "issued no cursor")


def encode(document: object) -> bytes:
    """Compact: nothing reads the whitespace, and every client pays for it."""
    return _ENCODER.encode(document).encode("utf-8")


# Built once: json.loads and json.dumps build a new decoder or encoder on
# every call given any option, a measurable part of a call's cost.
_DECODER = json.JSONDecoder(parse_constant=_refuseConstant)
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

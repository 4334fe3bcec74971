"""
GemStone sessions behind server-minted handles, for the 2026 era.

A 2026-07-28 client has no MCP session, yet a GemStone transaction must
span its calls.  So C{open_session} logs in and answers a handle (the same
opaque registry key a 2025 session id maps to), every GemStone tool takes it
as its C{session} argument, and C{close_session} logs out.  The argument is
added to each tool's schema in that era only (2025 clients see the schemas
they always saw), declared for header mirroring so a load balancer can route
on C{Mcp-Param-Session}.
"""

from typing import Any

from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol import kinds
from gsmcpd.protocol.eras.modern.envelope import NO_SUCH_SESSION, PARAM_HEADER_KEYWORD
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError, invalidParams
from gsmcpd.sessions.work import couldBeHandle
from gsmcpd.tools.base import (
    NO_SESSION,
    Tool,
    ToolError,
    ToolResult,
    annotations,
    resultSchema,
)
from gsmcpd.tools.catalog import AdvertisedTool
from gsmcpd.tools.catalogtools import TOOL_CALL

SESSION_ARGUMENT = "session"
LISTED_SESSION_PROPERTY = {"type": "string", PARAM_HEADER_KEYWORD: "Session"}
"""The C{session} argument as C{tools/list} describes it: what it is and
how to use it is said once, in the instructions, not on each tool."""
SESSION_PROPERTY = dict(LISTED_SESSION_PROPERTY,
                        description="open_session's handle")


def takeHandle(arguments: JsonObject) -> tuple[str | None, JsonObject]:
    """
    A 2026 call's session handle (or L{None}), and the tool's own arguments.

    @raise JsonRpcError: C{-32602} for a handle that is not a string: no
        handle we minted is anything else, and the registry is keyed by them.
    """
    rest = dict(arguments)
    handle = rest.pop(SESSION_ARGUMENT, None)
    if handle is not None and not isinstance(handle, str):
        raise invalidParams(f"the {SESSION_ARGUMENT!r} argument must be a "
                            "string, the handle open_session answered")
    return handle, rest


def needsHandle(tool: Tool) -> ToolError:
    """Refused without a session: a throwaway one would discard its change."""
    return ToolError(
        "refused", f"{tool.name} needs a session of your own: call "
        f"open_session and pass the handle it answers as "
        f"{SESSION_ARGUMENT!r}.")


def noSuchHandle(handle: str) -> JsonRpcError | ToolError:
    """
    A handle that names no live session.  One a daemon could have minted is
    answered 404, as the 2025 era answers an unknown session id (a load
    balancer sent it elsewhere, or this daemon restarted); any other value
    never named a session, and is the tool's refusal of its argument.
    """
    gone = (f"There is no GemStone session {handle!r}: it was closed "
            "(close_session, idle or lifetime limit, the gem died, a server "
            "restart) or never existed. Its uncommitted changes, if any, "
            "are gone. Call open_session for a new one.")
    if couldBeHandle(handle):
        return JsonRpcError(NO_SUCH_SESSION, gone,
                            {"kind": kinds.NO_SUCH_SESSION, "session": handle})
    return ToolError("refused", f"{handle!r} is not a session handle: pass "
                     "the one open_session answered, or call open_session "
                     "for a new one.", {"session": handle})


def asRefusal(error: JsonRpcError | ToolError, handle: str | None,
              principal: Any, sessions: Any) -> Exception:
    """
    C{error} as the L{CallRefused} it is, or itself when it is none: a
    handle unknown or another's (told alike, only the audit tells them
    apart), none, or over a share.
    """
    if isinstance(error, ToolError):
        kind = kinds.NO_SUCH_SESSION if error.kind == "refused" else None
    else:
        kind = error.data.get("kind") if isinstance(error.data, dict) \
            else None
    if kind == kinds.SHARE_CAP:
        return CallRefused(kind, error)
    if kind != kinds.NO_SUCH_SESSION:
        return error
    if handle is None:
        return CallRefused("handleRequired", error)
    owner = getattr(sessions.work.get(handle), "principal", None)
    return CallRefused("foreignHandle" if owner is not None and (
        principal is None or owner.identity != principal.identity)
        else "unknownHandle", error)


HANDLE_OUTPUT = resultSchema(session={"type": "string"})

OPEN_SESSION = "open_session"
CLOSE_SESSION = "close_session"

HANDLE_TOOLS = (
    AdvertisedTool(
        OPEN_SESSION, "Open a GemStone session",
        "Log in a GemStone session of your own (a transaction that spans "
        "calls) and answer its handle.",
        {"type": "object", "properties": {}, "additionalProperties": False},
        annotations(readOnly=False), None, outputSchema=HANDLE_OUTPUT),
    AdvertisedTool(
        CLOSE_SESSION, "Close a GemStone session",
        "Log the session out, discarding its uncommitted changes.",
        {"type": "object", "properties": {
            SESSION_ARGUMENT: LISTED_SESSION_PROPERTY},
         "required": [SESSION_ARGUMENT], "additionalProperties": False},
        annotations(readOnly=False, destructive=True, idempotent=True),
        None, outputSchema=HANDLE_OUTPUT),
)
"""C{open_session} and C{close_session}: tools only in name, answered by
L{gsmcpd.protocol.eras.modern.lending.Lending.handleTool}, listed after the
catalog's tools (as L{AdvertisedTool}s: C{tools/list} describes them)."""


def opened(handle: str) -> ToolResult:
    return ToolResult(
        f"Opened GemStone session {handle}. Pass it as the "
        f"{SESSION_ARGUMENT!r} argument of each GemStone tool; changes stay "
        "uncommitted until commit; close_session ends it.",
        {"session": handle})


def closed(handle: str) -> ToolResult:
    return ToolResult(f"Closed GemStone session {handle}; its uncommitted "
                      "changes, if any, were discarded.", {"session": handle})


def takesHandle(tool: Tool) -> bool:
    """
    A tool that runs on a GemStone session takes C{session}, and so does
    C{tool_call}, which passes it on (clients mirror it as for a direct call).
    """
    return tool.name == TOOL_CALL or (
        tool.runsOn != NO_SESSION and tool not in HANDLE_TOOLS)


class ToolSchemas:
    """
    Each tool as this era declares it (with C{session}, L{takesHandle}, and
    its task support), made once per tool and form (an L{AdvertisedTool} is
    C{tools/list}'s): the catalog does not change while the daemon runs.
    """

    def __init__(self) -> None:
        self._schemas: dict[tuple[str, bool], JsonObject] = {}

    def schemaOf(self, tool: Tool) -> JsonObject:
        """C{tool}'s schema in this era, C{session} added if it takes one: a
        call's tool is read as data (its C{inputSchema}), not described."""
        listed = isinstance(tool, AdvertisedTool)
        schema = self._schemas.get((tool.name, listed))
        if schema is None:
            schema = tool.descriptor()["inputSchema"] if listed \
                else tool.inputSchema
            if takesHandle(tool):
                schema = dict(schema, properties=dict(
                    schema.get("properties", {}), **{SESSION_ARGUMENT: (
                        LISTED_SESSION_PROPERTY if listed
                        else SESSION_PROPERTY)}))
            self._schemas[tool.name, listed] = schema
        return schema

    def describe(self, tool: Tool) -> JsonObject:
        """C{tool} as this era's C{tools/list} describes it."""
        described = dict(tool.descriptor(), inputSchema=self.schemaOf(tool))
        if tool.taskSupport is not None:
            described["execution"] = {"taskSupport": tool.taskSupport}
        return described

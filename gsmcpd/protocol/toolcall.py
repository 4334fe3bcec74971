"""
What a C{tools/call}'s request says of the tool it names, once for both
eras: no such tool, and whether it is answered as a stream (the sessions
layer runs it: L{gsmcpd.sessions.running.ToolRun}).
"""

from gsmcpd.protocol.jsonrpc import (
    INVALID_PARAMS,
    JsonObject,
    JsonRpcError,
    progressTokenOf,
)
from gsmcpd.tools.base import Tool


def unknownTool(params: JsonObject) -> JsonRpcError:
    """
    The error for a C{tools/call} that names no tool its caller may use.
    """
    name = params.get("name")
    if not isinstance(name, str):
        return JsonRpcError(INVALID_PARAMS,
                            "Invalid params: tools/call needs a tool name")
    return JsonRpcError(INVALID_PARAMS,
                        f"Invalid params: unknown tool {name!r}")


def answersAsStream(params: JsonObject, tool: Tool | None) -> bool:
    """
    Whether a C{tools/call} of C{tool} may be answered as a stream, where
    the client accepts one: it asked for progress, or the tool sends the
    client messages while it runs.
    """
    return progressTokenOf(params) is not None or \
        getattr(tool, "streams", False)

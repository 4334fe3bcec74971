"""
C{tools/call}, once for both eras: what its request says of the tool it
names, handed to the sessions layer to run where its era placed it
(L{gsmcpd.sessions.toolrun}).
"""

from typing import Any

from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import (
    INVALID_PARAMS,
    JsonObject,
    JsonRpcError,
    progressTokenOf,
)
from gsmcpd.sessions.toolrun import runTool
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


def callTool(request: RequestFacts, tool: Tool) -> Any:
    """
    Run C{tool}, the one C{request} names, where its era placed it.
    """
    return runTool(request.work, tool, request.arguments, request.context,
                   request.dialect.describe)

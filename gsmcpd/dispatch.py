"""
MCP over JSON-RPC: what each method does, independent of HTTP.

Nothing here reads a header: per-request client facts are passed in, so the
2025 transport (session ids) and a later one (server-minted handles) can
share it.
"""

import attr
from twisted.internet.defer import inlineCallbacks
from twisted.logger import Logger

from gsmcpd import __version__
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.jsonrpc import (
    INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, SERVER_ERROR,
    JsonRpcError, result)
from gsmcpd.tools.base import ToolCall, ToolError, ToolResult

SUPPORTED_PROTOCOL_VERSIONS = ("2025-06-18", "2025-11-25")
"""The single source of truth for negotiation and the header check."""
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[-1]

SESSION_NOTE = (
    "[session] This session has uncommitted changes: commit keeps them, "
    "abort discards them; they are lost if the session ends first (DELETE, "
    "idle timeout, or a server restart).")


@attr.s(frozen=True, auto_attribs=True)
class ServerIdentity:
    """
    What C{initialize} says this server is.

    @ivar title: which instance this is, for a human; no default, so a
        title present means an operator chose it.
    @ivar instructions: the hint for the model, or L{None} to send none.
    """

    name: str = "gsmcpd"
    version: str = __version__
    title: str | None = None
    instructions: str | None = None


def negotiateVersion(requested):
    """
    Echo the client's protocol version if we speak it, else our latest.
    """
    if requested in SUPPORTED_PROTOCOL_VERSIONS:
        return requested
    return LATEST_PROTOCOL_VERSION


class SessionGoneError(JsonRpcError):
    """
    The session's gem died; the session must be unmapped as this is sent.
    """

    def __init__(self, error):
        super().__init__(
            SERVER_ERROR,
            f"The GemStone session ended (GemStone error {error.number}); "
            "this MCP session is closed. Initialize a new session.",
            {"kind": "sessionGone", "number": error.number})
        self.gciError = error


class Dispatcher:
    """
    Answers MCP requests for one server's tool surface.
    """

    log = Logger()

    def __init__(self, registry, identity):
        self.registry = registry
        self.identity = identity

    def initializeResult(self, params):
        """
        The C{initialize} result for a client that sent C{params}.
        """
        info = {"name": self.identity.name, "version": self.identity.version}
        if self.identity.title is not None:
            info["title"] = self.identity.title
        answer = {
            "protocolVersion": negotiateVersion(params.get("protocolVersion")),
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": info,
        }
        if self.identity.instructions:
            answer["instructions"] = self.identity.instructions
        return answer

    @inlineCallbacks
    def handle(self, session, message, run=None):
        """
        Answer one request or notification on C{session}.

        @param run: the request's L{gsmcpd.escalation.RunningCall}, through
            which it can be ended and report progress.

        @return: a L{Deferred} firing with the response, or with L{None} for
            a notification.  A L{SessionGoneError} fails it.
        """
        if message.kind == "notification":
            return None
        handler = {
            "ping": self._ping,
            "tools/list": self._toolsList,
            "tools/call": self._toolsCall,
            "initialize": self._reinitialize,
        }.get(message.method)
        try:
            if handler is None:
                raise JsonRpcError(METHOD_NOT_FOUND,
                                   f"Method not found: {message.method}")
            value = yield handler(session, message.params, run)
        except SessionGoneError:
            raise
        except JsonRpcError as e:
            return e.asResponse(message.id)
        return result(message.id, value)

    def _ping(self, session, params, run):
        return {}

    def _reinitialize(self, session, params, run):
        raise JsonRpcError(INVALID_REQUEST,
                           "Invalid Request: this session is already "
                           "initialized")

    def _toolsList(self, session, params, run):
        if params.get("cursor") is not None:
            raise JsonRpcError(
                INVALID_PARAMS, "Invalid params: tools/list answers in one "
                "page; this server issued no cursor")
        return {"tools": [tool.descriptor() for tool in self.registry]}

    @inlineCallbacks
    def _toolsCall(self, session, params, run):
        name = params.get("name")
        if not isinstance(name, str):
            raise JsonRpcError(INVALID_PARAMS,
                               "Invalid params: tools/call needs a tool name")
        tool = self.registry.get(name)
        if tool is None:
            raise JsonRpcError(INVALID_PARAMS,
                               f"Invalid params: unknown tool {name!r}")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        call = ToolCall(session.gem, session.ledger, run)
        try:
            if not isinstance(arguments, dict):
                raise ToolError("invalidParams",
                                "arguments must be an object")
            tool.validate(arguments)
            answer = yield tool.run(call, arguments)
        except ToolError as e:
            answer = ToolResult.fromError(e)
        except GciError as e:
            if e.fatal:
                raise SessionGoneError(e)
            answer = ToolResult.fromError(ToolError("other", str(e),
                                                    {"number": e.number}))
        except CallWithdrawn:
            answer = ToolResult.fromError(ToolError(
                "other", "the call was ended before it started"))
        return self._render(answer, call.needsCommit, session)

    def _render(self, answer, needsCommit, session):
        content = [{"type": "text", "text": answer.text}]
        if needsCommit:
            content.append({"type": "text", "text": SESSION_NOTE})
        notices, session.notices = session.notices, []
        content.extend({"type": "text", "text": notice}
                       for notice in notices)
        rendered = {"content": content, "isError": answer.isError}
        if answer.structured is not None:
            rendered["structuredContent"] = answer.structured
        return rendered

"""
MCP over JSON-RPC: what each method does, independent of HTTP.

Nothing here reads a header: per-request client facts are passed in, so the
2025 transport (session ids) and a later one (server-minted handles) can
share it.
"""

from typing import Any

import attr
from twisted.internet.defer import Deferred, fail, inlineCallbacks, succeed

from gsmcpd import __version__
from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.jsonrpc import (
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
    JsonObject, JsonRpcError, Message, framed, progressTokenOf, refuseCursor)
from gsmcpd.protocol.discover import discoverResult
from gsmcpd.protocol.notes import sessionNotes
from gsmcpd.protocol.versions import negotiateVersion
from gsmcpd.protocol.surface import Surface
from gsmcpd.sessions.client import LOG_LEVELS, McpSession
from gsmcpd.tools.base import Tool, ToolCall, ToolError, ToolResult
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.context import NULL_CONTEXT, ICallContext
from gsmcpd.tools.templates.outcomes import CallBroken


@attr.s(frozen=True, auto_attribs=True)
class ServerIdentity:
    """
    What C{initialize} says this server is.

    @ivar title: which instance this is, for a human; no default, so a
        title present means an operator chose it.
    @ivar instructions: the hint for the model, or L{None} to send none.
    @ivar modernInstructions: the same for the 2026-07-28 era (whose
        GemStone sessions live behind handles); by default the same text.
    """

    name: str = "gsmcpd"
    version: str = __version__
    title: str | None = None
    instructions: str | None = None
    modernInstructions: str | None = attr.Factory(
        lambda identity: identity.instructions, takes_self=True)


RESOURCE_NOT_FOUND = -32002

MAX_SUBSCRIPTIONS = 100
"""Resources one session may subscribe to."""
MAX_URI_LENGTH = 1024
"""Characters in a resource URI a session may subscribe to."""


def _required(params, name):
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise JsonRpcError(INVALID_PARAMS, f"Invalid params: {name} is "
                           "required")
    return value


class Dispatcher:
    """
    Answers MCP requests for one server's tool surface.
    """

    gemstoneMethods = frozenset({"tools/call", "resources/read"})
    """The methods that run on the session's GemStone session, and so can
    have a deadline, be cancelled, report progress or stream: a
    L{gsmcpd.protocol.calls.CallRunner} runs them.  C{completion/complete}
    is not one: a completer is given only the argument's name and partial
    value, never the session's gem or a call context, so it answers from
    memory.  A completer of class names for C{gemstone://class/...} would
    need both (and a selector-checked template), and would join this set."""

    def __init__(self, tools, identity):
        self.tools = tools
        self.identity = identity
        self._surfaces = {}
        self.surface = self.surfaceFor(None)
        self._methods = {
            "ping": self._ping,
            "tools/list": self._toolsList,
            "tools/call": self._toolsCall,
            "initialize": self._reinitialize,
            "server/discover": self._discover,
        }
        capabilities = self.surface.capabilities()
        if "resources" in capabilities:
            self._methods.update({
                "resources/list": self._resourcesList,
                "resources/templates/list": self._templatesList,
                "resources/read": self._resourcesRead,
                "resources/subscribe": self._subscribe,
                "resources/unsubscribe": self._unsubscribe})
        if "prompts" in capabilities:
            self._methods.update({"prompts/list": self._promptsList,
                                  "prompts/get": self._promptsGet})
        if "completions" in capabilities:
            self._methods["completion/complete"] = self._complete
        if "logging" in capabilities:
            self._methods["logging/setLevel"] = self._setLevel

    def serverInfo(self) -> JsonObject:
        info = {"name": self.identity.name, "version": self.identity.version}
        if self.identity.title is not None:
            info["title"] = self.identity.title
        return info

    def capabilities(self) -> JsonObject:
        return {"tools": {"listChanged": False}, **self.surface.capabilities()}

    def initializeResult(self, params: JsonObject) -> JsonObject:
        """
        The C{initialize} result for a client that sent C{params}.
        """
        answer = {
            "protocolVersion": negotiateVersion(params.get("protocolVersion")),
            "capabilities": self.capabilities(),
            "serverInfo": self.serverInfo(),
        }
        if self.identity.instructions:
            answer["instructions"] = self.identity.instructions
        return answer

    def _discover(self, session, params, context):
        return discoverResult(self.serverInfo(), self.capabilities(),
                              self.identity.instructions, modern=False)

    def toolNamed(self, principal: Principal | None,
                  params: JsonObject) -> Tool | None:
        """
        The tool a C{tools/call} names among those C{principal} may use, or
        L{None}: looked up once, by the era that carried the call, and
        handed down with it.
        """
        name = params.get("name")
        return self.toolsFor(principal).get(name) \
            if isinstance(name, str) else None

    def streams(self, message: Message, tool: Tool | None) -> bool:
        """
        Whether C{message} may be answered as a stream, where the client
        accepts one: a tool call that asked for progress, or of a tool
        (C{tool}, the one it names) that sends the client messages while
        it runs.
        """
        if message.method != "tools/call":
            return False
        return progressTokenOf(message.params) is not None or \
            getattr(tool, "streams", False)

    def handle(self, session: McpSession, message: Message,
               context: ICallContext = NULL_CONTEXT) -> Deferred[Any]:
        """
        Answer one request or notification on C{session}.

        @param context: the request's L{ICallContext}, through which it can
            be ended and report progress.
        @return: a L{Deferred} firing with the response, or with L{None} for
            a notification.  A L{gsmcpd.tools.templates.outcomes.GemGone}
            fails it.
        """
        if message.kind == "notification":
            return succeed(None)
        return framed(self.answer(session, message, context), message.id)

    def answer(self, session: McpSession, message: Message,
               context: ICallContext = NULL_CONTEXT,
               tool: Tool | None = None) -> Deferred[Any]:
        """
        The result of one request on C{session}, unframed: whichever era
        carried it frames it.

        @param tool: for a C{tools/call}, the tool it names, when its era
            looked it up (L{toolNamed}); else it is looked up here.
        @return: a L{Deferred} firing with the result value, or failing
            with L{JsonRpcError} (or with
            L{gsmcpd.tools.templates.outcomes.GemGone}, or a bug).
        """
        handler = self._methods.get(message.method)
        try:
            if tool is not None:
                value = self._callTool(session, tool, message.params,
                                       context)
            elif handler is None:
                raise JsonRpcError(METHOD_NOT_FOUND,
                                   f"Method not found: {message.method}")
            else:
                value = handler(session, message.params, context)
        except Exception:
            return fail()
        return value if isinstance(value, Deferred) else succeed(value)

    def _ping(self, session, params, context):
        return {}

    def surfaceOf(self, session: McpSession) -> Surface:
        """The resources and prompts of the toolsets C{session} may use."""
        return self.surfaceFor(getattr(session, "principal", None))

    def surfaceFor(self, principal: Principal | None) -> Surface:
        """
        The resources and prompts of the toolsets a request made as
        C{principal} may use, made once per catalog (a token's scopes
        narrow the catalog, and with it what else is offered).
        """
        catalog = self.toolsFor(principal)
        surface = self._surfaces.get(catalog)
        if surface is None:
            surface = self._surfaces[catalog] = Surface(catalog.toolsets)
        return surface

    def _resourcesList(self, session, params, context):
        refuseCursor(params, "resources/list")
        return {"resources": [r.descriptor() for r in
                              self.surfaceOf(session).resources.values()]}

    def _templatesList(self, session, params, context):
        refuseCursor(params, "resources/templates/list")
        return {"resourceTemplates": [
            t.descriptor() for t in self.surfaceOf(session).templates]}

    @inlineCallbacks
    def _resourcesRead(self, session, params, context):
        uri = _required(params, "uri")
        found = self.surfaceOf(session).resolve(uri)
        if found is None:
            raise JsonRpcError(RESOURCE_NOT_FOUND,
                               f"Resource not found: {uri}", {"uri": uri})
        offering, variables = found
        call = ToolCall(session.gem, session.ledger, context)
        try:
            contents = yield offering.read(call, uri, **variables)
        except ToolError as e:
            code = RESOURCE_NOT_FOUND if e.kind == "notFound" \
                else INTERNAL_ERROR
            raise JsonRpcError(code, e.message, {"uri": uri})
        except CallBroken as e:
            raise JsonRpcError(INTERNAL_ERROR, str(e),
                               {"uri": uri, "number": e.number})
        return {"contents": contents}

    def _subscribe(self, session, params, context):
        uri = _required(params, "uri")
        if len(uri) > MAX_URI_LENGTH:
            raise JsonRpcError(INVALID_PARAMS, f"Invalid params: a resource "
                               f"URI is at most {MAX_URI_LENGTH} characters")
        if self.surfaceOf(session).resolve(uri) is None:
            raise JsonRpcError(RESOURCE_NOT_FOUND,
                               f"Resource not found: {uri}", {"uri": uri})
        if uri not in session.subscriptions and \
                len(session.subscriptions) >= MAX_SUBSCRIPTIONS:
            raise JsonRpcError(INVALID_PARAMS, f"Invalid params: a session "
                               f"holds at most {MAX_SUBSCRIPTIONS} "
                               f"subscriptions; unsubscribe from one first")
        session.subscriptions.add(uri)
        return {}

    def _unsubscribe(self, session, params, context):
        session.subscriptions.discard(_required(params, "uri"))
        return {}

    def _promptsList(self, session, params, context):
        refuseCursor(params, "prompts/list")
        return {"prompts": [p.descriptor() for p in
                            self.surfaceOf(session).prompts.values()]}

    @inlineCallbacks
    def _promptsGet(self, session, params, context):
        name = _required(params, "name")
        prompt = self.surfaceOf(session).prompts.get(name)
        if prompt is None:
            raise JsonRpcError(INVALID_PARAMS,
                               f"Invalid params: unknown prompt {name!r}")
        arguments = params.get("arguments") or {}
        missing = [a["name"] for a in prompt.arguments
                   if a.get("required") and a["name"] not in arguments]
        if missing:
            raise JsonRpcError(INVALID_PARAMS, f"Invalid params: prompt "
                               f"{name!r} needs {', '.join(missing)}")
        messages = yield (prompt.get(arguments, context) if prompt.asks
                          else prompt.get(arguments))
        answer = {"messages": messages}
        if prompt.description:
            answer["description"] = prompt.description
        return answer

    @inlineCallbacks
    def _complete(self, session, params, context):
        ref = params.get("ref") or {}
        argument = params.get("argument") or {}
        surface = self.surfaceOf(session)
        if ref.get("type") == "ref/prompt":
            target = surface.prompts.get(ref.get("name"))
        elif ref.get("type") == "ref/resource":
            target = next((t for t in surface.templates
                           if t.uriTemplate == ref.get("uri")), None)
        else:
            target = None
        if target is None:
            raise JsonRpcError(INVALID_PARAMS, "Invalid params: nothing to "
                               f"complete for {ref!r}")
        values = []
        if target.complete is not None:
            try:
                values = yield target.complete(argument.get("name"),
                                               argument.get("value", ""))
            except ToolError as e:
                raise JsonRpcError(INTERNAL_ERROR, e.message)
        values = list(values or [])
        return {"completion": {"values": values[:100], "total": len(values),
                               "hasMore": len(values) > 100}}

    def _setLevel(self, session, params, context):
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise JsonRpcError(INVALID_PARAMS, f"Invalid params: level must "
                               f"be one of {', '.join(LOG_LEVELS)}")
        session.logLevel = level
        return {}

    def _reinitialize(self, session, params, context):
        raise JsonRpcError(INVALID_REQUEST,
                           "Invalid Request: this session is already "
                           "initialized")

    def _toolsList(self, session, params, context):
        refuseCursor(params, "tools/list")
        return {"tools": [tool.descriptor()
                          for tool in self.toolsOf(session)]}

    def toolsOf(self, session: McpSession) -> ToolCatalog:
        """
        The tools C{session} may see and call: see L{toolsFor}.
        """
        return self.toolsFor(getattr(session, "principal", None))

    def toolsFor(self, principal: Principal | None) -> ToolCatalog:
        """
        The tools a request made as C{principal} may see and call: those its
        token's scopes open; a tool outside them is not served to it.
        """
        return self.tools.narrowed(getattr(principal, "toolsets", None))

    def _toolsCall(self, session, params, context):
        name = params.get("name")
        if not isinstance(name, str):
            raise JsonRpcError(INVALID_PARAMS,
                               "Invalid params: tools/call needs a tool name")
        tool = self.toolsOf(session).get(name)
        if tool is None:
            raise JsonRpcError(INVALID_PARAMS,
                               f"Invalid params: unknown tool {name!r}")
        return self._callTool(session, tool, params, context)

    def _callTool(self, session, tool, params, context):
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        call = ToolCall(session.gem, session.ledger, context, session.journal)

        def rendered(answer):
            return self._render(answer, tool, call, session)

        def failed(failure):
            failure.trap(ToolError, CallBroken)
            return rendered(_toolFailure(failure.value))

        # Callbacks rather than a generator: this runs for every tool call.
        try:
            if not isinstance(arguments, dict):
                raise ToolError("invalidParams",
                                "arguments must be an object")
            tool.validate(arguments)
            answer = tool.run(call, arguments)
        except (ToolError, CallBroken) as e:
            return rendered(_toolFailure(e))
        if isinstance(answer, Deferred):
            return answer.addCallbacks(rendered, failed)
        return rendered(answer)

    def _render(self, answer, tool, call, session):
        notices, session.view.notices = session.view.notices, []
        return answer.asResult(
            [f"[warning] {each}" for each in call.warnings]
            + sessionNotes(tool, call.needsCommit, session) + notices)


def _toolFailure(error):
    """
    A tool's L{ToolError}, or a broken GemStone call, as its result.
    """
    if isinstance(error, CallBroken):
        error = ToolError("other", str(error), {"number": error.number})
    return ToolResult.fromError(error)

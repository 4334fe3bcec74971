"""
The MCP methods, once for both eras: each handler takes a request's
L{RequestFacts} and answers its result, or raises L{JsonRpcError}; what
the eras say differently comes in the facts' L{IDialect}.  What a
C{tools/call} says of its tool (none, a stream) is said here for both.
"""

from typing import Any, cast

import attr
from twisted.internet.defer import inlineCallbacks

from gsmcpd import __version__
from gsmcpd.auth.tokens import Principal
from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol import jsonrpc
from gsmcpd.protocol.facts import IDialect, RequestFacts
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError, invalidParams
from gsmcpd.protocol.versions import SUPPORTED_VERSIONS
from gsmcpd.sessions.client import LOG_LEVELS, ClientSession
from gsmcpd.sessions.running import ToolRun
from gsmcpd.tools.base import Tool, ToolCall, ToolError
from gsmcpd.tools.catalog import OutOfScope, ToolCatalog
from gsmcpd.tools.offerings import Resource, ResourceTemplate, Surface
from gsmcpd.tools.templates.outcomes import CallBroken


@attr.s(frozen=True, auto_attribs=True)
class ServerIdentity:
    """
    What C{initialize} says this server is.

    @ivar title: which instance this is, for a human; no default, so a
        title present means an operator chose it.
    @ivar modernInstructions: the hint for the 2026-07-28 era's model (whose
        GemStone sessions live behind handles); by default C{instructions}.
    """

    name: str = "gsmcpd"
    version: str = __version__
    title: str | None = None
    instructions: str | None = None
    modernInstructions: str | None = attr.Factory(
        lambda identity: identity.instructions, takes_self=True)


RESOURCE_NOT_FOUND = -32002

MAX_SUBSCRIPTIONS = 100
MAX_URI_LENGTH = 1024
"""Characters in a resource URI a session may subscribe to."""


def unknownTool(params: JsonObject) -> JsonRpcError:
    """The error for a C{tools/call} that names no tool its caller may use."""
    name = params.get("name")
    return invalidParams("tools/call needs a tool name"
                         if not isinstance(name, str)
                         else f"unknown tool {name!r}")


def answersAsStream(params: JsonObject, tool: Tool | None) -> bool:
    """
    Whether a C{tools/call} of C{tool} may be answered as a stream, where
    the client accepts one: it asked for progress, or the tool sends the
    client messages while it runs.
    """
    return jsonrpc.progressTokenOf(params) is not None or \
        getattr(tool, "streams", False)


def refuseLongUris(uris: list[str]) -> None:
    if any(len(uri) > MAX_URI_LENGTH for uri in uris):
        raise invalidParams(f"a resource URI is at most {MAX_URI_LENGTH} "
                            "characters")


def _required(params: JsonObject, name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise invalidParams(f"{name} is required")
    return value


def _object(params: JsonObject, name: str) -> JsonObject:
    value = params.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise invalidParams(f"{name} must be an object")
    return value


def _client(request: RequestFacts) -> ClientSession:
    """A 2025-only method's client session (no other era has them)."""
    return cast(ClientSession, request.client)


class Handlers:
    """
    The MCP methods of one server's tool surface.

    @ivar surface: the resources and prompts of every served toolset.
    """

    def __init__(self, tools: ToolCatalog, identity: ServerIdentity):
        self.tools = tools
        self.identity = identity
        self._surfaces: dict[ToolCatalog, Surface] = {}
        self.surface = self.surfaceFor(None)

    # What this server is and offers.

    def serverInfo(self) -> JsonObject:
        info = {"name": self.identity.name, "version": self.identity.version}
        if self.identity.title is not None:
            info["title"] = self.identity.title
        return info

    def capabilities(self) -> JsonObject:
        """Both eras': tools, and what the served toolsets offer besides."""
        return {"tools": {"listChanged": False}, **self.surface.capabilities()}

    def toolsFor(self, principal: Principal | None) -> ToolCatalog:
        """A token's scopes narrow the tools its requests see and call."""
        return self.tools.narrowed(getattr(principal, "toolsets", None))

    def toolNamed(self, principal: Principal | None,
                  name: object) -> Tool | None:
        """
        @raise CallRefused: C{notInScope}, for a served tool its token's
            scopes do not open, answered as a tool that does not exist.
        """
        if not isinstance(name, str):
            return None
        try:
            return self.tools.scoped(name, getattr(principal, "toolsets",
                                                   None))
        except OutOfScope:
            raise CallRefused("notInScope", unknownTool({"name": name}))

    def toolCalled(self, dialect: IDialect, principal: Principal | None,
                   params: JsonObject) -> Tool:
        """
        The tool a C{tools/call} names: its era's own (the 2026 era's
        C{open_session} and C{close_session}), else the catalog's.

        @raise CallRefused: C{notInScope} (L{toolNamed}).
        @raise JsonRpcError: for no tool by that name, or no name.
        """
        name = params.get("name")
        tool = next((each for each in dialect.handleTools
                     if each.name == name), None) or \
            self.toolNamed(principal, name)
        if tool is None:
            raise unknownTool(params)
        return tool

    def surfaceFor(self, principal: Principal | None) -> Surface:
        """
        Made once per catalog: a token's scopes narrow the catalog, and with
        it the resources and prompts offered.
        """
        catalog = self.toolsFor(principal)
        surface = self._surfaces.get(catalog)
        if surface is None:
            surface = self._surfaces[catalog] = Surface(catalog.toolsets)
        return surface

    def _resolve(self, request: RequestFacts, uri: str) -> tuple[
            Resource | ResourceTemplate, dict[str, str]]:
        found = self.surfaceFor(request.principal).resolve(uri)
        if found is None:
            raise JsonRpcError(request.dialect.resourceNotFound,
                               f"Resource not found: {uri}", {"uri": uri})
        return found

    # The handlers, in the method table's order.

    def ping(self, request: RequestFacts) -> JsonObject:
        return {}

    def initialized(self, request: RequestFacts) -> JsonObject:
        """C{initialize} inside a session that already has it."""
        raise JsonRpcError(jsonrpc.INVALID_REQUEST,
                           "Invalid Request: this session is already "
                           "initialized")

    def discover(self, request: RequestFacts) -> JsonObject:
        """The same facts in both eras, each naming the server its way."""
        dialect = request.dialect
        answer = {"supportedVersions": list(SUPPORTED_VERSIONS),
                  "capabilities": dialect.capabilities}
        if dialect.instructions:
            answer["instructions"] = dialect.instructions
        return dialect.discovered(answer, self.serverInfo())

    def toolsList(self, request: RequestFacts) -> JsonObject:
        jsonrpc.refuseCursor(request.params, "tools/list")
        describe = request.dialect.describe
        return {"tools": [describe(tool) for tool in self.toolsFor(
            request.principal).advertised()] + [
                tool.descriptor() for tool in request.dialect.handleTools]}

    def toolsCall(self, request: RequestFacts) -> ToolRun:
        """
        What a C{tools/call} runs: the tool its era looked up
        (C{toolCalled}; a call of no tool is answered before it runs), run
        by the sessions layer with no call back up.
        """
        return ToolRun(cast(Tool, request.tool), request.arguments,
                       request.dialect.describe)

    def resourcesList(self, request: RequestFacts) -> JsonObject:
        jsonrpc.refuseCursor(request.params, "resources/list")
        return {"resources": [
            r.descriptor() for r in
            self.surfaceFor(request.principal).resources.values()] + [
                skill.descriptor()
                for skill in request.dialect.skills.values()]}

    def templatesList(self, request: RequestFacts) -> JsonObject:
        jsonrpc.refuseCursor(request.params, "resources/templates/list")
        return {"resourceTemplates": [
            t.descriptor()
            for t in self.surfaceFor(request.principal).templates]}

    @inlineCallbacks
    def resourcesRead(self, request: RequestFacts) -> Any:
        uri = _required(request.params, "uri")
        skill = request.dialect.skills.get(uri)
        if skill is not None:
            return {"contents": skill.contents()}
        offering, variables = self._resolve(request, uri)
        work = request.work
        call = ToolCall(None, None, request.context) if work is None \
            else ToolCall(work.gem, work.ledger, request.context)
        read: Any = offering.read
        try:
            contents = yield read(call, uri, **variables)
        except ToolError as e:
            code = request.dialect.resourceNotFound \
                if e.kind == "notFound" else jsonrpc.INTERNAL_ERROR
            raise JsonRpcError(code, e.message, {"uri": uri})
        except CallBroken as e:
            raise JsonRpcError(jsonrpc.INTERNAL_ERROR, str(e),
                               {"uri": uri, "number": e.number})
        return {"contents": contents}

    def subscribe(self, request: RequestFacts) -> JsonObject:
        uri = _required(request.params, "uri")
        refuseLongUris([uri])
        self._resolve(request, uri)
        client = _client(request)
        if uri not in client.subscriptions and \
                len(client.subscriptions) >= MAX_SUBSCRIPTIONS:
            raise invalidParams(f"a session holds at most {MAX_SUBSCRIPTIONS} "
                                "subscriptions; unsubscribe from one first")
        client.subscribe(uri)
        return {}

    def unsubscribe(self, request: RequestFacts) -> JsonObject:
        _client(request).unsubscribe(_required(request.params, "uri"))
        return {}

    def promptsList(self, request: RequestFacts) -> JsonObject:
        jsonrpc.refuseCursor(request.params, "prompts/list")
        return {"prompts": [p.descriptor() for p in self.surfaceFor(
            request.principal).prompts.values()]}

    @inlineCallbacks
    def promptsGet(self, request: RequestFacts) -> Any:
        params = request.params
        name = _required(params, "name")
        prompt = self.surfaceFor(request.principal).prompts.get(name)
        if prompt is None:
            raise invalidParams(f"unknown prompt {name!r}")
        arguments = _object(params, "arguments")
        missing = [a["name"] for a in prompt.arguments
                   if a.get("required") and a["name"] not in arguments]
        if missing:
            raise invalidParams(f"prompt {name!r} needs {', '.join(missing)}")
        get: Any = prompt.get
        messages = yield (get(arguments, request.context) if prompt.asks
                          else get(arguments))
        answer = {"messages": messages}
        if prompt.description:
            answer["description"] = prompt.description
        return answer

    @inlineCallbacks
    def complete(self, request: RequestFacts) -> Any:
        ref = _object(request.params, "ref")
        argument = _object(request.params, "argument")
        target = self.surfaceFor(request.principal).completable(ref)
        if target is None:
            raise invalidParams(f"nothing to complete for {ref!r}")
        values = []
        if target.complete is not None:
            try:
                values = yield target.complete(argument.get("name"),
                                               argument.get("value", ""))
            except ToolError as e:
                raise JsonRpcError(jsonrpc.INTERNAL_ERROR, e.message)
        values = list(values or [])
        return {"completion": {"values": values[:100], "total": len(values),
                               "hasMore": len(values) > 100}}

    def setLevel(self, request: RequestFacts) -> JsonObject:
        level = request.params.get("level")
        if level not in LOG_LEVELS:
            raise invalidParams(f"level must be one of "
                                f"{', '.join(LOG_LEVELS)}")
        _client(request).setLogLevel(level)
        return {}


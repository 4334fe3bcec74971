"""
The 2026-07-28 era's requests, independent of HTTP.

No handshake and no MCP session: each request carries its client's facts
(an L{gsmcpd.protocol.eras.modern.envelope.Envelope}) and is answered on
its own.  This adapter reads that envelope, chooses the work session a
call runs in (L{gsmcpd.protocol.eras.modern.lending}: the one the
C{session} argument's handle names, a throwaway one, or none), hands the
method's handler the request's facts once, and dresses the answer once:
C{resultType} and cache hints, an input-required round
(L{gsmcpd.protocol.eras.modern.asking}), or a task.
"""

from collections.abc import Callable
from typing import Any

import attr
from twisted.internet.defer import (
    Deferred,
    fail,
    inlineCallbacks,
    maybeDeferred,
    succeed,
)

from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol import kinds
from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.catalogsurface import mirroringShown
from gsmcpd.protocol.context import FROM_MEMORY, CallContext, noLogs
from gsmcpd.protocol.eras.modern import skills, tasks
from gsmcpd.protocol.eras.modern.asking import modernRound
from gsmcpd.protocol.eras.modern.envelope import (
    SERVER_INFO_KEY,
    Envelope,
    Headers,
    checkParameterHeaders,
    methodRemoved,
)
from gsmcpd.protocol.eras.modern.handles import (
    HANDLE_TOOLS,
    SESSION_ARGUMENT,
    ToolSchemas,
    sessionGone,
    takeHandle,
    takesHandle,
)
from gsmcpd.protocol.eras.modern.lending import Lending, nothingToRelease, toolError
from gsmcpd.protocol.eras.modern.refusals import asRefusal
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal
from gsmcpd.protocol.eras.modern.results import complete
from gsmcpd.protocol.facts import MODERN, Dialect, RequestFacts
from gsmcpd.protocol.handlers import Handlers
from gsmcpd.protocol.jsonrpc import (
    INVALID_PARAMS,
    SERVER_ERROR,
    JsonObject,
    JsonRpcError,
    Message,
)
from gsmcpd.protocol.methods import MethodTable
from gsmcpd.protocol.notices import Filter
from gsmcpd.protocol.recording import CANCELLED
from gsmcpd.protocol.toolcall import answersAsStream, unknownTool
from gsmcpd.sessions.client import LogGate
from gsmcpd.sessions.interfaces import ICallSink
from gsmcpd.tools.base import NO_SESSION
from gsmcpd.tools.templates.outcomes import ToolError


def dressed(value: Any) -> JsonObject:
    """
    A call's result, or, for one whose client cancelled it (nobody waits
    for it any more), the error that says so.
    """
    if value is CANCELLED:
        raise JsonRpcError(SERVER_ERROR, "The request was cancelled")
    return value


def withoutHandle(arguments: Any) -> Any:
    """
    A call's arguments as its record names them: without the handle,
    which is the call's session, not its input.
    """
    if not isinstance(arguments, dict):
        return arguments
    return {name: value for name, value in arguments.items()
            if name != SESSION_ARGUMENT}


def namedInMeta(answer: JsonObject, serverInfo: JsonObject) -> JsonObject:
    """
    C{server/discover}'s C{answer} naming the server in C{_meta}.
    """
    return dict(answer, _meta={SERVER_INFO_KEY: serverInfo})


class ModernEra:
    """
    Answers 2026-07-28 requests for one server.

    @ivar seal: seals C{requestState} for this daemon.
    @ivar tasks: the daemon's L{tasks.TaskStore}.
    @ivar dialect: what this era says differently (L{Dialect}).
    """

    def __init__(self, handlers: Handlers, methods: MethodTable,
                 calls: CallRunner, lending: Lending, clock: Any,
                 served: skills.Skills, taskStore: tasks.TaskStore,
                 seal: RequestStateSeal | None = None):
        """
        @param served: the skills this server serves.
        """
        self.handlers = handlers
        self.methods = methods
        self.calls = calls
        self.lending = lending
        self.clock = clock
        self.tasks = taskStore
        self.seal = RequestStateSeal(clock) if seal is None else seal
        catalog = handlers.tools
        self._taskSupport = {tool.name: tool.taskSupport for tool in catalog
                             if tool.taskSupport is not None}
        self.schemas = ToolSchemas()
        handleTools = HANDLE_TOOLS if any(
            tool.runsOn != NO_SESSION for tool in catalog) else ()
        self._handleTools = {tool.name: tool for tool in handleTools}
        self.dialect = Dialect(
            MODERN, handlers.identity.modernInstructions,
            self._capabilities(served), self.schemas.describe, handleTools,
            {skill.uri: skill for skill in served}, INVALID_PARAMS,
            namedInMeta, sessionGone)
        self._special: dict[str | None, Callable[..., Any]] = {
            "tools/call": self._toolsCall,
            "resources/read": self._resourcesRead,
            "prompts/get": self._promptsGet}

    def _capabilities(self, served: skills.Skills) -> JsonObject:
        declared = self.handlers.capabilities()
        extensions: JsonObject = {}
        if self._taskSupport:
            extensions[tasks.EXTENSION] = {}
        if served:
            # Skill files are resources: the extension needs the capability.
            declared.setdefault("resources", {"subscribe": False,
                                              "listChanged": False})
            extensions[skills.EXTENSION] = {}
        if extensions:
            declared["extensions"] = extensions
        return declared

    def listenable(self, wants: Filter, envelope: Envelope) -> Filter:
        """
        C{wants} less the resources the request's token may not read: a
        listener hears of a class only if its scopes could browse it.
        """
        mine = self.handlers.surfaceFor(envelope.principal)
        served = self.handlers.surface
        return attr.evolve(wants, resourceSubscriptions=frozenset(
            uri for uri in wants.resourceSubscriptions
            if mine.resolve(uri) or not served.resolve(uri)))

    def facts(self, message: Message, envelope: Envelope, work: Any = None,
              tool: Any = None, arguments: Any = None,
              context: CallContext = FROM_MEMORY) -> RequestFacts:
        """
        The facts a handler is told of C{message}.
        """
        return RequestFacts(
            message.method, message.params, message.id, self.dialect,
            envelope.protocolVersion, envelope.clientCapabilities,
            envelope.clientInfo, envelope.principal, work, None, tool,
            arguments, context)

    def answer(self, message: Message, envelope: Envelope, headers: Headers,
               openStream: Callable[[], ICallSink | None]
               ) -> Deferred[JsonObject]:
        """
        Answer one 2026-era request.

        @param headers: its header values by lowercased name.
        @param openStream: called to answer a call as an event stream
            instead (progress, log messages); answers the call's sink, or
            L{None} when the client does not accept one.
        @return: a L{Deferred} firing with the dressed result.
        @raise JsonRpcError: through the L{Deferred}.
        """
        method = self.methods.find(message.method, MODERN)
        if method is None:
            return fail(methodRemoved(message.method))
        special = self._special.get(message.method)
        if special is not None:
            return maybeDeferred(special, message, envelope, headers,
                                 openStream, method)
        return self.calls.answer(self.facts(message, envelope), method
                                 ).addCallback(_complete, message.method)

    # Tools.

    def _toolsCall(self, message, envelope, headers, openStream, method):
        """
        A C{tools/call}; one refused before it runs (a L{CallRefused}: a
        tool out of its token's scopes, a handle not its caller's or none
        where one is needed, a C{requestState} this daemon did not seal,
        an audit trail that cannot be written) is recorded as such.
        """
        return self._calling(message, envelope, headers, openStream,
                             method).addErrback(self._refused, message,
                                                envelope)

    def _refused(self, failure, message, envelope):
        failure.trap(CallRefused)
        return self.calls.refused(
            self.facts(message, envelope, arguments=withoutHandle(
                message.params.get("arguments"))),
            failure.value).addCallback(_complete, "tools/call")

    def _resolved(self, message, envelope, headers):
        """
        The tool a call names and its arguments.

        @raise JsonRpcError: for no such tool (for its caller), arguments
            that are not an object, or C{Mcp-Param-*} headers that do not
            match them.
        """
        params = message.params
        name = params.get("name")
        tool = (self._handleTools.get(name) or self.handlers.toolNamed(
            envelope.principal, name)) if isinstance(name, str) else None
        if tool is None:
            raise unknownTool(params)
        arguments = params.get("arguments")
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            raise JsonRpcError(INVALID_PARAMS,
                               "Invalid params: arguments must be an object")
        checkParameterHeaders(
            self.schemas.schemaOf(tool), arguments, headers,
            name in self._handleTools or mirroringShown(
                self.handlers.toolsFor(envelope.principal), message,
                (SESSION_ARGUMENT,)))
        return tool, arguments

    @inlineCallbacks
    def _calling(self, message, envelope, headers, openStream, method):
        params = message.params
        try:
            tool, arguments = self._resolved(message, envelope, headers)
        except JsonRpcError as e:
            # Recorded as the 2025 era records a call it cannot make, and
            # answered as the error it is (the record fails with it).
            yield self._unmade(message, envelope, None, None, e)
        if tool.name in self._handleTools:
            value = yield self.calls.recorded(
                self.facts(message, envelope, tool=tool, arguments=arguments),
                lambda: self.lending.handleTool(
                    tool, arguments, envelope).addErrback(
                        self._handleRefused, arguments.get(SESSION_ARGUMENT),
                        envelope))
            return complete("tools/call", value)
        taskSupport = self._taskSupport.get(tool.name)
        refusal = tasks.requires(envelope)
        try:
            if taskSupport == "required" and refusal is not None:
                raise refusal
            # Refused before a session is lent for it.
            self.calls.records.admit()
            self._unsealed(params)
            handle, rest = takeHandle(arguments) if takesHandle(tool) \
                else (None, arguments)
            work, done = (yield self._lent(tool, handle, envelope)) \
                if tool.runsOn != NO_SESSION else (None, nothingToRelease)
        except (JsonRpcError, ToolError) as e:
            value = yield self._unmade(message, envelope, tool, arguments, e)
            return value
        if taskSupport is not None and refusal is None:
            sink = tasks.TaskProgress(self.tasks)
            escalate = self._becomeTask(sink, done, envelope)
        else:
            sink = openStream() if answersAsStream(params, tool) else None
            escalate = None
        wantsLog = noLogs if sink is None else LogGate(
            self.clock.seconds, envelope.logLevel).wants
        becameTask = False
        try:
            value = yield modernRound(
                self.seal, envelope, "tools/call", params,
                lambda asker: self.calls.answer(self.facts(
                    message, envelope, work, tool, rest,
                    CallContext(asker, sink, wantsLog)), method
                ).addCallback(dressed), escalate)
            becameTask = value.get("resultType") == tasks.TASK
        finally:
            if not becameTask:
                done()
        return value

    def _unsealed(self, params):
        """
        Refuse a call whose C{requestState} this daemon did not seal for
        it (altered, another server's, another request's, expired, spent)
        before a session is lent for it; its round opens it.
        """
        if "requestState" in params:
            try:
                self.seal.check("tools/call", params)
            except JsonRpcError as e:
                raise CallRefused(kinds.TAMPERED_STATE, e)

    @inlineCallbacks
    def _lent(self, tool, handle, envelope):
        """
        The work session a call of C{tool} runs in, as
        L{Lending.forTool} lends it; a handle its caller may not use, or
        none where one is needed, refused as a L{CallRefused}.
        """
        try:
            lent = yield self.lending.forTool(tool, handle, envelope)
        except (JsonRpcError, ToolError) as e:
            raise asRefusal(e, handle, envelope.principal,
                            self.lending.sessions)
        return lent

    def _handleRefused(self, failure, handle, envelope):
        """
        C{close_session} of a handle its caller may not use, refused as a
        L{CallRefused}.
        """
        failure.trap(JsonRpcError)
        raise asRefusal(failure.value, handle, envelope.principal,
                        self.lending.sessions)

    def _unmade(self, message, envelope, tool, arguments, error):
        """
        Record a call that failed before it ran, and is no refusal (no
        such tool, its login failed or timed out, no slot was free, the
        server is stopping, a task-only tool without the tasks
        extension...), as what its client is told: C{error}'s tool error,
        or C{error}.
        """
        facts = self.facts(message, envelope, tool=tool,
                           arguments=withoutHandle(arguments))
        if isinstance(error, ToolError):
            return self.calls.recorded(
                facts, lambda: succeed(toolError(error))).addCallback(
                    lambda value: complete("tools/call", value))
        return self.calls.recorded(facts, lambda: fail(error))

    def _becomeTask(self, progress, done, envelope):
        """
        What makes a call still running after its first steps a task: it
        goes on, readable by C{tasks/get}, whatever the client does, and
        C{tasks/cancel} ends it as a client that stops waiting would.
        """
        def escalate(working, asker):
            working.addCallback(lambda value: complete("tools/call", value))
            working.addBoth(lambda outcome: (done(), outcome)[1])
            task = self.tasks.adopt(working, working.cancel,
                                    envelope.principal)
            progress.task = task
            asker.becameTask(self.tasks, task)
            return task.created()
        return escalate

    # Resources, prompts.

    @inlineCallbacks
    def _resourcesRead(self, message, envelope, headers, openStream,
                       method):
        uri = message.params.get("uri")
        uri = uri if isinstance(uri, str) else ""
        if uri in self.dialect.skills:
            # Answered from memory: a skill is no call.
            value = yield method.handler(self.facts(message, envelope))
            return complete("resources/read", value)
        found = self.handlers.surfaceFor(envelope.principal).resolve(uri)
        work, done = None, nothingToRelease
        if found is not None and found[0].runsOn != NO_SESSION:
            work, done = yield self._borrowedForRead(envelope)
        try:
            value = yield self.calls.answer(
                self.facts(message, envelope, work), method)
        finally:
            done()
        return complete("resources/read", dressed(value))

    @inlineCallbacks
    def _borrowedForRead(self, envelope):
        """
        A throwaway session for one resource read.  A read is no tool call
        and has no result to carry a tool's error: a full server is told
        as the 2025 era tells it (C{sessionLimit}), and a caller over its
        share is counted as every refusal is, though no audit line names
        a read.
        """
        try:
            lent = yield self.lending.borrowed(
                envelope, "its one read (a resource) is done")
        except ToolError as e:
            raise JsonRpcError(SERVER_ERROR, e.message,
                               dict(e.details or {}, kind=e.kind))
        except JsonRpcError as e:
            if isinstance(e.data, dict) and \
                    e.data.get("kind") == kinds.SHARE_CAP:
                self.calls.records.refused(None, CallRefused(
                    kinds.SHARE_CAP, e))
            raise
        return lent

    def _promptsGet(self, message, envelope, headers, openStream, method):
        return modernRound(
            self.seal, envelope, "prompts/get", message.params,
            lambda asker: self.calls.answer(self.facts(
                message, envelope, context=CallContext(asker)), method))


def _complete(value, method):
    return complete(method, value)

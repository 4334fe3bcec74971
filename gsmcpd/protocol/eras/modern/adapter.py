"""
The 2026-07-28 era's requests, independent of HTTP.

No handshake and no MCP session: each request carries its client's facts
(an L{gsmcpd.protocol.eras.modern.envelope.Envelope}) and is answered on its own.  What
needs GemStone runs on a session chosen per call: the one the C{session}
argument's handle names, a short-lived one with a fresh view for a
read-only tool called without a handle, or none at all for what never
touches the stone.  Tool calls take the same path as in the 2025 era (the
L{gsmcpd.protocol.calls.CallRunner}); only asking the client differs
(input-required rounds, L{gsmcpd.protocol.eras.modern.asking}).
"""

from collections.abc import Callable
from typing import Any

import attr
from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred
from twisted.logger import Logger

from gsmcpd.protocol.eras.modern import skills, tasks
from gsmcpd.protocol.eras.modern.asking import modernRound
from gsmcpd.protocol.calls import CANCELLED
from gsmcpd.protocol.eras.modern.lending import (
    CallSessions, nothingToRelease, toolError)
from gsmcpd.protocol.discover import discoverResult
from gsmcpd.protocol.dispatch import RESOURCE_NOT_FOUND
from gsmcpd.protocol.eras.modern.envelope import (
    Envelope, Headers, checkParameterHeaders, methodRemoved)
from gsmcpd.protocol.eras.modern.handles import (
    sessionTools, takeHandle, withSessionArgument)
from gsmcpd.protocol.jsonrpc import (
    INVALID_PARAMS, SERVER_ERROR, JsonObject, JsonRpcError, Message,
    refuseCursor)
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal
from gsmcpd.protocol.eras.modern.results import complete
from gsmcpd.protocol.listen import Filter
from gsmcpd.protocol.eras.modern.skills import Skills
from gsmcpd.sessions.client import McpSession
from gsmcpd.sessions.interfaces import ICallSink
from gsmcpd.tools.base import NO_SESSION
from gsmcpd.tools.context import NullCallContext
from gsmcpd.tools.guides import servedGuides
from gsmcpd.tools.templates.outcomes import ToolError


class AskingContext(NullCallContext):
    """
    The context of a request answered from memory that may still ask the
    client (a prompt): asking is all it can do.
    """

    def __init__(self, asker):
        self._asker = asker

    def canAsk(self, capability):
        return self._asker.canAsk(capability)

    def ask(self, questions):
        return self._asker.ask(questions)


def answered(value: Any) -> JsonObject:
    """
    A call's result, or, for one whose client cancelled it (nobody waits
    for it any more), the error that says so.
    """
    if value is CANCELLED:
        raise JsonRpcError(SERVER_ERROR, "The request was cancelled")
    return value


def _namingHandle(failure, session):
    """
    A dead gem, told as the 2026 era sees it: the handle it was behind is
    gone, and open_session makes a new one; a throwaway session's client
    never knew its handle, and may simply call again.
    """
    failure.trap(JsonRpcError)
    error = failure.value
    if not isinstance(error.data, dict) or \
            error.data.get("kind") != "sessionGone":
        return failure
    if session.throwaway:
        raise JsonRpcError(error.code, f"The throwaway GemStone session this "
                           f"call ran in ended (GemStone error "
                           f"{error.data['number']}); nothing it changed was "
                           "kept. Call again.", error.data)
    raise JsonRpcError(error.code, f"The GemStone session behind handle "
                       f"{session.handle} ended (GemStone error "
                       f"{error.data['number']}); its uncommitted changes "
                       "are lost and the handle is closed. Call open_session "
                       "for a new one.", dict(error.data,
                                              session=session.handle))


class ModernEndpoint:
    """
    Answers 2026-07-28 requests for one server.

    @ivar seal: seals C{requestState} for this daemon.
    """

    log = Logger()

    def __init__(self, dispatcher, calls, sessions, clock, seal=None):
        self.dispatcher = dispatcher
        self.calls = calls
        self.sessions = CallSessions(sessions, clock)
        self.seal = RequestStateSeal(clock) if seal is None else seal
        self.tasks = tasks.TaskStore(clock)
        catalog = dispatcher.tools
        self._taskSupport = {tool.name: tool.taskSupport for tool in catalog
                             if tool.taskSupport is not None}
        self._schemas = {}
        self._detached = {tool.name for tool in catalog
                          if tool.runsOn == NO_SESSION}
        gemstone = any(tool.name not in self._detached for tool in catalog)
        self._sessionTools = {tool.name: tool for tool in sessionTools(
            None, None)} if gemstone else {}
        self.skills = Skills.fromGuides(servedGuides(
            toolset.name for toolset in catalog.toolsets))
        self._methods = {
            "server/discover": self._discover,
            "tools/list": self._toolsList,
            "tools/call": self._toolsCall,
        }
        if self._taskSupport:
            for method in tasks.METHODS:
                self._methods[method] = self._taskMethod
        served = dispatcher.surface.capabilities()
        if "resources" in served:
            self._methods["resources/templates/list"] = self._fromMemory
        if "resources" in served or self.skills:
            self._methods.update({"resources/list": self._resourcesList,
                                  "resources/read": self._resourcesRead})
        if self.skills:
            self._methods.update({"skills/list": self._skillsList,
                                  "skills/get": self._skillsGet})
        if "prompts" in served:
            self._methods.update({"prompts/list": self._fromMemory,
                                  "prompts/get": self._promptsGet})
        if "completions" in served:
            self._methods["completion/complete"] = self._complete

    # What this server is.

    def capabilities(self) -> JsonObject:
        declared = self.dispatcher.capabilities()
        extensions: JsonObject = {}
        if self._taskSupport:
            extensions[tasks.EXTENSION] = {}
        if self.skills:
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
        mine = self.dispatcher.surfaceFor(envelope.principal)
        served = self.dispatcher.surface
        return attr.evolve(wants, resourceSubscriptions=frozenset(
            uri for uri in wants.resourceSubscriptions
            if mine.resolve(uri) or not served.resolve(uri)))

    def _discover(self, message, envelope, headers, openStream):
        return discoverResult(self.dispatcher.serverInfo(),
                              self.capabilities(),
                              self.dispatcher.identity.modernInstructions)

    # Dispatch.

    def answer(self, message: Message, envelope: Envelope, headers: Headers,
               openStream: Callable[[McpSession], ICallSink | None]
               ) -> Deferred[JsonObject]:
        """
        Answer one 2026-era request.

        @param headers: its header values by lowercased name.
        @param openStream: called with the L{McpSession} a call runs on to
            answer it as an event stream instead (progress, log messages);
            answers the call's sink, or L{None} when the client does not
            accept one.
        @return: a L{Deferred} firing with the dressed result.
        @raise JsonRpcError: through the L{Deferred}.
        """
        handler = self._methods.get(message.method)
        if handler is None:
            return maybeDeferred(self._refuse, message.method)
        return maybeDeferred(handler, message, envelope, headers, openStream)

    def _refuse(self, method):
        raise methodRemoved(method)

    def _fromMemory(self, message, envelope, headers, openStream):
        return self.dispatcher.answer(
            self.sessions.detached(envelope), message).addCallback(
                lambda value: complete(message.method, value))

    # Tools.

    def _schemaOf(self, tool):
        """
        C{tool}'s input schema as this era declares it (with the C{session}
        argument of a tool that runs on one), made once per tool: the
        catalog does not change while the daemon runs.
        """
        schema = self._schemas.get(tool.name)
        if schema is None:
            if tool.name in self._detached or tool.name in self._sessionTools:
                schema = tool.inputSchema
            else:
                schema = withSessionArgument(tool.descriptor())["inputSchema"]
            self._schemas[tool.name] = schema
        return schema

    def _described(self, tool):
        described = dict(tool.descriptor(), inputSchema=self._schemaOf(tool))
        if tool.taskSupport is not None:
            described["execution"] = {"taskSupport": tool.taskSupport}
        return described

    def _toolsList(self, message, envelope, headers, openStream):
        refuseCursor(message.params, "tools/list")
        described = [self._described(tool) for tool in self._toolsFor(
            envelope).advertised()]
        described += [tool.descriptor()
                      for tool in self._sessionTools.values()]
        return complete("tools/list", {"tools": described})

    def _toolsFor(self, envelope):
        """
        The tools the request's token may see and call, as in the 2025 era.
        """
        return self.dispatcher.toolsFor(envelope.principal)

    @inlineCallbacks
    def _toolsCall(self, message, envelope, headers, openStream):
        params = message.params
        name = params.get("name")
        tool = self._sessionTools.get(name) or \
            self._toolsFor(envelope).get(name)
        if tool is None:
            raise JsonRpcError(INVALID_PARAMS,
                               f"Invalid params: unknown tool {name!r}")
        arguments = params.get("arguments")
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            raise JsonRpcError(INVALID_PARAMS,
                               "Invalid params: arguments must be an object")
        checkParameterHeaders(self._schemaOf(tool), arguments, headers)
        if name in self._sessionTools:
            subject = self.sessions.detached(envelope)
            value = yield self.calls.recorded(
                subject, message, lambda: self.sessions.sessionTool(
                    tool, arguments, envelope).addCallback(_namedBy, subject))
            return complete("tools/call", value)
        taskSupport = self._taskSupport.get(name)
        refusal = tasks.requires(envelope)
        if taskSupport == "required" and refusal is not None:
            raise refusal
        handle, rest = (None, arguments) if name in self._detached \
            else takeHandle(arguments)
        try:
            session, done = \
                (self.sessions.detached(envelope), nothingToRelease) \
                if name in self._detached else \
                (yield self.sessions.forTool(tool, handle, envelope))
        except ToolError as e:
            return complete("tools/call", toolError(e))
        call = Message(message.kind, message.method, message.id,
                       dict(params, arguments=rest), message.raw)
        if taskSupport is not None and refusal is None:
            sink = tasks.TaskProgress(self.tasks)
            escalate = self._becomeTask(session, call, sink, done)
        else:
            sink = openStream(session) \
                if self.dispatcher.streams(call, tool) else None
            escalate = None
        becameTask = False
        try:
            value = yield modernRound(
                self.seal, envelope, "tools/call", params,
                lambda asker: self.calls.answer(session, call, sink, asker,
                                                tool)
                .addCallback(answered).addErrback(_namingHandle, session),
                escalate)
            becameTask = value.get("resultType") == tasks.TASK
        finally:
            if not becameTask:
                done()
        return value

    def _becomeTask(self, session, call, progress, done):
        """
        What makes a call still running after its first steps a task: it
        goes on, readable by C{tasks/get}, whatever the client does, and
        C{tasks/cancel} ends it as a client's cancellation would.
        """
        def escalate(working, asker):
            working.addCallback(lambda value: complete("tools/call", value))
            working.addBoth(lambda outcome: (done(), outcome)[1])
            task = self.tasks.adopt(working, lambda: self.calls.cancel(
                session, {"requestId": call.id, "reason": "tasks/cancel"}),
                session.principal)
            progress.task = task
            asker.becameTask(self.tasks, task)
            return task.created()
        return escalate

    def _taskMethod(self, message, envelope, headers, openStream):
        return self.tasks.respond(message.method, message.params, envelope)

    # Resources, skills, prompts, completion.

    @inlineCallbacks
    def _resourcesList(self, message, envelope, headers, openStream):
        listed = []
        if "resources" in self.dispatcher.surface.capabilities():
            listed = (yield self.dispatcher.answer(
                self.sessions.detached(envelope), message))["resources"]
        return complete("resources/list", {"resources": listed + [
            skill.descriptor() for skill in self.skills]})

    def _skillsList(self, message, envelope, headers, openStream):
        return complete("skills/list", self.skills.list(message.params))

    def _skillsGet(self, message, envelope, headers, openStream):
        return complete("skills/get", self.skills.get(message.params))

    @inlineCallbacks
    def _resourcesRead(self, message, envelope, headers, openStream):
        uri = message.params.get("uri")
        skill = self.skills.find(uri)
        if skill is not None:
            return complete("resources/read", {"contents": skill.contents()})
        found = self.dispatcher.surfaceFor(envelope.principal).resolve(
            uri or "")
        if found is None or found[0].runsOn == NO_SESSION:
            session, done = self.sessions.detached(envelope), nothingToRelease
        else:
            session, done = yield self.sessions.borrowed(
                envelope, "its one read (a resource) is done")
        try:
            value = yield self.calls.answer(session, message)
        except JsonRpcError as e:
            if e.code != RESOURCE_NOT_FOUND:
                raise
            # This era says a resource that does not exist is invalid
            # params (docs/protocol.rst).
            raise JsonRpcError(INVALID_PARAMS, e.message, e.data)
        finally:
            done()
        return complete("resources/read", answered(value))

    def _promptsGet(self, message, envelope, headers, openStream):
        session = self.sessions.detached(envelope)
        return modernRound(
            self.seal, envelope, "prompts/get", message.params,
            lambda asker: self.dispatcher.answer(
                session, message, AskingContext(asker)))

    @inlineCallbacks
    def _complete(self, message, envelope, headers, openStream):
        # Completers answer from memory (Dispatcher.gemstoneMethods says
        # why): no GemStone session is logged in for one.
        value = yield self.calls.answer(self.sessions.detached(envelope),
                                        message)
        return complete("completion/complete", value)


def _namedBy(value, subject):
    """
    Make C{subject}, the stand-in an C{open_session} or C{close_session}
    call is recorded against, name the session its result names: the audit
    trail then says which session was opened or closed.
    """
    handle = (value.get("structuredContent") or {}).get("session")
    if isinstance(handle, str):
        subject.handle = handle
    return value

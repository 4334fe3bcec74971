"""
The 2026-07-28 era's requests, independent of HTTP: no handshake, each
request carries its client's facts (an
L{gsmcpd.protocol.eras.modern.envelope.Envelope}); a call runs where
L{gsmcpd.protocol.eras.modern.lending} places it, and its answer is
dressed once (C{resultType}, an input-required round, or a task).
"""

from collections.abc import Callable
from functools import partial
from typing import Any, cast

import attr
from twisted.internet.defer import (
    Deferred,
    fail,
    inlineCallbacks,
    maybeDeferred,
    succeed,
)
from twisted.python.failure import Failure
from zope.interface import implementer

from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol import kinds
from gsmcpd.protocol.calls import notAdmitted
from gsmcpd.protocol.catalogsurface import mirroringShown, unwrapCall
from gsmcpd.protocol.eras.modern import skills, tasks
from gsmcpd.protocol.eras.modern.asking import ModernAsker, modernRound
from gsmcpd.protocol.eras.modern.dialect import ModernDialect
from gsmcpd.protocol.eras.modern.envelope import (
    Envelope,
    Headers,
    checkParameterHeaders,
    methodRemoved,
)
from gsmcpd.protocol.eras.modern.handles import (
    HANDLE_TOOLS,
    SESSION_ARGUMENT,
    ToolSchemas,
    asRefusal,
    takeHandle,
    takesHandle,
)
from gsmcpd.protocol.eras.modern.lending import Lending, nothingToRelease
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal
from gsmcpd.protocol.eras.modern.results import ModernAnswer, complete
from gsmcpd.protocol.facts import MODERN, RequestFacts
from gsmcpd.protocol.handlers import Handlers, answersAsStream
from gsmcpd.protocol.jsonrpc import (
    SERVER_ERROR,
    JsonObject,
    JsonRpcError,
    Message,
    invalidParams,
)
from gsmcpd.protocol.methods import Method, MethodTable
from gsmcpd.protocol.pipeline import (
    Answer,
    CallPipeline,
    IEra,
    Lookup,
    Placed,
    Unmade,
)
from gsmcpd.sessions.client import LogGate
from gsmcpd.sessions.context import CallContext, noLogs
from gsmcpd.sessions.interfaces import ICallSink
from gsmcpd.sessions.lending import NotAdmitted
from gsmcpd.sessions.listeners import Filter
from gsmcpd.sessions.running import CANCELLED
from gsmcpd.tools.base import NO_SESSION, Tool
from gsmcpd.tools.invocation import NOT_AN_OBJECT
from gsmcpd.tools.templates.outcomes import ToolError

OpenStream = Callable[[], ICallSink | None]
"""Opens a call's own event stream, or answers L{None} when its client
does not accept one."""


def _noStream() -> None:
    """A call answered without a stream of its own."""


def _given(sink: ICallSink) -> ICallSink:
    return sink


def _decoded(call: RequestFacts) -> RequestFacts:
    """A call refused before it was placed, as its record names it."""
    return attr.evolve(call, tool=None, arguments=withoutHandle(
        call.params.get("arguments")))


def _unplaced(call: RequestFacts) -> RequestFacts:
    """A call its tool refused before it was placed, without its handle."""
    return attr.evolve(call, arguments=withoutHandle(call.arguments))


def dressed(value: Any) -> JsonObject:
    """A call's result; for one its client cancelled, the error saying so."""
    if value is CANCELLED:
        raise JsonRpcError(SERVER_ERROR, "The request was cancelled")
    return value


def withoutHandle(arguments: Any) -> Any:
    """A call's arguments as its record names them: without the handle."""
    if not isinstance(arguments, dict):
        return arguments
    return {name: value for name, value in arguments.items()
            if name != SESSION_ARGUMENT}


@attr.s(frozen=True, slots=True, auto_attribs=True)
class Carried:
    """
    What a 2026-era C{tools/call} carries besides its facts, for its era's
    steps (C{minted}: told the handle C{open_session} opened).
    """

    envelope: Envelope
    headers: Headers
    openStream: OpenStream
    minted: Callable[[str], object]


@implementer(IEra)
class ModernEra:
    """
    Answers 2026-07-28 requests for one server, serving the skills
    C{served}.
    """

    def __init__(self, handlers: Handlers, methods: MethodTable,
                 pipeline: CallPipeline, lending: Lending, clock: Any,
                 served: skills.Skills, taskStore: tasks.TaskStore):
        self.handlers = handlers
        self.methods = methods
        self.pipeline = pipeline
        self.calls = pipeline.calls
        self.lending = lending
        self.clock = clock
        self.tasks = taskStore
        self.seal = RequestStateSeal(clock)
        catalog = handlers.tools
        self._taskSupport = {tool.name: tool.taskSupport for tool in catalog
                             if tool.taskSupport is not None}
        self.schemas = ToolSchemas()
        handleTools = HANDLE_TOOLS if any(
            tool.runsOn != NO_SESSION for tool in catalog) else ()
        self._handleTools = {tool.name: tool for tool in handleTools}
        self.dialect = ModernDialect(
            handlers.identity.modernInstructions, self._capabilities(served),
            self.schemas.describe, handleTools,
            {skill.uri: skill for skill in served})

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

    def facts(self, message: Message, envelope: Envelope,
              arguments: Any = None) -> RequestFacts:
        """The facts a handler is told of C{message}."""
        return RequestFacts(
            message.method, message.params, message.id, self.dialect,
            envelope.clientCapabilities, envelope.principal,
            arguments=arguments)

    def answer(self, message: Message, envelope: Envelope, headers: Headers,
               openStream: OpenStream) -> Deferred[ModernAnswer]:
        """
        A L{Deferred} of one 2026-era request's L{ModernAnswer} (or failing
        with its L{JsonRpcError}).  Callbacks rather than a generator: this
        runs for every request.
        """
        try:
            message = unwrapCall(self.handlers.tools, message,
                                 lifted=(SESSION_ARGUMENT,))
        except JsonRpcError as e:
            return fail(e)
        method = self.methods.find(message.method, MODERN)
        if method is None:
            return fail(methodRemoved(message.method))
        minted: list[str] = []
        if message.method == "tools/call":
            answering = self.pipeline.call(self, message, Carried(
                envelope, headers, openStream, minted.append), method)
        else:
            answering = self._answer(self.facts(message, envelope),
                                     envelope, method)
        return answering.addCallback(
            lambda value: ModernAnswer(value, minted[0] if minted else None))

    # Its codec (L{IEra}): the three verbs of a tools/call.

    def decode(self, message: Message, carrier: Carried,
               lookup: Lookup) -> RequestFacts:
        """
        A call's arguments, which must be an object its C{Mcp-Param-*}
        headers match; a call of no tool is recorded without them, any
        other without its handle.
        """
        arguments = message.params.get("arguments")
        call = self.facts(message, carrier.envelope, withoutHandle(arguments))
        arguments = {} if arguments is None else arguments
        try:
            tool = lookup(call)
            if not isinstance(arguments, dict):
                raise invalidParams(NOT_AN_OBJECT)
            checkParameterHeaders(
                self.schemas.schemaOf(tool), arguments, carrier.headers,
                lambda: tool.name in self._handleTools or mirroringShown(
                    self.handlers.toolsFor(call.principal), message,
                    (SESSION_ARGUMENT,)))
        except CallRefused as e:
            raise Unmade(call, e)
        except JsonRpcError as e:
            raise Unmade(call.replace(arguments=None), e)
        return call.replace(tool=tool, arguments=arguments)

    def place(self, call: RequestFacts, carrier: Carried) -> Deferred[Placed]:
        """
        C{open_session} and C{close_session} answered by the era; else all
        that refuses a call checked before a session is lent for it.
        Callbacks rather than a generator: this runs for every call.
        """
        tool = cast(Tool, call.tool)
        envelope = carrier.envelope
        if tool.name in self._handleTools:
            return succeed(Placed(call, own=lambda: self.lending.handleTool(
                tool, call.arguments, envelope, carrier.minted)))
        try:
            refusal = tasks.requires(envelope)
            if self._taskSupport.get(tool.name) == "required" and \
                    refusal is not None:
                raise refusal
            self.calls.records.admit()
            try:
                # A state this daemon did not seal for this call (altered,
                # another's, expired, spent) is refused before a session is
                # lent; its round spends it.
                verified = self.seal.verified("tools/call", call.params)
            except JsonRpcError as e:
                raise CallRefused(kinds.TAMPERED_STATE, e)
            handle, rest = takeHandle(call.arguments) if takesHandle(tool) \
                else (None, call.arguments)
        except CallRefused as e:
            return fail(Unmade(_decoded(call), e))
        except (JsonRpcError, ToolError) as e:
            return fail(Unmade(_unplaced(call), e))
        placing = succeed((None, nothingToRelease)) \
            if tool.runsOn == NO_SESSION else \
            self.lending.forTool(tool, handle, envelope, call.id)
        return placing.addCallbacks(
            self._placed, self._unlent,
            (call, carrier, verified, rest, handle is None),
            errbackArgs=(call, verified, handle, envelope))

    def _placed(self, lent: tuple[Any, Callable[[], object]],
                call: RequestFacts, carrier: Carried, verified: Any,
                rest: Any, admitted: bool) -> Placed:
        work, done = lent
        return Placed(call.replace(work=work, arguments=rest),
                      partial(self._run, carrier, done, verified),
                      admitted=admitted)

    def _unlent(self, failure: Failure, call: RequestFacts, verified: Any,
                handle: str | None, envelope: Envelope) -> Failure:
        """A call refused before it was placed: as its record names it."""
        error = failure.value
        if isinstance(error, NotAdmitted):
            self.seal.spend(verified)
            raise Unmade(_decoded(call), notAdmitted(call, error.error))
        if not isinstance(error, (JsonRpcError, ToolError)):
            return failure
        refused = asRefusal(error, handle, envelope.principal,
                            self.lending.sessions)
        raise Unmade(_decoded(call) if isinstance(refused, CallRefused)
                     else _unplaced(call), cast(Any, refused))

    def _run(self, carrier: Carried, done: Callable[[], object],
             verified: Any, call: RequestFacts, answer: Answer
             ) -> Deferred[Any]:
        """
        A call as a task where its tool may become one, else in
        input-required rounds, on its own stream where its client takes
        one: opened once the call is admitted (L{_context}), or as a round
        refused before its call ran is answered.  Callbacks rather than a
        generator: this runs for every call.
        """
        tool = cast(Tool, call.tool)
        envelope = carrier.envelope
        escalate = None
        opening: OpenStream = _noStream
        if self._taskSupport.get(tool.name) is not None and \
                tasks.requires(envelope) is None:
            progress = tasks.TaskProgress(self.tasks)
            opening = partial(_given, progress)
            escalate = self._becomeTask(progress, done, envelope)
        elif answersAsStream(call.params, tool):
            opening = carrier.openStream
        ran: list[ModernAsker] = []

        def run(asker: ModernAsker) -> Deferred[Any]:
            ran.append(asker)
            return answer(call, opening=partial(
                self._context, asker, opening, envelope)).addCallback(dressed)

        def over(outcome: Any) -> Any:
            if isinstance(outcome, Failure):
                if not ran:
                    opening()
            elif outcome.get("resultType") == tasks.TASK:
                return outcome
            done()
            return outcome

        return modernRound(self.seal, envelope, "tools/call", call.params,
                           run, escalate, verified).addBoth(over)

    def _context(self, asker: ModernAsker, opening: OpenStream,
                 envelope: Envelope) -> CallContext:
        """
        A call's context, built once the sessions layer admitted it: the
        one call back up, where its stream is opened.
        """
        sink = opening()
        return CallContext(asker, sink, noLogs if sink is None else LogGate(
            self.clock.seconds, envelope.logLevel).wants)

    def frame(self, value: JsonObject) -> JsonObject:
        return complete("tools/call", value)

    def _becomeTask(self, progress: tasks.TaskProgress,
                    done: Callable[[], Any], envelope: Envelope
                    ) -> Callable[[Deferred[Any], ModernAsker], JsonObject]:
        """
        What makes a call still running after its first steps a task: it
        goes on, readable by C{tasks/get}, whatever the client does, and
        C{tasks/cancel} ends it as a client that stops waiting would.
        """
        def escalate(working: Deferred[Any], asker: ModernAsker
                     ) -> JsonObject:
            working.addCallback(self.frame)
            working.addBoth(lambda outcome: (done(), outcome)[1])
            task = self.tasks.adopt(working, working.cancel,
                                    envelope.principal)
            progress.task = task
            asker.becameTask(self.tasks, task)
            return task.created()
        return escalate

    # Every other method.

    @inlineCallbacks
    def _answer(self, facts: RequestFacts, envelope: Envelope,
                method: Method) -> Any:
        """
        A request other than C{tools/call}; a skill read is no call, a
        GemStone resource is read in a throwaway session lent for it.
        """
        if facts.method == "prompts/get":
            value = yield modernRound(
                self.seal, envelope, cast(str, facts.method), facts.params,
                lambda asker: self.calls.answer(attr.evolve(
                    facts, context=CallContext(asker)), method))
            return value
        uri = facts.params.get("uri")
        uri = uri if isinstance(uri, str) else ""
        if not method.call or uri in self.dialect.skills:
            value = yield maybeDeferred(method.handler, facts)
            return complete(cast(str, facts.method), value)
        found = self.handlers.surfaceFor(envelope.principal).resolve(uri)
        if found is not None and found[0].runsOn != NO_SESSION:
            work, done = yield self.lending.forRead(envelope,
                                                    self.calls.records)
        else:
            work, done = None, nothingToRelease
        try:
            value = yield self.calls.answer(attr.evolve(facts, work=work),
                                            method)
        finally:
            done()
        return complete(cast(str, facts.method), dressed(value))

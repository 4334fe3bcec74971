"""
The one pipeline every C{tools/call} of either era takes.

decode (the era) -> look the tool up, once -> find the work session (the
era) -> admit, once -> run (the L{CallRunner}) -> frame (the era).  An era
is an L{IEra}: how its requests read, where its calls run and how their
answers are dressed.  What only the 2026-07-28 era has (tasks,
input-required rounds, request state, its own session tools) are hooks of
its era, inside these steps; none of them is a path of its own.
"""

from collections.abc import Callable
from functools import partial
from typing import Any, cast

import attr
from twisted.internet.defer import Deferred, fail, succeed
from twisted.python.failure import Failure
from zope.interface import Attribute, Interface

from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.handlers import Handlers
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError, Message
from gsmcpd.protocol.methods import Method
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.base import Tool, ToolResult
from gsmcpd.tools.templates.outcomes import ToolError

Admit = Callable[[RequestFacts, IWorkSession | None], None]
"""Admits a call into a work session (L{None}: one yet to be lent), or
raises the L{CallRefused} that refuses it."""


@attr.s(frozen=True, slots=True, auto_attribs=True)
class Placed:
    """
    A call placed in the work session it runs in.

    @ivar call: its facts, with that session and the arguments it runs
        with.
    @ivar done: called when the call is over (a throwaway session is
        given back).
    @ivar state: what the era keeps for its run (the 2026 era: the request
        state it verified before the session was lent).
    """

    call: RequestFacts
    done: Callable[[], object]
    state: Any = None


class IEra(Interface):
    """
    An era's codec: the steps of a call that its era does its own way.
    """

    def decode(message: Message, carrier: Any) -> RequestFacts:
        """
        A call's frozen facts, as its era's envelope (C{carrier}) gives
        them, before its tool is looked up.
        """

    def lookedUp(call: RequestFacts, tool: Tool | None) -> RequestFacts:
        """
        The facts once C{tool} was looked up: its arguments as the era
        reads them, and its stream where the era opens it now; for
        L{None} (no such tool), the facts its record names.

        @raise JsonRpcError: for arguments the era will not run.
        """

    def answersItself(call: RequestFacts
                      ) -> Callable[[], Deferred[Any]] | None:
        """
        The answer of a tool the era serves without a work session (the
        2026 era's C{open_session}, C{close_session}), or L{None}.
        """

    def workSession(call: RequestFacts, admit: Admit) -> Deferred[Placed]:
        """
        Where the call runs: a L{Deferred} of it L{Placed}.  A session lent
        for this call alone (a throwaway one) is admitted with C{admit}
        before it is lent; any other after, by the pipeline.

        @raise CallRefused: through the L{Deferred}, for a refusal.
        @raise JsonRpcError: or L{ToolError}, for a call that cannot be
            made, recorded as what its client is told.
        """

    def unplaced(call: RequestFacts) -> RequestFacts:
        """
        The facts a call that could not be placed is recorded with.
        """

    def run(placed: Placed,
            answer: Callable[[RequestFacts], Deferred[Any]]
            ) -> Deferred[JsonObject]:
        """
        Run the placed call: C{answer} is the L{CallRunner}'s, called with
        the call's facts and its context (the era's asker and stream).
        """

    def finished(value: JsonObject) -> JsonObject:
        """
        A call's result as its era frames a finished one.
        """

    dialect = Attribute("What the era says differently.")


class CallPipeline:
    """
    Runs every C{tools/call}, of either era.
    """

    def __init__(self, handlers: Handlers, calls: CallRunner) -> None:
        self.handlers = handlers
        self.calls = calls

    def call(self, era: IEra, message: Message, carrier: Any,
             method: Method) -> Deferred[Any]:
        """
        Answer a C{tools/call}, unframed by its transport: a L{Deferred} of
        its result as its era frames it, or failing with its
        L{JsonRpcError}.
        """
        call = era.decode(message, carrier)
        try:
            tool = self.handlers.toolCalled(call.dialect, call.principal,
                                            call.params)
        except CallRefused as e:
            return self.calls.refused(call, e).addCallback(era.finished)
        except JsonRpcError as e:
            return self._unmade(era, era.lookedUp(call, None), e)
        try:
            found = era.lookedUp(call, tool)
        except JsonRpcError as e:
            return self._unmade(era, era.lookedUp(call, None), e)
        own = era.answersItself(found)
        if own is not None:
            return self.calls.recorded(found, own).addCallback(era.finished)
        placing = era.workSession(found, self.calls.admit)
        return placing.addCallbacks(
            self._placed, self._unplaced, (era, method),
            errbackArgs=(era, call, found))

    def _placed(self, placed: Placed, era: IEra,
                method: Method) -> Deferred[Any]:
        work = placed.call.work
        if work is not None and not work.throwaway:
            try:
                self.calls.admit(placed.call, work)
            except CallRefused as e:
                placed.done()
                return self.calls.refused(placed.call, e).addCallback(
                    era.finished)
        return era.run(placed, partial(self.calls.answer, method=method,
                                       admitted=True))

    def _unplaced(self, failure: Failure, era: IEra, call: RequestFacts,
                  found: RequestFacts) -> Deferred[Any]:
        if failure.check(CallRefused):
            return self.calls.refused(call, cast(
                CallRefused, failure.value)).addCallback(era.finished)
        failure.trap(JsonRpcError, ToolError)
        return self._unmade(era, era.unplaced(found), cast(
            JsonRpcError | ToolError, failure.value))

    def _unmade(self, era: IEra, call: RequestFacts,
                error: JsonRpcError | ToolError) -> Deferred[Any]:
        """
        Record a call that failed before it ran, and is no refusal (no
        such tool, its login failed, no slot was free, the server is
        stopping...), as what its client is told: C{error}'s tool error as
        its result, or C{error}.
        """
        if isinstance(error, ToolError):
            return self.calls.recorded(call, partial(
                succeed, ToolResult.fromError(error).asResult())
            ).addCallback(era.finished)
        return self.calls.recorded(call, partial(fail, error))

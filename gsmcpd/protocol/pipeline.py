"""
The one pipeline every C{tools/call} of either era takes: decode (the tool
looked up once) -> place -> run (admitted once, by its era or as it runs)
-> frame.  An era is an L{IEra} of those three verbs; what only the
2026-07-28 era has (tasks, input-required rounds, request state, its
session tools) hooks into them.
"""

from collections.abc import Callable
from functools import partial
from typing import Any, Protocol, cast

import attr
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure
from zope.interface import Attribute, Interface

from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.handlers import Handlers
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError, Message
from gsmcpd.protocol.methods import Method
from gsmcpd.sessions.context import CallContext
from gsmcpd.tools.base import Tool
from gsmcpd.tools.templates.outcomes import ToolError

Lookup = Callable[[RequestFacts], Tool]
"""L{Handlers.toolCalled}: raises for no tool its caller may use."""


class Answer(Protocol):
    """L{CallRunner.answer}, for a placed call."""

    def __call__(self, call: RequestFacts,
                 opening: Callable[[], CallContext] | None = None
                 ) -> Deferred[Any]: ...


def _direct(call: RequestFacts, answer: Answer) -> Deferred[Any]:
    return answer(call)


@attr.s(auto_exc=True, auto_attribs=True)
class Unmade(Exception):
    """
    A call that cannot be made (no such tool, arguments its era refuses, a
    refusal, no session), and the facts its record names.
    """

    call: RequestFacts
    error: CallRefused | JsonRpcError | ToolError


@attr.s(frozen=True, slots=True, auto_attribs=True)
class Placed:
    """
    A call placed in its work session (C{call}, with the arguments it runs
    with); C{runs}, how its era runs it (rounds, tasks); C{own}, the answer
    of a tool its era serves without one (C{open_session},
    C{close_session}); C{admitted}, whether its era admitted it already (a
    2026 call lent a throwaway session), else the sessions layer does.
    """

    call: RequestFacts
    runs: Callable[[RequestFacts, Answer], Deferred[Any]] = _direct
    own: Callable[[], Deferred[Any]] | None = None
    admitted: bool = False


class IEra(Interface):
    """An era's codec: the three verbs of a call its era does its own way."""

    def decode(message: Message, carrier: Any, lookup: Lookup
               ) -> RequestFacts:
        """
        A call's frozen facts from its era's envelope (C{carrier}), with
        the tool C{lookup} finds (called once); raises L{Unmade}.
        """

    def place(call: RequestFacts, carrier: Any
              ) -> Placed | Deferred[Placed]:
        """
        Where the call runs, and how, at once where it can (fails with
        L{Unmade}); it may admit it (L{Placed.admitted}).
        """

    def frame(value: JsonObject) -> JsonObject:
        """A call's result as its era frames a finished one."""

    dialect = Attribute("What the era says differently.")


class CallPipeline:
    """Runs every C{tools/call}, of either era."""

    def __init__(self, handlers: Handlers, calls: CallRunner) -> None:
        self.handlers = handlers
        self.calls = calls

    def _lookup(self, call: RequestFacts) -> Tool:
        return self.handlers.toolCalled(call.dialect, call.principal,
                                        call.params)

    def call(self, era: IEra, message: Message, carrier: Any,
             method: Method) -> Deferred[Any]:
        """
        A L{Deferred} of a C{tools/call}'s result as its era frames it, or
        failing with its L{JsonRpcError}.
        """
        try:
            call = era.decode(message, carrier, self._lookup)
        except Unmade as e:
            return self._unmade(Failure(e), era)
        placing = era.place(call, carrier)
        if isinstance(placing, Placed):
            return self._placed(placing, era, method)
        return placing.addCallbacks(
            self._placed, self._unmade, (era, method), errbackArgs=(era,))

    def _placed(self, placed: Placed, era: IEra,
                method: Method) -> Deferred[Any]:
        if placed.own is not None:
            return self.calls.recorded(placed.call, placed.own).addCallback(
                era.frame)
        return placed.runs(placed.call, partial(
            self.calls.answer, method=method, admitted=placed.admitted))

    def _unmade(self, failure: Failure, era: IEra) -> Deferred[Any]:
        failure.trap(Unmade)
        unmade = cast(Unmade, failure.value)
        return self.calls.unmade(unmade.call, unmade.error).addCallback(
            era.frame)

"""
A running call's L{ICallContext}, put together from small parts, each with
one job: the call's own stream (progress, log messages, closing early),
which log messages its client wants, how it asks its client something
(an L{IAsker}), and how it is ended (an L{ICallControl}: the call runner's
L{gsmcpd.sessions.breaks.RunningCall}).

Each era's adapter supplies the parts the client decides (the stream, the
log level, the way of asking); the call runner adds the ending.
"""

from collections.abc import Callable
from typing import Any, TypeVar

import attr
from twisted.internet.defer import Deferred
from zope.interface import implementer

from gsmcpd.sessions.interfaces import ICallSink
from gsmcpd.tools.context import NULL_CONTEXT, ICallContext, ICallControl
from gsmcpd.tools.questions import NULL_ASKER, IAsker

_T = TypeVar("_T")


def noLogs(level: str) -> bool:
    """
    The log gate of a call with no stream to send log messages on.
    """
    return False


@implementer(ICallContext)
@attr.s(frozen=True, slots=True, auto_attribs=True)
class CallContext:
    """
    What a tool may ask of the request it serves.

    @ivar asker: how it asks the client.
    @ivar sink: the call's own stream (an L{ICallSink}), when the request
        is answered as one; else L{None}.
    @ivar wantsLog: whether the client wants a log message of a level (a
        L{gsmcpd.sessions.client.LogGate}'s C{wants}).
    @ivar control: how the call is ended: the call's
        L{gsmcpd.sessions.breaks.RunningCall} once it runs; for a request
        answered from memory, L{NULL_CONTEXT} (nothing to end, no clock).
    """

    asker: IAsker = NULL_ASKER
    sink: ICallSink | None = None
    wantsLog: Callable[[str], bool] = noLogs
    control: ICallControl = NULL_CONTEXT

    def endedBy(self, control: ICallControl) -> "CallContext":
        """
        This context, for a call that C{control} ends.
        """
        return CallContext(self.asker, self.sink, self.wantsLog, control)

    @property
    def wantsProgress(self) -> bool:
        return self.sink is not None and self.sink.wantsProgress

    @property
    def clock(self) -> Any:
        return self.control.clock

    def start(self, call: Callable[..., Deferred[_T]], *args: object
              ) -> Deferred[_T]:
        return self.control.start(call, *args)

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        if self.sink is None or not self.wantsLog(level):
            return
        params = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        self.sink.post({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": params})

    def canAsk(self, capability: str) -> bool:
        return self.asker.canAsk(capability)

    def ask(self, questions: dict[str, Any]) -> Deferred[dict[str, Any]]:
        return self.asker.ask(questions)

    def closeStream(self) -> None:
        if self.sink is not None:
            self.sink.closeEarly()

    def reportProgress(self, progress: float, total: float | None = None,
                       message: str | None = None) -> None:
        if self.sink is not None and self.sink.wantsProgress:
            self.sink.report(progress, total, message)


FROM_MEMORY = CallContext()
"""The context of a request answered from memory: nothing to ask with,
no stream, nothing to end."""

"""
What a running tool may ask of the request it serves: progress, log
messages and questions for the client, and whether it is being ended.

A request answered over MCP supplies a
L{gsmcpd.sessions.context.CallContext}, whose ending part (an
L{ICallControl}) is the call's L{gsmcpd.sessions.breaks.RunningCall}; work
the daemon does for itself (view hygiene, worker logins) uses
L{NULL_CONTEXT}, so a tool never checks which it has.
"""

from collections.abc import Callable
from typing import Any, TypeVar

from twisted.internet.defer import Deferred
from zope.interface import Attribute, Interface, implementer

from gsmcpd.tools.questions import NULL_ASKER

_T = TypeVar("_T")


class ICallControl(Interface):
    """
    How a running call is ended: what a template run reads to know whether
    to start, and tells which GemStone call is the one to break.
    """

    clock = Attribute(
        "The IReactorTime the call's time runs on (its deadline), for a tool "
        "that paces its work; None for work no client waits on.")

    def start(call: Callable[..., Deferred[_T]], *args: object
              ) -> Deferred[_T]:
        """
        Start the GemStone call C{call(*args)} (an L{IGemSession} method:
        C{execute}, C{executeDebug}...), the one to end if the request must
        end (until it fires); none once the call is being ended (deadline,
        cancellation): then fail with C{CallWithdrawn}.  The method itself,
        not a closure over it: the sessions layer calls the gem, and never
        back into the tool.
        """


class ICallContext(ICallControl):
    """
    The request a tool call runs for: how it is ended, and what it may
    send or ask its client.
    """

    wantsProgress = Attribute(
        "Whether the client asked to hear how far the call has got.")

    def log(level: str, data: Any, logger: str | None = None) -> None:
        """
        Send the client a log message, if it accepts one and wants C{level}.
        """

    def canAsk(capability: str) -> bool:
        """
        Whether the client declared C{capability} (C{"elicitation"},
        C{"sampling"}, C{"roots"}), so it can answer such a question.
        """

    def ask(questions: dict[str, Any]) -> Deferred[dict[str, Any]]:
        """
        Ask the client C{questions} (by key, from
        L{gsmcpd.tools.questions}); a Deferred firing with the answers by
        key, however the protocol era carries them.
        """

    def closeStream() -> None:
        """
        End the call's stream before its result; the client resumes it.
        """

    def reportProgress(progress: float, total: float | None = None,
                       message: str | None = None) -> None:
        """
        Tell a client that asked for progress how far the call has got.
        """


@implementer(ICallContext)
class NullCallContext:
    """
    The context of work no client is waiting on: nothing to report to,
    nothing to end.
    """

    wantsProgress = False
    clock = None

    def start(self, call: Callable[..., Deferred[_T]], *args: object
              ) -> Deferred[_T]:
        return call(*args)

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        pass

    def canAsk(self, capability: str) -> bool:
        return False

    def ask(self, questions: dict[str, Any]) -> Deferred[dict[str, Any]]:
        return NULL_ASKER.ask(questions)

    def closeStream(self) -> None:
        pass

    def reportProgress(self, progress: float, total: float | None = None,
                       message: str | None = None) -> None:
        pass


NULL_CONTEXT = NullCallContext()

"""
How a 2025-era call asks its client: each question a request on the call's
own stream, its answer POSTed back (L{gsmcpd.protocol.eras.legacy.outbound}).
"""

from typing import Any

from twisted.internet.defer import Deferred
from zope.interface import implementer

from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.interfaces import ICallSink, IClientRequests
from gsmcpd.tools.questions import IAsker, askEach
from gsmcpd.tools.templates.outcomes import ToolError


@implementer(IAsker)
class StreamAsker:
    """Asking on the call's stream, C{sink}: without one, nothing is asked."""

    def __init__(self, pending: IClientRequests, client: ClientSession,
                 sink: ICallSink | None):
        self._pending = pending
        self._client = client
        self._sink = sink

    def canAsk(self, capability: str) -> bool:
        return isinstance(self._client.clientCapabilities.get(capability),
                          dict)

    def ask(self, questions: dict[str, Any]) -> Deferred[dict[str, Any]]:
        return askEach(self.send, questions)

    def send(self, method: str,
             params: dict[str, Any]) -> Deferred[dict[str, Any]]:
        if self._sink is None:
            raise ToolError("refused", f"{method} needs a client that "
                            "accepts an event stream for this call")
        return self._pending.send(self._client, method, params,
                                  via=self._sink)

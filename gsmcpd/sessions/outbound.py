"""
Requests the server sends a 2025 client session, and the answers it POSTs
back: ids of their own (C{srv-N}, never a client's) and a timeout, so an
unanswered request never hangs a session; the registry forgets a closed
session's.  A 2025-era call asks its client so, each question a request on
the call's own stream.
"""

import itertools
from typing import Any

import attr
from twisted.internet.defer import Deferred
from twisted.logger import Logger
from zope.interface import implementer

from gsmcpd.observe.clipping import clipped
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.interfaces import (
    ClientAnsweredError,
    ClientDidNotAnswer,
    ICallSink,
    IClientRequests,
    IWorkSession,
    JsonObject,
)
from gsmcpd.tools.questions import IAsker, askEach
from gsmcpd.tools.templates.outcomes import ToolError

REQUEST_TIMEOUT = 30.0


@implementer(IClientRequests)
class PendingRequests:
    """The server's outstanding requests to clients, by id."""

    log = Logger()

    def __init__(self, clock: Any, timeout: float = REQUEST_TIMEOUT) -> None:
        self._clock = clock
        self._timeout = timeout
        self._ids = itertools.count(1)
        self._pending: dict[object, tuple[str, Deferred[Any], Any]] = {}

    def __len__(self) -> int:
        return len(self._pending)

    def send(self, session: ClientSession, method: str,
             params: JsonObject | None = None,
             via: ICallSink | None = None) -> Deferred[JsonObject]:
        """Post a request on C{session}'s stream, or C{via} a call's own."""
        requestId = f"srv-{next(self._ids)}"
        d: Deferred[JsonObject] = Deferred()
        timer = self._clock.callLater(self._timeout, self._expire, requestId)
        self._pending[requestId] = (session.handle, d, timer)
        message: JsonObject = {"jsonrpc": "2.0", "id": requestId,
                               "method": method}
        if params is not None:
            message["params"] = params
        (via or session).post(message)
        return d

    def answer(self, session: ClientSession, message: Any) -> bool:
        """Whether a response the client POSTed (a parsed message: its
        C{id} and C{raw}) answers one of ours."""
        entry = self._pending.get(message.id)
        if entry is None or entry[0] != session.handle:
            self.log.info("session {session}: a response to unknown request "
                          "{id}", session=session.label,
                          id=clipped(message.id))
            return False
        del self._pending[message.id]
        _, d, timer = entry
        timer.cancel()
        if "error" in message.raw:
            d.errback(ClientAnsweredError(message.raw["error"]))
        else:
            d.callback(message.raw.get("result"))
        return True

    def forget(self, session: IWorkSession) -> None:
        """Drop a closed session's outstanding requests, silently."""
        for requestId, (handle, _, timer) in list(self._pending.items()):
            if handle == session.handle:
                del self._pending[requestId]
                timer.cancel()

    def _expire(self, requestId: object) -> None:
        _, d, _ = self._pending.pop(requestId)
        d.errback(ClientDidNotAnswer(requestId))


@implementer(IAsker)
@attr.s(frozen=True, slots=True, auto_attribs=True)
class StreamAsker:
    """Asking on the call's stream, C{sink}: without one, nothing is asked.
    A value, as the L{gsmcpd.sessions.context.CallContext} it is part of."""

    _pending: IClientRequests
    _client: ClientSession
    _sink: ICallSink | None

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

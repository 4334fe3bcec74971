"""
A 2025 client's MCP session: its protocol state (the revision it
negotiated, what it said it is and can do, its event streams and outbox,
its subscriptions and log level), beside the work session it works in.
"""

import time
from collections.abc import Callable
from typing import Any

from gsmcpd.sessions.interfaces import JsonObject
from gsmcpd.sessions.outbox import Outbox
from gsmcpd.sessions.work import WorkSession

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical",
              "alert", "emergency")
"""RFC 5424 severities, least severe first, as MCP names them."""

KEPT_SEQUENCES = 16
"""Streams per session whose recent events are kept for resumption."""


class LogGate:
    """
    Which log messages reach one client: those at or above the level it
    set (none at all for L{None}), within a token bucket of a burst of 50,
    then 20 a second, so a chatty tool cannot flood a stream.

    @ivar level: the least severe level the client wants, or L{None}.
    """

    def __init__(self, seconds: Callable[[], float],
                 level: str | None = "info", rate: float = 20.0,
                 burst: float = 50.0) -> None:
        self.level = level
        self._rate = rate
        self._burst = burst
        self._seconds = seconds
        self._tokens = burst
        self._last = seconds()

    def wants(self, level: str) -> bool:
        """
        Whether to send a log message of C{level}; one that is sent is
        spent from the budget.
        """
        if self.level is None or \
                LOG_LEVELS.index(level) < LOG_LEVELS.index(self.level):
            return False
        return self.spend()

    def spend(self) -> bool:
        """
        Spend one message from the budget, if there is one left.
        """
        now = self._seconds()
        self._tokens = min(self._burst,
                           self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


class ClientSession:
    """
    One 2025 client's MCP session.

    @ivar work: the L{gsmcpd.sessions.interfaces.IWorkSession} its calls
        run in; its handle is the session's C{MCP-Session-Id}.
    @ivar protocolVersion: the revision negotiated at C{initialize}.
    @ivar clientInfo: what the client said it is.
    @ivar clientCapabilities: what it said it can do (sampling, elicitation,
        roots), for a tool that would ask it something.
    @ivar logs: its L{LogGate}.
    @ivar outbox: server-to-client messages waiting for the stream.
    @ivar stream: the open event stream, or L{None}.
    @ivar streamGeneration: how many streams this session has opened; the
        newest wins.
    @ivar subscriptions: the resource URIs it subscribed to.
    """

    def __init__(self, work: WorkSession, protocolVersion: str,
                 clientInfo: JsonObject | None,
                 clientCapabilities: JsonObject | None = None,
                 seconds: Callable[[], float] = time.monotonic) -> None:
        self.work = work
        self.protocolVersion = protocolVersion
        self.clientInfo = clientInfo
        self.clientCapabilities = clientCapabilities or {}
        self.logs = LogGate(seconds)
        self.outbox = Outbox(self.label)
        # The transport's event stream (gsmcpd.transport.sse), or None.
        self.stream: Any = None
        self.streamGeneration = 0
        self.sequences: dict[str, Any] = {}
        self._calls = 0
        self.subscriptions: set[str] = set()

    @property
    def handle(self) -> str:
        """The C{MCP-Session-Id}: its work session's handle."""
        return self.work.handle

    @property
    def label(self) -> str:
        """How logs name it: its work session's label."""
        return self.work.label

    def wantsLog(self, level: str) -> bool:
        """
        Whether to send a log message of C{level} (L{LogGate.wants}).
        """
        return self.logs.wants(level)

    def setLogLevel(self, level: str | None) -> None:
        self.logs.level = level

    def subscribe(self, uri: str) -> None:
        self.subscriptions.add(uri)

    def unsubscribe(self, uri: str) -> None:
        self.subscriptions.discard(uri)

    def post(self, message: JsonObject) -> None:
        """
        Queue a server-to-client message, and send it if a stream is open.
        """
        self.outbox.put(message)
        if self.stream is not None:
            self.stream.flush()

    def attachStream(self, makeStream: Callable[[int], Any]) -> Any:
        """
        Make this session's event stream; the newest wins, so the previous
        one ends.

        @param makeStream: called with the new stream's generation; answers
            the stream.
        """
        self.streamGeneration += 1
        previous = self.stream
        self.stream = makeStream(self.streamGeneration)
        self.keep(self.stream.sequence)
        if previous is not None:
            previous.end("superseded")
        return self.stream

    def nextCallKey(self) -> str:
        """
        The key of the next call answered as a stream.
        """
        self._calls += 1
        return f"c{self._calls}"

    def keep(self, sequence: Any) -> None:
        """
        Keep C{sequence}'s events for a client that resumes it; only the
        newest L{KEPT_SEQUENCES} are kept.
        """
        self.sequences[sequence.key] = sequence
        while len(self.sequences) > KEPT_SEQUENCES:
            del self.sequences[next(iter(self.sequences))]

"""
A 2025 client's MCP session: its protocol state (the revision it
negotiated, what it said it is and can do, its event streams and outbox,
its subscriptions and log level), beside the work session it works in.
"""

import time

from gsmcpd.sessions.outbox import Outbox

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

    def __init__(self, seconds, level="info", rate=20.0, burst=50.0):
        self.level = level
        self._rate = rate
        self._burst = burst
        self._seconds = seconds
        self._tokens = burst
        self._last = seconds()

    def wants(self, level):
        """
        Whether to send a log message of C{level}; one that is sent is
        spent from the budget.
        """
        if self.level is None or \
                LOG_LEVELS.index(level) < LOG_LEVELS.index(self.level):
            return False
        return self.spend()

    def spend(self):
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

    def __init__(self, work, protocolVersion, clientInfo,
                 clientCapabilities=None, seconds=time.monotonic):
        self.work = work
        self.protocolVersion = protocolVersion
        self.clientInfo = clientInfo
        self.clientCapabilities = clientCapabilities or {}
        self.logs = LogGate(seconds)
        self.outbox = Outbox(self.label)
        self.stream = None
        self.streamGeneration = 0
        self.sequences = {}
        self._calls = 0
        self.subscriptions = set()

    @property
    def handle(self):
        """The C{MCP-Session-Id}: its work session's handle."""
        return self.work.handle

    @property
    def label(self):
        """How logs name it: its work session's label."""
        return self.work.label

    def wantsLog(self, level):
        """
        Whether to send a log message of C{level} (L{LogGate.wants}).
        """
        return self.logs.wants(level)

    def setLogLevel(self, level):
        self.logs.level = level

    def subscribe(self, uri):
        self.subscriptions.add(uri)

    def unsubscribe(self, uri):
        self.subscriptions.discard(uri)

    def post(self, message):
        """
        Queue a server-to-client message, and send it if a stream is open.
        """
        self.outbox.put(message)
        if self.stream is not None:
            self.stream.flush()

    def attachStream(self, makeStream):
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

    def nextCallKey(self):
        """
        The key of the next call answered as a stream.
        """
        self._calls += 1
        return f"c{self._calls}"

    def keep(self, sequence):
        """
        Keep C{sequence}'s events for a client that resumes it; only the
        newest L{KEPT_SEQUENCES} are kept.
        """
        self.sequences[sequence.key] = sequence
        while len(self.sequences) > KEPT_SEQUENCES:
            del self.sequences[next(iter(self.sequences))]

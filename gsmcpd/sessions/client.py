"""
What the daemon holds for one MCP client: its GemStone session, its
server-to-client outbox and streams, and its log budget.
"""

import secrets
import time

from gsmcpd.auth.tokens import Principal
from gsmcpd.sessions.breaks import CallState
from gsmcpd.sessions.hygiene import ViewState
from gsmcpd.sessions.lifetime import Liveness
from gsmcpd.sessions.outbox import Outbox
from gsmcpd.tools.journal import ChangeJournal
from gsmcpd.tools.ledger import ReadLedger

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical",
              "alert", "emergency")
"""RFC 5424 severities, least severe first, as MCP names them."""

KEPT_SEQUENCES = 16
"""Streams per session whose recent events are kept for resumption."""


class LogBudget:
    """
    A token bucket for log messages to one client: a burst of 50, then 20
    a second, so a chatty tool cannot flood a stream.
    """

    def __init__(self, seconds, rate=20.0, burst=50.0):
        self._rate = rate
        self._burst = burst
        self._seconds = seconds
        self._tokens = burst
        self._last = seconds()

    def spend(self):
        now = self._seconds()
        self._tokens = min(self._burst,
                           self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


def userOf(principal):
    """
    The GemStone user a session of C{principal} logs in as: L{None} (the
    daemon's, or the worker user) without authentication.
    """
    return None if principal is None else principal.user


def newHandle():
    """
    A session handle: 128 bits from the operating system's CSPRNG.
    """
    return secrets.token_hex(16)


def couldBeHandle(text):
    """
    Whether C{text} has the shape of a handle L{newHandle} mints (this
    daemon's, another daemon's, or one from before a restart).
    """
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text)


class McpSession:
    """
    One client's session.

    @ivar handle: the opaque id the client sends back.
    @ivar gem: the L{IGemSession} every call of this client runs on.
    @ivar protocolVersion: the revision negotiated at C{initialize}.
    @ivar expectsStream: whether its client keeps an event stream open (a
        2025 session); a 2026-era session never has one, so going without
        is not a sign that its client has gone.
    @ivar clientInfo: what the client said it is.
    @ivar clientCapabilities: what it said it can do (sampling, elicitation,
        roots), for a tool that would ask it something.
    @ivar ledger: what this client has read in its present view, for the
        blind-write guardrail; it lives here, in the daemon, not the stone.
    @ivar journal: what it changed since its transaction began, to confirm
        a commit by and to announce once committed.
    @ivar outbox: server-to-client messages waiting for the stream.
    @ivar stream: the open event stream, or L{None}.
    @ivar streamGeneration: how many streams this session has opened; the
        newest wins.
    @ivar liveness: the lifetime policy's state (L{Liveness}).
    @ivar view: view hygiene's state (L{ViewState}).
    @ivar calls: the calls in flight (L{CallState}).
    @ivar principal: who uses it (the authenticated
        L{gsmcpd.auth.tokens.Principal} of its latest request, with the
        GemStone user it logged in as), or L{None} without authentication;
        its C{toolsets} are those the session may use.
    @ivar throwaway: whether it is lent to one call at a time (a 2026-era
        call without a handle): nothing its calls change is kept.
    """

    principal: Principal | None = None
    throwaway = False

    def __init__(self, handle, gem, protocolVersion, clientInfo, now=0.0,
                 seconds=time.monotonic, clientCapabilities=None,
                 expectsStream=True):
        self.handle = handle
        self.gem = gem
        self.protocolVersion = protocolVersion
        self.clientInfo = clientInfo
        self.clientCapabilities = clientCapabilities or {}
        self.expectsStream = expectsStream
        self.ledger = ReadLedger()
        self.journal = ChangeJournal()
        self.outbox = Outbox(self.label)
        self.stream = None
        self.streamGeneration = 0
        self.liveness = Liveness(now, now, now)
        self.view = ViewState()
        self.calls = CallState()
        self.logLevel = "info"
        self.sequences = {}
        self._calls = 0
        self.subscriptions = set()
        self._logBudget = LogBudget(seconds)

    def wantsLog(self, level):
        """
        Whether to send a log message of C{level}: at or above the level
        the client set (none: no messages), and within the rate limit.
        """
        if self.logLevel is None or \
                LOG_LEVELS.index(level) < LOG_LEVELS.index(self.logLevel):
            return False
        return self._logBudget.spend()

    @property
    def label(self):
        """
        How logs name this session: a prefix of its handle, which is not
        enough to use it.
        """
        return self.handle[:8]

    @property
    def busy(self):
        """
        Whether a call of this session is queued or running.
        """
        return self.gem.busy

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

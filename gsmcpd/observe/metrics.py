"""
The daemon's Prometheus metrics.

Each metric is declared here once, in a registry of the daemon's own (so
two daemons in one test process, or a test, never share counts), and
recorded with one line where the thing happens.  C{prometheus_client}
renders the text format Prometheus scrapes and adds the process metrics
(CPU, memory, descriptors) for free.
"""

from collections.abc import Callable, Iterator
from functools import partial

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily
from twisted.internet.interfaces import IReactorTime
from twisted.web.http import Request

from gsmcpd.observe.calloutcome import ERROR, TOOL_ERROR, CallOutcome

CALL_SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                        5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
"""GemStone calls range from a millisecond (a lookup) to minutes (a test
run or a long execute_code)."""

NAMESPACE = "gsmcpd"
ESCALATION: dict[str | None, tuple[str, ...]] = {
    "soft": ("soft",), "hard": ("soft", "hard"), "replaced": ("soft", "hard")}
"""The breaks sent to reach each escalation step of a call."""
SESSION_ENDINGS = frozenset({
    "deleted", "closed", "abandoned", "stopping", "gem_died", "idle",
    "idle_streamless", "idle_handle", "lifetime", "ping_unanswered",
    "stream_lost", "view_stuck", "replacement_failed", "read_done",
    "read_idle", "evicted", "other"})
"""Why a session ended, as C{sessions_closed_total}'s C{reason} label: a
closed set of short words a dashboard can name."""
REFUSALS = {
    "notInScope": "notInScope", "foreignHandle": "noSuchHandle",
    "unknownHandle": "noSuchHandle", "handleRequired": "handleRequired",
    "tamperedState": "tamperedState", "auditUnavailable": "auditUnavailable",
    "shareCap": "shareCap"}
"""Why a tool call was refused before it ran, each with the C{kind} label
C{call_refusals_total} counts it under: the audit names the kind (the
operator's to read), the metric folds a foreign handle into an unknown one,
as the client is told, since C{/metrics} may be read by anyone who reaches
the MCP port and the two apart would tell a prober that a handle it holds
is live."""

_Read = Callable[[], float] | None
"""What a gauge or a count kept elsewhere is read from, if anything."""


class CountedElsewhere:
    """
    A counter kept by the object that counts (a plain number, which an
    object below the metrics may hold), read when scraped: a
    C{prometheus_client} counter cannot read a function.  It reads zero
    until told where the count is kept.
    """

    def __init__(self, name: str, documentation: str, labels: tuple[str, ...],
                 namespace: str, registry: CollectorRegistry) -> None:
        self.name = f"{namespace}_{name}"
        self.documentation = documentation
        self._read: Callable[[], float] = lambda: 0
        registry.register(self)

    def readFrom(self, read: Callable[[], float]) -> None:
        """
        Read the count from C{read}, a callable answering it, when scraped.
        """
        self._read = read

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily(self.name, self.documentation,
                                  value=self._read())


class Metrics:
    """
    Every metric the daemon exports.

    Gauges whose truth lives elsewhere (sessions open, pool slots) are read
    when scraped, through L{watch}; the rest are counted as things happen.
    """

    contentType = CONTENT_TYPE_LATEST

    def __init__(self, version: str, processMetrics: bool = True) -> None:
        self.registry = registry = CollectorRegistry(auto_describe=True)
        if processMetrics:
            ProcessCollector(registry=registry)
            PlatformCollector(registry=registry)
        Info("build", "this gsmcpd's version", namespace=NAMESPACE,
             registry=registry).info({"version": version})
        gauge = partial(Gauge, namespace=NAMESPACE, registry=registry)
        counter = partial(Counter, namespace=NAMESPACE, registry=registry)
        elsewhere = partial(CountedElsewhere, namespace=NAMESPACE,
                            registry=registry)
        self.sessionsOpen = gauge("sessions_open", "MCP sessions with a "
                                  "logged-in GemStone session", ())
        self.sessionsOpening = gauge("sessions_opening", "GemStone logins "
                                     "under way for new sessions", ())
        self.sessionsWarm = gauge("sessions_warm", "open sessions idle "
                                  "between reads without a session handle, "
                                  "each giving its slot up to a new session "
                                  "the cap would refuse", ())
        self.poolSlots = gauge(
            "pool_slots", "GemStone sessions the daemon may hold "
            "(--max-sessions), by state: used or free", ("state",))
        self.eventStreams = gauge(
            "event_streams", "server-to-client event streams open", ())
        self.stoneReachable = gauge("stone_reachable", "1 while the daemon's "
                                    "own GemStone session answers, 0 once "
                                    "the stone cannot be reached or does "
                                    "not answer", ())
        self.callsInFlight = gauge(
            "calls_in_flight", "GemStone calls running or queued", ())
        self.toolCalls = counter(
            "tool_calls", "tool calls answered, by tool and outcome (ok, "
            "toolError, error, cancelled, askedForInput: a question to the "
            "client, not an error)", ("tool", "outcome"))
        self.callRefusals = counter(
            "call_refusals", "tool calls refused before they ran, by kind: "
            + " ".join(sorted(set(REFUSALS.values()))), ("kind",))
        self.gemstoneErrors = counter("gemstone_errors", "GemStone errors, "
                                      "by the kind the client is told",
                                      ("kind",))
        self.breaks = counter("breaks", "breaks sent to a GemStone session, "
                              "soft or hard", ("strength",))
        self.replacements = counter(
            "session_replacements", "GemStone sessions logged out and "
            "replaced after a call would not end", ())
        self.sessionsClosed = counter(
            "sessions_closed", "sessions closed, by reason: "
            + " ".join(sorted(SESSION_ENDINGS)), ("reason",))
        self.commits = counter(
            "commits", "commits through the commit tool, by the stone's "
            "answer (committed, conflict, failed)", ("outcome",))
        self.logins = counter(
            "logins", "GemStone logins for client sessions, by outcome (ok, "
            "failed, refused)", ("outcome",))
        self.httpResponses = counter(
            "http_responses", "HTTP responses on the MCP port, by status "
            "class (2xx, 4xx, ...)", ("class",))
        self.authRefusals = counter(
            "auth_refusals", "requests the bearer-token gate refused, by "
            "status (401: no or bad token, 403: too few scopes)", ("status",))
        self.auditUnwritten = elsewhere(
            "audit_lines_unwritten", "audit events the --audit-log file did "
            "not get: the write failed, or the file had failed and was not "
            "tried (they go to the daemon's log instead)", ())
        self.traceLost = elsewhere(
            "trace_lines_lost", "message trace lines lost: dropped for a "
            "full queue, or not taken by the --trace-log file (the daemon's "
            "log says why, once)", ())
        self.auditWritable = gauge(
            "audit_writable", "1 while the audit trail can be written (or "
            "there is no file to write), 0 once a write to --audit-log "
            "failed: no tool call runs until a SIGHUP reopens it", ())
        # Until watch says where the audit trail is: none to fail.
        self.auditWritable.set(1)
        self.callSeconds = Histogram(
            "call_duration_seconds", "time from a tool call's arrival to its "
            "answer, by tool", ["tool"], namespace=NAMESPACE,
            registry=registry, buckets=CALL_SECONDS_BUCKETS)
        self._callSeries: dict[tuple[str, str],
                               tuple[Histogram, Counter]] = {}
        self._responses: dict[int, Counter] = {}
        # Counted as a plain number and read when scraped: a gauge's inc
        # and dec each take a lock, twice for every call.
        self.callsRunning = 0
        self.callsInFlight.set_function(lambda: self.callsRunning)

    def callSeries(self, tool: str, outcome: str) -> tuple[Histogram, Counter]:
        """
        The duration histogram and the call counter a call of C{tool} with
        C{outcome} counts into, looked up once: C{labels} checks and locks
        on every use, and every call ends here.
        """
        series = self._callSeries.get((tool, outcome))
        if series is None:
            series = self._callSeries[tool, outcome] = (
                self.callSeconds.labels(tool),
                self.toolCalls.labels(tool, outcome))
        return series

    def watch(self, sessionsOpen: _Read = None, sessionsOpening: _Read = None,
              slotsUsed: _Read = None,
              slotsLimit: Callable[[], float | None] | None = None,
              eventStreams: _Read = None, sessionsWarm: _Read = None,
              stoneReachable: _Read = None, auditWritable: _Read = None,
              auditUnwritten: _Read = None, traceLost: _Read = None) -> None:
        """
        Read these gauges (and the audit's and the trace's lost lines)
        from the objects that know, when scraped: each argument is a callable
        answering a number (C{slotsLimit} may answer L{None} for no cap).
        """
        for gauge, read in ((self.sessionsOpen, sessionsOpen),
                            (self.sessionsOpening, sessionsOpening),
                            (self.sessionsWarm, sessionsWarm),
                            (self.eventStreams, eventStreams),
                            (self.stoneReachable, stoneReachable),
                            (self.auditWritable, auditWritable)):
            if read is not None:
                gauge.set_function(read)
        for counter, read in ((self.auditUnwritten, auditUnwritten),
                              (self.traceLost, traceLost)):
            if read is not None:
                counter.readFrom(read)
        if slotsUsed is not None:
            self.poolSlots.labels("used").set_function(slotsUsed)
            if slotsLimit is not None:
                self.poolSlots.labels("free").set_function(
                    lambda: _free(slotsLimit(), slotsUsed()))

    def sessionClosed(self, code: str) -> None:
        """
        Count a session closed for C{code}, one of L{SESSION_ENDINGS}.

        @raise ValueError: for any other word, so a new reason cannot
            slip an unbounded label in.
        """
        if code not in SESSION_ENDINGS:
            raise ValueError(f"{code!r} is not one of SESSION_ENDINGS")
        self.sessionsClosed.labels(code).inc()

    def refused(self, kind: str) -> None:
        """
        Count a tool call refused before it ran, for C{kind}, one of
        L{REFUSALS} (the audit's C{refused:} outcomes).

        @raise ValueError: for any other word.
        """
        if kind not in REFUSALS:
            raise ValueError(f"{kind!r} is not one of REFUSALS")
        self.callRefusals.labels(REFUSALS[kind]).inc()

    def responded(self, request: Request) -> None:
        """
        Count a finished HTTP response, and the gate's refusal it may be
        (L{gsmcpd.transport.bearer} marks one C{authRefused}).
        """
        code = request.code
        # Looked up once a status, as callSeries is: every response ends
        # here.
        counted = self._responses.get(code)
        if counted is None:
            counted = self._responses[code] = self.httpResponses.labels(
                f"{code // 100}xx")
        counted.inc()
        if getattr(request, "authRefused", False):
            self.authRefusals.labels(str(code)).inc()

    def callStarted(self, tool: str, clock: IReactorTime) -> "CallTimer":
        """
        A tool call began; answer its L{CallTimer}.
        """
        return CallTimer(self, tool, clock)

    def render(self) -> bytes:
        """
        The Prometheus text format, as bytes.
        """
        return generate_latest(self.registry)


def _free(limit: float | None, used: float) -> float:
    return float("inf") if limit is None else max(limit - used, 0)


class CallTimer:
    """
    One tool call in flight: counted in while it runs, timed when it ends.
    """

    def __init__(self, metrics: Metrics, tool: str,
                 clock: IReactorTime) -> None:
        self._metrics = metrics
        self._tool = tool
        self._clock = clock
        self._started = clock.seconds()
        self._done = False
        metrics.callsRunning += 1

    def finished(self, outcome: CallOutcome, step: str | None = None
                 ) -> None:
        """
        The call came to C{outcome}, after escalating as far as
        C{step} (C{soft}, C{hard} or C{replaced}: see
        L{gsmcpd.sessions.breaks}); a second call does nothing, so every
        path out may call it.
        """
        if self._done:
            return
        self._done = True
        metrics = self._metrics
        kind = outcome.kind if outcome.ended in (ERROR, TOOL_ERROR) \
            else None
        metrics.callsRunning -= 1
        seconds, calls = metrics.callSeries(self._tool, outcome.ended)
        seconds.observe(self._clock.seconds() - self._started)
        calls.inc()
        if kind is not None:
            metrics.gemstoneErrors.labels(kind).inc()
        for strength in ESCALATION.get(step, ()):
            metrics.breaks.labels(strength).inc()
        if step == "replaced":
            metrics.replacements.inc()
        ended = outcome.commit(self._tool)
        if ended is not None:
            metrics.commits.labels(ended).inc()

    def refused(self) -> None:
        """
        The call was refused after all (a L{REFUSALS} kind raised inside
        it): no longer in flight, and counted as a refusal only, not as a
        call.
        """
        if not self._done:
            self._done = True
            self._metrics.callsRunning -= 1


UNOBSERVED = Metrics("unobserved", processMetrics=False)
"""What an object counts into when nobody gave it the daemon's metrics
(a test, a tool harness): a registry nobody scrapes."""

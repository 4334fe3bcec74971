"""
The standalone server-to-client stream (C{GET /mcp}) as Server-Sent Events,
and the per-session outbox that feeds it.

A stream never blocks the reactor and never grows without bound: it is a
push producer on its connection, so when the client stops reading the
transport pauses it and messages wait in the session's outbox (bounded,
dropping the oldest, with a log line that admits the gap); a stream whose
writes stay paused past L{WRITE_BLOCKED_LIMIT} is dropped.
"""

import collections
import re
from collections.abc import Callable, Iterable

from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IDelayedCall, IPushProducer, IReactorTime
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.web.iweb import IRequest
from twisted.web.server import Request
from zope.interface import implementer

from gsmcpd.protocol.endpoint import IPostStream
from gsmcpd.protocol.jsonrpc import JsonObject, encode, progressTokenOf
from gsmcpd.sessions.outbox import Outbox

KEEPALIVE_INTERVAL = 15.0
"""Seconds between keepalive comments: sized to proxy and NAT idle timeouts."""
WRITE_BLOCKED_LIMIT = 5.0
"""Seconds a stream's writes may stay blocked before it is dropped."""


def eventBytes(message: JsonObject) -> bytes:
    """
    One JSON-RPC message as an SSE event.
    """
    return (b"event: message\ndata: "
            + encode(message)
            + b"\n\n")


@implementer(IPushProducer)
class EventStream:
    """
    One open C{text/event-stream} response.

    @ivar done: fires when the stream has ended, from either side; the
        route returns it, so the resource finishes the response when it
        fires and cancels it when the client goes away.
    @ivar generation: which of its session's streams this is; a newer GET
        supersedes it.
    @ivar endedBy: why it ended: C{"client"} (hung up), C{"slow"} (stopped
        reading), C{"superseded"} or C{"server"}; L{None} while open.
    @ivar sequence: its numbered events, kept for a client that resumes.
    """

    log = Logger()

    def __init__(self, request: Request, clock: IReactorTime, outbox: Outbox,
                 generation: int = 0,
                 onLost: Callable[["EventStream"], None] = lambda stream: None,
                 sequence: "EventSequence | None" = None,
                 replay: Iterable[bytes] = ()) -> None:
        self._request = request
        self._clock = clock
        self._outbox = outbox
        self.sequence = sequence or EventSequence(f"g{generation}", self)
        self._onLost = onLost
        self._paused = False
        self._blocked: IDelayedCall | None = None
        self.generation = generation
        self.endedBy: str | None = None
        self.done: Deferred[None] = Deferred(lambda _: self._closed("client"))
        request.notifyFinish().addBoth(lambda _: self._closed("client"))
        request.setHeader(b"content-type", b"text/event-stream")
        request.setHeader(b"cache-control", b"no-cache")
        request.registerProducer(self, True)
        request.write(b": stream open\n\n")
        for data in replay:
            request.write(data)
        self._keepalive = LoopingCall(self._writeIfReading, b": keepalive\n\n")
        self._keepalive.clock = clock
        self._keepalive.start(KEEPALIVE_INTERVAL, now=False)
        self.flush()

    @property
    def open(self) -> bool:
        return self.endedBy is None

    def flush(self) -> None:
        """
        Write what waits in the outbox, as far as the client is reading.
        """
        while self.open and not self._paused and len(self._outbox):
            self._request.write(self.sequence.frame(self._outbox.take()))

    def end(self, reason: str = "server") -> None:
        """
        End the stream from the server side.
        """
        self._closed(reason)

    # IPushProducer: the transport's backpressure.

    def pauseProducing(self) -> None:
        self._paused = True
        if self._blocked is None:
            self._blocked = self._clock.callLater(WRITE_BLOCKED_LIMIT,
                                                  self._tooSlow)

    def resumeProducing(self) -> None:
        self._paused = False
        if self._blocked is not None:
            self._blocked.cancel()
            self._blocked = None
        self.flush()

    def stopProducing(self) -> None:
        self._closed("client")

    def _tooSlow(self) -> None:
        self._blocked = None
        self.log.warn("dropping an event stream whose client has not read "
                      "for {limit} seconds", limit=WRITE_BLOCKED_LIMIT)
        transport = self._request.transport
        self._closed("slow")
        # A transport gone already ended the stream: this one is reading.
        assert transport is not None
        getattr(transport, "abortConnection", transport.loseConnection)()

    def _writeIfReading(self, data: bytes) -> None:
        if self.open and not self._paused:
            self._request.write(data)

    def _closed(self, reason: str) -> None:
        if not self.open:
            return
        self.endedBy = reason
        if self._keepalive.running:
            self._keepalive.stop()
        if self._blocked is not None:
            self._blocked.cancel()
            self._blocked = None
        if self._request.channel is not None:
            self._request.unregisterProducer()
        if reason in ("client", "slow"):
            self._onLost(self)
        if not self.done.called:
            self.done.callback(None)


PROGRESS_INTERVAL = 5.0
"""Seconds between elapsed-time reports on a long call that reports none of
its own, so clients that reset their timeout on progress keep waiting."""
REPLAY_LIMIT = 64
"""Events each stream keeps for a client that resumes with Last-Event-ID."""
RETRY_MILLISECONDS = 500
"""What a call's stream tells the client to wait before resuming it."""


class EventSequence:
    """
    One stream's numbered events, the last L{REPLAY_LIMIT} of them kept so
    a client that lost the connection can resume with C{Last-Event-ID}.

    @ivar key: names the stream within its session, e.g. C{c4} (the fourth
        call answered as a stream) or C{g2} (the second GET).
    @ivar owner: the stream object, so a resumption can find it.
    """

    def __init__(self, key: str,
                 owner: "EventStream | CallStream | None") -> None:
        self.key = key
        self.owner = owner
        self._next = 1
        self._kept: collections.deque[tuple[int, bytes]] = \
            collections.deque(maxlen=REPLAY_LIMIT)

    def frame(self, message: JsonObject) -> bytes:
        """
        C{message} as an event with this stream's next id, kept for replay.
        """
        data = (f"id: {self.key}:{self._next}\n".encode("ascii")
                + eventBytes(message))
        self._kept.append((self._next, data))
        self._next += 1
        return data

    def since(self, number: int) -> list[bytes]:
        """
        The kept events after event C{number}.
        """
        return [data for n, data in self._kept if n > number]

    def priming(self) -> bytes:
        """
        The event that opens a stream: an id and no data, and how long to
        wait before resuming, so a client can resume even a stream that has
        sent nothing yet.
        """
        return (f"id: {self.key}:0\nretry: {RETRY_MILLISECONDS}\n"
                f"data: \n\n").encode("ascii")


EVENT_NUMBER = re.compile("[0-9]{1,18}")
"""An event number as this server writes it: ASCII digits, well inside
what a client could have been sent."""


def parseEventId(text: str | None) -> tuple[str, int] | None:
    """
    C{(key, number)} from a C{Last-Event-ID}, or L{None}.
    """
    key, _, number = (text or "").partition(":")
    return (key, int(number)) if key and EVENT_NUMBER.fullmatch(number) \
        else None


def acceptsStream(request: IRequest) -> bool:
    """
    Whether the client accepts an event stream as its answer.
    """
    return b"text/event-stream" in (request.getHeader(b"accept") or b"")


def callStream(request: Request, clock: IReactorTime, key: str,
               params: JsonObject, prime: bool = False) -> "CallStream":
    """
    A L{CallStream} answering the call C{params} belong to: its events
    numbered under C{key}, progress reported to the token C{params} carry.
    """
    return CallStream(request, clock, EventSequence(key, None),
                      progressTokenOf(params), prime)


@implementer(IPostStream)
class CallStream:
    """
    A C{POST} answered as an event stream: what the call sends the client
    while it runs (progress, log messages, requests), then its response.

    The server may end the connection before the response (a client then
    resumes with C{GET} and C{Last-Event-ID}); the stream goes on buffering
    until the call is over.
    """

    def __init__(self, request: Request, clock: IReactorTime,
                 sequence: EventSequence, token: object = None,
                 prime: bool = False) -> None:
        self._request: Request | None = request
        self._clock = clock
        self._token = token
        self._started = clock.seconds()
        self.sequence = sequence
        sequence.owner = self
        self.finished = False
        self._resumed: Deferred[None] | None = None
        request.setHeader(b"content-type", b"text/event-stream")
        request.setHeader(b"cache-control", b"no-cache")
        if prime:
            request.write(sequence.priming())
        self._ticker = LoopingCall(self._elapsed)
        self._ticker.clock = clock
        self.wantsProgress = token is not None
        self._toolReports = False
        self._listen(request)

    def _listen(self, request: Request) -> None:
        """
        Send on C{request} until its client goes; the elapsed-time reports
        run only while someone listens.
        """
        self._request = request
        request.notifyFinish().addBoth(lambda _: self._detach(request))
        if self.wantsProgress and not self._toolReports and \
                not self._ticker.running:
            self._ticker.start(PROGRESS_INTERVAL, now=False)

    def post(self, message: JsonObject) -> None:
        """
        Send the client C{message} on this stream.
        """
        data = self.sequence.frame(message)
        if self._request is not None:
            self._request.write(data)

    def report(self, progress: float, total: float | None = None,
               message: str | None = None) -> None:
        """
        The tool's own progress; it replaces the elapsed-time reports, so
        the numbers a client sees only ever increase.
        """
        self._toolReports = True
        self._stopTicker()
        self._progress(progress, total, message)

    def _elapsed(self) -> None:
        elapsed = self._clock.seconds() - self._started
        self._progress(round(elapsed), None,
                       f"still running after {elapsed:.0f}s")

    def _progress(self, progress: float, total: float | None,
                  message: str | None) -> None:
        params: JsonObject = {"progressToken": self._token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self.post({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": params})

    def closeEarly(self) -> None:
        """
        End the connection now; the client resumes the stream with
        C{Last-Event-ID}.
        """
        if self._request is not None:
            request, self._request = self._request, None
            request.finish()

    def resume(self, request: Request, after: int) -> "Deferred[None]":
        """
        Continue this stream on C{request} (a C{GET} carrying
        C{Last-Event-ID}) from event C{after}.

        @return: a L{Deferred} firing when the stream is over.
        """
        self.closeEarly()
        request.setHeader(b"content-type", b"text/event-stream")
        request.setHeader(b"cache-control", b"no-cache")
        request.write(b": resumed\n\n")
        for data in self.sequence.since(after):
            request.write(data)
        if self.finished:
            return succeed(None)
        self._resumed = Deferred(lambda _: self._detach(request))
        self._listen(request)
        return self._resumed

    def _detach(self, request: Request) -> None:
        if self._request is request:
            self._request = None
            self._stopTicker()

    def finish(self, response: JsonObject | None) -> bytes | None:
        """
        Send the response, if any.

        @return: what the C{POST} route answers: C{b""} for the resource to
            end its response, or L{None} when that connection was already
            ended.
        """
        self._stopTicker()
        closedEarly = self._request is None or self._resumed is not None
        if response is not None:
            self.post(response)
        self.finished = True
        if self._resumed is not None and not self._resumed.called:
            self._request = None
            self._resumed.callback(None)
        return None if closedEarly else b""

    def _stopTicker(self) -> None:
        if self._ticker.running:
            self._ticker.stop()

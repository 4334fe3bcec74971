"""
The message trace (C{--trace-log}): every message a client sends and every
answer, one JSON object a line, for a support case where a client's UI
shows only the tool it called.

No header is ever traced (the C{Authorization} bearer token is one); in
the bodies, parsed or not, the values of password-, token- and
secret-like fields are redacted (L{gsmcpd.observe.redaction}), a
request's own bearer token is struck wherever it appears, and its
session's handle, in any form a header may carry it, is cut to the prefix
logs name it by.  The reactor thread only queues the bytes it has;
parsing, redaction, capping and writing happen on the trace's own thread,
and a full queue drops lines (counted in the next line written) rather
than wait.  A file that cannot be written loses lines, counted in
L{MessageTrace.lost}, and says so once in the daemon's log: the trace is
not the audit, nothing waits for it.  The file is rotated by size,
keeping a few, and reopened on C{SIGHUP}.
"""

import datetime
import errno
import json
import os
import queue
import threading
from collections.abc import Iterator
from enum import Enum
from typing import BinaryIO

from twisted.application.service import Service
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from gsmcpd.observe.redaction import (
    REDACTED,
    handleForms,
    prefixed,
    redacted,
    redactedText,
    struck,
)

QUEUE_LINES = 10_000
"""Messages waiting for the trace's thread before new ones are dropped."""
STOP_SECONDS = 5
"""How long a stopping daemon waits for the queued lines to be written."""


class _Signal(Enum):
    """What the trace's thread is told besides writes."""

    REOPEN = "reopen"
    STOP = "stop"

_Write = tuple[str, float, str | None, bytes, bool, str | None]
"""One queued write: direction, time, session, bytes, whether they are an
event stream's, and the request's bearer token."""


def capped(text: str, limit: int | None) -> str:
    """
    C{text}, or its first C{limit} characters and how many more there were:
    a long message cannot be mistaken for a lost one.
    """
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}...(+{len(text) - limit} more)"


def messagesOf(data: bytes, eventStream: bool) -> list[object]:
    """
    The JSON-RPC messages in one write of a body: the body itself, or the
    C{data:} of each event an event stream's write carries.  A body that is
    not JSON is kept as text.
    """
    texts = [data.decode("utf-8", "replace")]
    if eventStream:
        texts = [line[5:].strip() for line in texts[0].splitlines()
                 if line.startswith("data:") and line[5:].strip()]
    messages: list[object] = []
    for text in texts:
        try:
            messages.append(json.loads(text))
        except ValueError:
            messages.append(text)
    return messages


def _private(path: str) -> BinaryIO:
    """
    C{path} opened to append bytes, unbuffered (a line that fails is not
    kept to be written later), created readable by the daemon's user
    alone: it holds every argument every client sent.
    """
    return open(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600),
                "ab", buffering=0)


class RotatingFile:
    """
    A file of lines rotated by size: C{path} becomes C{path.1}, C{path.1}
    C{path.2}, and so on up to C{keep} old files.  Used only by the
    trace's thread.
    """

    def __init__(self, path: str, maxBytes: int, keep: int) -> None:
        self.path = path
        self.maxBytes = maxBytes
        self.keep = keep
        self._open()

    def _open(self) -> None:
        self._file = _private(self.path)
        self._size = os.fstat(self._file.fileno()).st_size
        self._torn = False

    def write(self, line: str) -> None:
        """
        Append C{line}; a line a full disk took only part of is ended
        before the next one.

        @raise OSError: the file did not take all of it.
        """
        data = line.encode("utf-8")
        if self._size and self._size + len(data) > self.maxBytes:
            self._rotate()
        rest = memoryview(b"\n" * self._torn + data)
        while rest:
            written = self._file.write(rest)
            if not written:
                raise OSError(errno.EIO, "the file took no bytes")
            self._size += written
            self._torn = rest[written - 1] != ord("\n")
            rest = rest[written:]

    def _rotate(self) -> None:
        for index in range(self.keep - 1, 0, -1):
            older = f"{self.path}.{index}"
            if os.path.exists(older):
                os.replace(older, f"{self.path}.{index + 1}")
        if self.keep:
            os.replace(self.path, f"{self.path}.1")
        else:
            os.remove(self.path)
        self.reopen()

    def reopen(self) -> None:
        """
        Open the path again (after logrotate moved the file away); one
        that cannot be opened keeps the file open.
        """
        old = self._file
        self._open()
        old.close()

    def close(self) -> None:
        self._file.close()


class MessageTrace(Service):
    """
    The trace: the transport hands it each message's bytes, and its own
    thread writes them.

    @param file: a L{RotatingFile}.
    @param clock: an C{IReactorTime}: each line's time.
    @param maxBody: characters of a body kept, or L{None} for all.
    @param threaded: whether L{startService} starts the thread (tests call
        L{drain} instead).
    """

    name = "trace"
    log = Logger()

    def __init__(self, file: RotatingFile, clock: IReactorTime,
                 maxBody: int | None = 4096, threaded: bool = True,
                 capacity: int = QUEUE_LINES) -> None:
        self.file = file
        self.clock = clock
        self.maxBody = maxBody
        self.threaded = threaded
        self.dropped = 0
        """Lines dropped for a full queue (counted on the reactor thread;
        the trace's thread keeps how many it has reported)."""
        self._reported = 0
        self.unwritten = 0
        """Lines the file did not take (counted on the trace's thread)."""
        self.failure: str | None = None
        """Why the file could not be written, until a write succeeds."""
        self._queue: queue.Queue[_Write | _Signal] = queue.Queue(capacity)
        self._thread: threading.Thread | None = None

    def startService(self) -> None:
        super().startService()
        self.log.info("message trace: ON, to {path}, bodies capped at "
                      "{cap} characters", path=self.file.path,
                      cap=self.maxBody or "no")
        if self.threaded:
            self._thread = threading.Thread(
                target=self._run, name="gsmcpd-trace", daemon=True)
            self._thread.start()

    def stopService(self) -> None:
        super().stopService()
        self._put(_Signal.STOP, force=True)
        if self._thread is None:
            self.drain()
        else:
            # Shutting down: what is queued is a second's work at most.
            self._thread.join(STOP_SECONDS)

    def reopen(self) -> None:
        """What C{SIGHUP} does: the thread reopens the file."""
        self._put(_Signal.REOPEN, force=True)
        if self._thread is None:
            self.drain()

    def received(self, session: str | None, data: bytes,
                 secret: str | None = None) -> None:
        """
        A message a client sent: C{data}, its body's bytes.

        @param session: the session handle it named, or L{None}.
        @param secret: the request's bearer token, struck from the line.
        """
        self._put(("in", self.clock.seconds(), session, data, False, secret))

    def answered(self, session: str | None, data: bytes, eventStream: bool,
                 secret: str | None = None) -> None:
        """One write of an answer's body (a whole body, or events)."""
        self._put(("out", self.clock.seconds(), session, data, eventStream,
                   secret))

    def _put(self, item: _Write | _Signal, force: bool = False) -> None:
        try:
            self._queue.put_nowait(item)
        except queue.Full:
            if not force:
                self.dropped += 1
                return
            # A reopen or stop must happen: make room for it.
            self._queue.get_nowait()
            self.dropped += 1
            self._queue.put_nowait(item)

    def drain(self) -> bool:
        """
        Write everything queued, on the calling thread; C{False} once the
        trace is stopped.
        """
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return True
            if not self._handle(item):
                return False

    def _run(self) -> None:
        while self._handle(self._queue.get()):
            pass

    @property
    def lost(self) -> int:
        """
        Lines lost since the daemon started: dropped for a full queue, or
        not taken by the file.
        """
        return self.dropped + self.unwritten

    def _handle(self, item: _Write | _Signal) -> bool:
        try:
            if item is _Signal.STOP:
                self.file.close()
                return False
            if item is _Signal.REOPEN:
                self.file.reopen()
                self._writable()
            else:
                for line in self.lines(*item):
                    self._write(line)
        except OSError as e:
            self.log.error("message trace: {path} cannot be reopened: "
                           "{why}", path=self.file.path, why=e.strerror)
        except Exception:
            self.log.failure("message trace: a message could not be traced")
        return True

    def _write(self, line: str) -> None:
        """
        Write one line, or count it lost: the first of a run of failures
        is logged, the rest only counted.
        """
        try:
            self.file.write(line)
        except OSError as e:
            self.unwritten += 1
            if self.failure is None:
                self.failure = e.strerror or str(e)
                self.log.critical(
                    "message trace: {path} cannot be written ({why}); its "
                    "lines are lost and counted (gsmcpd_trace_lines_lost_"
                    "total) until a write succeeds: free space, then send "
                    "SIGHUP", path=self.file.path, why=self.failure)
            return
        self._writable()

    def _writable(self) -> None:
        if self.failure is not None:
            self.failure = None
            self.log.info("message trace: {path} is written again",
                          path=self.file.path)

    def lines(self, direction: str, when: float, session: str | None,
              data: bytes, eventStream: bool,
              secret: str | None) -> Iterator[str]:
        """The lines one queued write makes."""
        total = self.dropped
        dropped, self._reported = total - self._reported, total
        stamp = datetime.datetime.fromtimestamp(
            when, datetime.UTC).isoformat(timespec="milliseconds")
        handle, forms = handleForms(session)
        for message in messagesOf(data, eventStream):
            fields: dict[str, object] = {"time": stamp, "session": prefixed(handle),
                      "direction": direction}
            if isinstance(message, dict):
                fields["method"] = message.get("method")
                fields["id"] = message.get("id")
            if isinstance(message, str):
                # Not JSON, or a JSON string: redacted by its text.
                body = redactedText(message)
            else:
                body = json.dumps(redacted(message), ensure_ascii=False,
                                  separators=(",", ":"))
            # Before the cap, which could leave a prefix of either.
            if secret:
                body = body.replace(secret, REDACTED)
            if handle is not None:
                body = struck(body, handle, forms)
            fields["bytes"] = len(data)
            fields["body"] = capped(body, self.maxBody)
            if dropped:
                fields["droppedBefore"] = dropped
                dropped = 0
            line = json.dumps(fields, ensure_ascii=False)
            if secret:
                line = line.replace(secret, REDACTED)
            yield line + "\n"

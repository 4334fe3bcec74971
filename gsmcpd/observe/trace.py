"""
The message trace (C{--trace-log}): every message a client sends and every
answer, one JSON object a line, for a support case where a client's UI
shows only the tool it called.

No header is ever traced (the C{Authorization} bearer token is one); in
the bodies, the values of password-, token- and secret-like fields are
redacted, a request's own bearer token is struck wherever it appears, and
its session's handle (a field named C{session} too) is cut to the prefix
logs name it by.  The reactor thread
only queues the bytes it has; parsing, redaction, capping and writing
happen on the trace's own thread, and a full queue drops lines (counted in
the next line written) rather than wait.  The file is rotated by size,
keeping a few, and reopened on C{SIGHUP}.
"""

import datetime
import json
import os
import queue
import re
import threading

from twisted.application.service import Service
from twisted.logger import Logger

REDACTED = "[redacted]"
SECRET_KEY = re.compile(
    r"pass(word|wd|phrase)?$|secret|(?<!progress)token$|^otp$|one.?time|"
    r"authorization|api.?key|credential|bearer", re.IGNORECASE)
"""Field names whose values are never traced."""
HANDLE_KEYS = frozenset({"session"})
"""Fields holding a session handle, traced as its prefix."""
HANDLE_PREFIX = 8
"""As L{gsmcpd.sessions.work.WorkSession.label}: not enough to use it."""
QUEUE_LINES = 10_000
"""Messages waiting for the trace's thread before new ones are dropped."""
STOP_SECONDS = 5
"""How long a stopping daemon waits for the queued lines to be written."""

_REOPEN, _STOP = object(), object()


def redacted(value):
    """
    C{value} with every password-like field's value replaced and every
    session handle cut to its prefix, at any depth.
    """
    if isinstance(value, dict):
        return {key: REDACTED if SECRET_KEY.search(key) and value[key]
                else _prefix(value[key]) if key in HANDLE_KEYS
                else redacted(value[key]) for key in value}
    if isinstance(value, list):
        return [redacted(each) for each in value]
    return value


def _prefix(handle):
    if isinstance(handle, str) and len(handle) > HANDLE_PREFIX:
        return handle[:HANDLE_PREFIX] + "…"
    return redacted(handle)


def capped(text, limit):
    """
    C{text}, or its first C{limit} characters and how many more there were:
    a long message cannot be mistaken for a lost one.
    """
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}...(+{len(text) - limit} more)"


def messagesOf(data, eventStream):
    """
    The JSON-RPC messages in one write of a body: the body itself, or the
    C{data:} of each event an event stream's write carries.  A body that is
    not JSON is kept as text.
    """
    texts = [data.decode("utf-8", "replace")]
    if eventStream:
        texts = [line[5:].strip() for line in texts[0].splitlines()
                 if line.startswith("data:") and line[5:].strip()]
    messages = []
    for text in texts:
        try:
            messages.append(json.loads(text))
        except ValueError:
            messages.append(text)
    return messages


def _private(path):
    """
    C{path} opened to append, created readable by the daemon's user alone:
    it holds every argument every client sent.
    """
    return open(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600),
                "a", encoding="utf-8")


class RotatingFile:
    """
    A file of lines rotated by size: C{path} becomes C{path.1}, C{path.1}
    C{path.2}, and so on up to C{keep} old files.  Used only by the
    trace's thread.
    """

    def __init__(self, path, maxBytes, keep):
        self.path = path
        self.maxBytes = maxBytes
        self.keep = keep
        self._file = _private(path)

    def write(self, line):
        size = self._file.tell()
        if size and size + len(line.encode("utf-8")) > self.maxBytes:
            self._rotate()
        self._file.write(line)
        self._file.flush()

    def _rotate(self):
        self._file.close()
        for index in range(self.keep - 1, 0, -1):
            older = f"{self.path}.{index}"
            if os.path.exists(older):
                os.replace(older, f"{self.path}.{index + 1}")
        if self.keep:
            os.replace(self.path, f"{self.path}.1")
        else:
            os.remove(self.path)
        self._file = _private(self.path)

    def reopen(self):
        """Open the path again (after logrotate moved the file away)."""
        opened = _private(self.path)
        self._file.close()
        self._file = opened

    def close(self):
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

    def __init__(self, file, clock, maxBody=4096, threaded=True,
                 capacity=QUEUE_LINES):
        self.file = file
        self.clock = clock
        self.maxBody = maxBody
        self.threaded = threaded
        self.dropped = 0
        """Lines dropped for a full queue (counted on the reactor thread;
        the trace's thread keeps how many it has reported)."""
        self._reported = 0
        self._queue = queue.Queue(capacity)
        self._thread = None

    def startService(self):
        super().startService()
        self.log.info("message trace: ON, to {path}, bodies capped at "
                      "{cap} characters", path=self.file.path,
                      cap=self.maxBody or "no")
        if self.threaded:
            self._thread = threading.Thread(
                target=self._run, name="gsmcpd-trace", daemon=True)
            self._thread.start()

    def stopService(self):
        super().stopService()
        self._put(_STOP, force=True)
        if self._thread is None:
            self.drain()
        else:
            # Shutting down: what is queued is a second's work at most.
            self._thread.join(STOP_SECONDS)

    def reopen(self):
        """What C{SIGHUP} does: the thread reopens the file."""
        self._put(_REOPEN, force=True)
        if self._thread is None:
            self.drain()

    def received(self, session, data, secret=None):
        """
        A message a client sent: C{data}, its body's bytes.

        @param session: the session handle it named, or L{None}.
        @param secret: the request's bearer token, struck from the line.
        """
        self._put(("in", self.clock.seconds(), session, data, False, secret))

    def answered(self, session, data, eventStream, secret=None):
        """One write of an answer's body (a whole body, or events)."""
        self._put(("out", self.clock.seconds(), session, data, eventStream,
                   secret))

    def _put(self, item, force=False):
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

    def drain(self):
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

    def _run(self):
        while self._handle(self._queue.get()):
            pass

    def _handle(self, item):
        try:
            if item is _STOP:
                self.file.close()
                return False
            if item is _REOPEN:
                self.file.reopen()
            else:
                for line in self.lines(*item):
                    self.file.write(line)
        except Exception:
            self.log.failure("message trace: a line could not be written")
        return True

    def lines(self, direction, when, session, data, eventStream, secret):
        """The lines one queued write makes."""
        total = self.dropped
        dropped, self._reported = total - self._reported, total
        stamp = datetime.datetime.fromtimestamp(
            when, datetime.timezone.utc).isoformat(timespec="milliseconds")
        for message in messagesOf(data, eventStream):
            fields = {"time": stamp, "session": _prefix(session),
                      "direction": direction}
            if isinstance(message, dict):
                fields["method"] = message.get("method")
                fields["id"] = message.get("id")
                message = redacted(message)
            body = message if isinstance(message, str) else json.dumps(
                message, ensure_ascii=False, separators=(",", ":"))
            # Before the cap, which could leave a prefix of either.
            if secret:
                body = body.replace(secret, REDACTED)
            if session:
                body = body.replace(session, _prefix(session))
            fields["bytes"] = len(data)
            fields["body"] = capped(body, self.maxBody)
            if dropped:
                fields["droppedBefore"] = dropped
                dropped = 0
            line = json.dumps(fields, ensure_ascii=False)
            if secret:
                line = line.replace(secret, REDACTED)
            yield line + "\n"

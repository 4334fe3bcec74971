"""
The audit trail as a hash chain: each line carries the digest of the line
before it (its bytes, without the newline), so a line removed, inserted or
edited breaks the chain at the line after it, and L{verify} says where.
With a key (C{--audit-key-file}) the digest is an HMAC-SHA256
(C{previousHmacSha256}): whoever edits a line without the key cannot
compute the digests after it again.

Each file of a trail starts with its I{head}: an C{auditOpened} line
naming the file's number in the trail and the last line of the file
before it, or, in the first file, L{GENESIS}.  A file cut at its head
starts with anything else, and a trail whose first files were removed
starts with a head that is not a genesis: L{verify} refuses both.  The
first line written after the file is opened names the file's last line;
in an empty file, the last line written before it (after a logrotate
rename, that line is in the rotated file, so the two files verify as one
chain in order).  Lines cut from the end of the newest file leave no
break: compare the last line's digest, which L{verify} answers, with one
kept elsewhere.  A line a full disk took only part of stays a line of its
own: the next line written starts on a new line and names it, and
L{verify} points at it.

Each line holds the event's own fields and nothing of Twisted's: C{time},
C{event}, C{message}, the fields its kind documents, and the digest.
"""

import datetime
import errno
import hashlib
import hmac
import json
import os
from collections.abc import Iterable
from typing import IO, Any

from twisted.logger import ILogObserver, LogEvent, formatEvent
from zope.interface import implementer

PREVIOUS_KEY = "previousSha256"
KEYED_PREVIOUS_KEY = "previousHmacSha256"
GENESIS = hashlib.sha256(b"").hexdigest()
"""What the first line of a trail names: the SHA-256 of no bytes."""
HEAD_EVENT, FILE_KEY = "auditOpened", "file"
_TAIL_CHUNK = 8192

Record = dict[str, Any]
"""A line's JSON object."""


def lineDigest(line: bytes, key: bytes | None = None) -> str:
    """
    The digest of one line's bytes, without its newline: SHA-256, or its
    HMAC under C{key} (bytes).
    """
    if key is None:
        return hashlib.sha256(line).hexdigest()
    return hmac.new(key, line, hashlib.sha256).hexdigest()


def previousKey(key: bytes | None) -> str:
    """The field a line names the one before it by, with C{key} or not."""
    return PREVIOUS_KEY if key is None else KEYED_PREVIOUS_KEY


def lastLine(file: IO[bytes]) -> bytes | None:
    """
    The last line of binary C{file} (without its newline), or L{None} for
    an empty file; read backwards from the end, not the whole file.
    """
    end = file.seek(0, os.SEEK_END)
    tail = b""
    position = end
    while position > 0:
        start = max(0, position - _TAIL_CHUNK)
        file.seek(start)
        tail = file.read(position - start) + tail
        position = start
        body = tail[:-1] if tail.endswith(b"\n") else tail
        if b"\n" in body:
            return body.rsplit(b"\n", 1)[1]
    if not tail:
        return None
    return tail[:-1] if tail.endswith(b"\n") else tail


def _record(line: bytes) -> Record | None:
    """A line's JSON object, or L{None} for any other line."""
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def fileNumber(record: Record | None) -> int | None:
    """
    The number a head line (its JSON object) gives its file, or L{None}
    for any other line.
    """
    if record is None or record.get("event") != HEAD_EVENT:
        return None
    number = record.get(FILE_KEY)
    return number if type(number) is int else None


class OtherChain(ValueError):
    """
    A trail chained with a key, appended to without one, or the other way
    round: its lines would not verify either way.
    """


def chainStart(path: str, key: bytes | None = None
               ) -> tuple[str, bool, int | None] | None:
    """
    Where a line appended to C{path} starts.

    @return: L{None} for an empty file; else the digest the line names
        (the last line's), whether the file ends in part of a line (a
        write cut short by a full disk, which the line must not be
        appended to), and the number the file's head gives it (L{None}
        when its first line is not a head).
    @raise OtherChain: the file's first line is chained the other way.
    """
    with open(path, "rb") as file:
        line = lastLine(file)
        if line is None:
            return None
        file.seek(-1, os.SEEK_END)
        torn = file.read(1) != b"\n"
        file.seek(0)
        head = _record(file.readline())
    if head is not None and previousKey(key) not in head and \
            previousKey(None if key else b"") in head:
        raise OtherChain(
            f"{path} is a trail chained {'without' if key else 'with'} a "
            f"key: {'rotate it away first' if key else 'give its key'} "
            "(--audit-key-file)")
    return lineDigest(line, key), torn, fileNumber(head)


def auditRecord(event: LogEvent) -> Record:
    """
    The fields an audit event's line holds: its time, kind and message,
    then its own fields, none of Twisted's (C{log_*}).
    """
    record = {"time": datetime.datetime.fromtimestamp(
        event["log_time"], datetime.UTC).isoformat(
            timespec="milliseconds"),
        "event": event.get("event"), "message": formatEvent(event)}
    record.update((name, value) for name, value in event.items()
                  if not name.startswith("log_") and name not in record)
    return record


@implementer(ILogObserver)
class ChainedJsonObserver:
    """
    Writes each event as one JSON line to binary C{file}, and flushes it,
    carrying the digest of the line before it.

    A write or flush that fails raises its L{OSError} (whoever owns the
    file decides what that means: L{gsmcpd.observe.auditfile}), and the
    chain does not move on: the next line written names the same line
    before it.

    @ivar previous: the digest of the last line written (or the chain's
        start), which the next line names.
    @ivar torn: the file ends in part of a line, which the next line
        must not be appended to.
    @ivar key: the HMAC key (bytes), or L{None} for SHA-256.
    """

    def __init__(self, file: IO[bytes], previous: str = GENESIS,
                 torn: bool = False, key: bytes | None = None) -> None:
        self.file = file
        self.previous = previous
        self.torn = torn
        self.key = key

    def __call__(self, event: LogEvent) -> None:
        record = auditRecord(event)
        record[previousKey(self.key)] = self.previous
        line = json.dumps(record, ensure_ascii=False,
                          default=str).encode("utf-8")
        # An unbuffered file may take part of a line (a disk filling up):
        # the rest is written, or its failure raised.
        rest = memoryview(b"\n" * self.torn + line + b"\n")
        while rest:
            written = self.file.write(rest)
            if not written:
                raise OSError(errno.EIO, "the file took no bytes")
            rest = rest[written:]
        self.file.flush()
        self.previous, self.torn = lineDigest(line, self.key), False


def verify(paths: Iterable[str], key: bytes | None = None,
           continues: str | None = None) -> tuple[str | None, str | None]:
    """
    Check the chain through the lines of C{paths}, in order, as one trail:
    each file starts with its head, the first a genesis (or, given
    C{continues}, the head naming that digest), each other one continuing
    the file given before it.

    @param key: the HMAC key (bytes) the trail was written with, or
        L{None}.
    @return: L{None} and the last line's digest when it holds, else a
        sentence naming the first line that breaks it (its file and
        number, from 1) and L{None}.
    """
    named = previousKey(key)
    previous: str | None = None
    number: int | None = None
    for path in paths:
        index = 0
        with open(path, "rb") as file:
            for index, line in enumerate(file, 1):
                line = line.rstrip(b"\n")
                record = _record(line)
                broken = _unchained(record, named, previous)
                if broken is None and index == 1 and record is not None:
                    broken, number = _unheaded(
                        record, named, number, continues)
                if broken is not None:
                    return f"{path}:{index}: {broken}", None
                previous = lineDigest(line, key)
        if not index:
            return f"{path}: empty, not a file of an audit trail", None
    return None, previous


def _unchained(record: Record | None, named: str,
               previous: str | None) -> str | None:
    """
    Why a line (its JSON object) does not follow the line hashing to
    C{previous}, or L{None}.
    """
    if record is None or named not in record:
        if named == PREVIOUS_KEY and KEYED_PREVIOUS_KEY in (record or {}):
            return (f"carries {KEYED_PREVIOUS_KEY}: give the trail's key "
                    "(--audit-key-file)")
        if named == KEYED_PREVIOUS_KEY and PREVIOUS_KEY in (record or {}):
            return f"carries {PREVIOUS_KEY}: this trail has no key"
        return f"not an audit line carrying {named}"
    if previous is not None and record[named] != previous:
        return (f"breaks the chain: it names {record[named]}, the line "
                f"before it hashes to {previous}")
    return None


def _unheaded(record: Record, named: str, before: int | None,
              continues: str | None) -> tuple[str | None, int | None]:
    """
    Why a file's first line (its JSON object) is not the head the file
    needs after a file whose head gave it number C{before} (L{None}: the
    first file given), or L{None}; and the number it gives its file.
    """
    number, digest = fileNumber(record), record[named]
    if number is None:
        return ("not the head of a trail file (an auditOpened line naming "
                "its file's number): cut at its head?"), None
    if before is not None:
        if number != before + 1:
            return (f"the head of file {number} of its trail, given after "
                    f"file {before}"), None
    elif continues is not None:
        if digest != continues:
            return (f"the head of file {number} of its trail continues "
                    f"{digest}, not {continues}"), None
    elif number != 1 or digest != GENESIS:
        return (f"the head of file {number} of its trail, continuing "
                f"{digest}: not the start of a trail; give the files "
                "before it (oldest first), or --continues DIGEST"), None
    return None, number

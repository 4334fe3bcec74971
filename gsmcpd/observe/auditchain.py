"""
The audit trail as a hash chain: each line carries the SHA-256 of the line
before it (its bytes, without the newline), so a line removed, inserted or
edited breaks the chain at the line after it, and L{verify} says where.

The first line written after the file is opened names the file's last
line; in an empty file, the last line written before it (after a
logrotate rename, that line is in the rotated file, so the two files
verify as one chain in order); in the first file of a trail, L{NOTHING},
the SHA-256 of no bytes.  Lines cut from the end of the newest file leave
no break: compare the last line's digest with one kept elsewhere.  A line
a full disk took only part of stays a line of its own: the next line
written starts on a new line and names it, and L{verify} points at it.
"""

import errno
import hashlib
import json
import os

from twisted.logger import ILogObserver, eventAsJSON
from zope.interface import implementer

PREVIOUS_KEY = "previousSha256"
NOTHING = hashlib.sha256(b"").hexdigest()
_TAIL_CHUNK = 8192


def lineDigest(line):
    """
    The SHA-256 of one line's bytes, without its newline.
    """
    return hashlib.sha256(line).hexdigest()


def lastLine(file):
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


def chainStart(path, before=NOTHING):
    """
    Where a line appended to C{path} starts: the digest it names (the last
    line's, or C{before} when the file has none), and whether the file
    ends in part of a line (a write cut short by a full disk), which the
    line must not be appended to.
    """
    with open(path, "rb") as file:
        line = lastLine(file)
        if line is None:
            return before, False
        file.seek(-1, os.SEEK_END)
        return lineDigest(line), file.read(1) != b"\n"


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
    """

    def __init__(self, file, previous=NOTHING, torn=False):
        self.file = file
        self.previous = previous
        self.torn = torn

    def __call__(self, event):
        line = eventAsJSON(
            dict(event, **{PREVIOUS_KEY: self.previous})).encode("utf-8")
        # An unbuffered file may take part of a line (a disk filling up):
        # the rest is written, or its failure raised.
        rest = memoryview(b"\n" * self.torn + line + b"\n")
        while rest:
            written = self.file.write(rest)
            if not written:
                raise OSError(errno.EIO, "the file took no bytes")
            rest = rest[written:]
        self.file.flush()
        self.previous, self.torn = lineDigest(line), False


def verify(paths):
    """
    Check the chain through the lines of C{paths}, in order, as one trail.

    @return: L{None} when it holds, else a sentence naming the first line
        that breaks it (its file and number, from 1).
    """
    previous = None
    for path in paths:
        with open(path, "rb") as file:
            for number, line in enumerate(file, 1):
                line = line.rstrip(b"\n")
                try:
                    named = json.loads(line)[PREVIOUS_KEY]
                except (ValueError, KeyError, TypeError):
                    return (f"{path}:{number}: not an audit line carrying "
                            f"{PREVIOUS_KEY}")
                if previous is not None and named != previous:
                    return (f"{path}:{number}: breaks the chain: it names "
                            f"{named}, the line before it hashes to "
                            f"{previous}")
                previous = lineDigest(line)
    return None

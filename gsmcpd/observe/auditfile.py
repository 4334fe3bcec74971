"""
The audit trail's file (C{--audit-log}), which knows whether it can be
written.

Each line is written and flushed as it is made; there is no C{fsync},
which would hold the reactor thread on the disk.  A write or flush that
fails (a full disk, an I/O error, a file gone bad) never reaches whoever
logged the event: the file is I{failed} from then on and holds the
reason, the daemon's log says so in one critical line, and each event the
file does not get goes to the daemon's log instead.  The call path asks
the trail before a call runs (L{gsmcpd.observe.audit.AuditLog.admit}), so
while it is failed nothing runs unaudited.

Each time the file is opened, at start and on each C{SIGHUP}, an
C{auditOpened} line is written and flushed before any other, in the hash
chain like every line: a file that cannot take it (C{/dev/full}) is failed
before the first call.  In an empty file it is the file's head
(L{gsmcpd.observe.auditchain}): it names the file's number, one more than
the file before it (the one this daemon wrote to last or, at start, the
logrotated C{PATH.1}), and that file's last line; with none, it starts a
trail (file 1, the genesis).  A reopen whose line is written clears the failed
state, and its line counts the events the file missed; a reopen that fails
keeps the file and the state as they were.
"""

import errno
from collections.abc import Callable
from typing import IO

from twisted.logger import ILogObserver, LogEvent, Logger, LogLevel
from zope.interface import implementer

from gsmcpd.observe.auditchain import (
    GENESIS,
    ChainedJsonObserver,
    OtherChain,
    chainStart,
)

AUDIT_NAMESPACE = "gsmcpd.audit"


def appending(path: str) -> IO[bytes]:
    """
    C{path} opened for appending bytes, unbuffered: a line is on its way
    to the disk when C{write} returns, and a failed one leaves nothing
    behind in memory to be written later out of order.
    """
    return open(path, "ab", buffering=0)


def described(error: Exception) -> str:
    """
    An L{OSError} (or an L{OtherChain}) as an operator reads it: its text
    and its C{errno} name.
    """
    number = getattr(error, "errno", None)
    name = None if number is None else errno.errorcode.get(number)
    text = getattr(error, "strerror", None) or str(error)
    return f"{text} ({name})" if name else text


@implementer(ILogObserver)
class AuditFile:
    """
    The audit trail's file: an observer of audit events that writes each
    as a chained line, or knows why it cannot.

    @ivar path: the file's path, which a reopen opens again.
    @ivar failure: why the file cannot be written (its path and the OS
        error), or L{None} while it can.
    @ivar unwritten: the events the file did not get since the daemon
        started.
    @ivar log: the daemon's log, where the failure and the events the file
        did not get go.
    @ivar number: the file's number in its trail.
    """

    log = Logger()

    def __init__(self, path: str,
                 opener: Callable[[str], IO[bytes]] = appending,
                 key: bytes | None = None) -> None:
        """
        Open C{path} and write its C{auditOpened} line.

        @param opener: opens a path for appending bytes (L{appending}).
        @param key: the chain's HMAC key (bytes), or L{None} for SHA-256.
        @raise OSError: the file cannot be opened or read at all (a
            setting to mend before the daemon starts); one that opens but
            cannot take the line is failed instead.
        @raise OtherChain: its lines are chained the other way (with a key
            or without).
        """
        self.path = path
        self.failure: str | None = None
        self.unwritten = 0
        self._missed = 0
        self._opener = opener
        self._key = key
        self._file = opener(path)
        try:
            self._chain = self._continuing(
                self._file, lambda: _rotated(f"{path}.1", key))
        except (OSError, OtherChain):
            self._file.close()
            raise
        try:
            self._opened(self._chain, "start")
        except OSError as e:
            self._failed(e)

    def _continuing(self, file: IO[bytes],
                    before: Callable[[], tuple[str, int]]
                    ) -> ChainedJsonObserver:
        """
        The chain of C{file}, just opened: it continues the file's last
        line, or in an empty file, the file C{before} answers (its last
        line's digest and its number).
        """
        start = chainStart(self.path, self._key)
        if start is None:
            previous, number = before()
            self.number = number + 1
            return ChainedJsonObserver(file, previous, False, key=self._key)
        previous, torn, head = start
        self.number = head or 1
        return ChainedJsonObserver(file, previous, torn, key=self._key)

    def __call__(self, event: LogEvent) -> None:
        if self.failure is None:
            try:
                self._chain(event)
                return
            except OSError as e:
                self._failed(e)
        self.unwritten += 1
        self._missed += 1
        self.log.observer(dict(event, log_level=LogLevel.warn,
                               auditUnwritten=self.path))

    def _opened(self, chain: ChainedJsonObserver, cause: str) -> None:
        """
        Write the line that opens the file, through C{chain}.

        @raise OSError: it could not be written.
        """
        Logger(namespace=AUDIT_NAMESPACE, observer=chain).info(
            "audit trail opened ({cause}); {unwritten} events were not "
            "written to it before", event="auditOpened", cause=cause,
            unwritten=self._missed, file=self.number)

    def _failed(self, error: Exception) -> None:
        self.failure = f"{self.path}: {described(error)}"
        self.log.critical(
            "the audit trail cannot be written ({reason}): no tool call "
            "runs until it can; free space or mend the file, then send "
            "SIGHUP (systemctl reload gsmcpd)", reason=self.failure)

    def reopen(self) -> None:
        """
        Open the file again by its path (after logrotate moved it away, or
        after the operator freed space) and write its C{auditOpened} line:
        events go to the new file from then on, and a failed trail is
        written again.  Otherwise the old file and the state are kept.
        """
        file: IO[bytes] | None = None
        number = self.number
        try:
            file = self._opener(self.path)
            chain = self._continuing(
                file, lambda: (self._chain.previous, number))
            self._opened(chain, "reopen")
        except (OSError, OtherChain) as e:
            self.number = number
            if file is not None:
                _close(file)
            self.log.error(
                "audit trail {path} cannot be reopened ({why}); {kept}",
                path=self.path, why=described(e),
                kept="it stays failed" if self.failure else
                "still writing to the file open")
            return
        _close(self._file)
        self._file, self._chain, self._missed = file, chain, 0
        if self.failure is not None:
            self.log.info("the audit trail is written again after SIGHUP "
                          "({path})", path=self.path)
            self.failure = None

    def close(self) -> None:
        _close(self._file)


def _rotated(path: str, key: bytes | None) -> tuple[str, int]:
    """
    What an empty file at start continues: logrotate's C{path} (its last
    line's digest and its number), or, with none or one chained the other
    way (a key given or dropped since), the genesis of a new trail.
    """
    try:
        start = chainStart(path, key)
    except (FileNotFoundError, OtherChain):
        start = None
    return (GENESIS, 0) if start is None else (start[0], start[2] or 1)


def _close(file: IO[bytes]) -> None:
    """
    Close a file whose failure was already told, or does not matter now.
    """
    try:
        file.close()
    except OSError:
        pass

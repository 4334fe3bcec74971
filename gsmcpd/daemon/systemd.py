"""
Telling systemd how the daemon is doing (C{Type=notify}).

The protocol is one datagram of C{KEY=value} lines to the socket named by
C{$NOTIFY_SOCKET} (an C{@} starts an abstract-namespace name).  Twisted has
no helper for it, and a datagram to a local socket never blocks long
enough to matter, so it is sent from the reactor thread.  Without
C{$NOTIFY_SOCKET} (not under systemd) every call does nothing.
"""

import os
import socket
from collections.abc import Mapping

from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.logger import Logger


class SystemdNotifier:
    """
    The daemon's side of C{sd_notify}.

    @ivar address: where datagrams go, or L{None} when not under systemd.
    """

    log = Logger()

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        environ = os.environ if environ is None else environ
        self.address = _address(environ.get("NOTIFY_SOCKET"))
        self._watchdogSeconds = _watchdogSeconds(environ)
        self._watchdog: LoopingCall | None = None

    def notify(self, **fields: object) -> bool:
        """
        Send one datagram of C{KEY=value} lines, e.g. C{notify(READY=1)}.

        @return: whether a datagram was sent.
        """
        if self.address is None:
            return False
        message = "\n".join(f"{key}={value}" for key, value in fields.items())
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.sendto(message.encode("utf-8"), self.address)
        except OSError as e:
            self.log.warn("cannot notify systemd ({error})", error=e)
            return False
        return True

    def ready(self, status: str) -> bool:
        """
        Serving: systemd starts units ordered after this one.
        """
        return self.notify(READY=1, STATUS=status)

    def stopping(self, status: str) -> bool:
        return self.notify(STOPPING=1, STATUS=status)

    def status(self, status: str) -> bool:
        return self.notify(STATUS=status)

    def startWatchdog(self, clock: IReactorTime) -> None:
        """
        Ping systemd's watchdog at half of C{WatchdogSec=} from the reactor,
        so a reactor that stops turning gets the daemon restarted.
        """
        if self.address is None or self._watchdogSeconds is None:
            return
        self._watchdog = LoopingCall(self.notify, WATCHDOG=1)
        self._watchdog.clock = clock
        self._watchdog.start(self._watchdogSeconds / 2, now=True)

    def stopWatchdog(self) -> None:
        if self._watchdog is not None and self._watchdog.running:
            self._watchdog.stop()


def _address(name: str | None) -> str | None:
    if not name:
        return None
    if name.startswith("@"):
        return "\0" + name[1:]
    return name


def _watchdogSeconds(environ: Mapping[str, str]) -> float | None:
    """
    C{WatchdogSec=} in seconds, when it applies to this process.
    """
    usec = environ.get("WATCHDOG_USEC")
    pid = environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 1_000_000
    except ValueError:
        return None

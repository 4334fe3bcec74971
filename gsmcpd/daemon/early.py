"""
The process's first instant, before the daemon is imported: C{SIGHUP} held,
and C{malloc}'s arenas capped.

Importing the daemon takes a second or more, and its stone seconds more
before L{gsmcpd.daemon.hangup.Hangup} starts; until then C{SIGHUP}'s
default would end the process (C{systemctl reload}, logrotate's
postrotate).  This module imports nothing of the daemon's, so the C{gsmcpd}
console script (and twistd, as it picks the plugin) calls L{begin} before
anything heavy is imported, and before any thread is started.
"""

import ctypes
import os
import signal
from collections.abc import Callable, Mapping
from typing import Any

M_ARENA_MAX = -8
"""glibc's C{mallopt} parameter for the most arenas C{malloc} keeps."""
ARENAS = 2
"""How many: each GemStone session's thread would otherwise get an arena of
its own (up to eight per core), and what a burst of sessions freed there
stayed: after five bursts of 200 sessions, all closed, the RSS had grown by
5 to 9 MB more than after the first with glibc's default (16 arenas on two
cores), by 0 to 5 MB with two."""


class Arrivals:
    """
    The C{SIGHUP}s that arrived before L{gsmcpd.daemon.hangup.Hangup} could
    act on them.  A process has one disposition for a signal, so one of
    these, L{STARTING}, serves the process.
    """

    def __init__(self) -> None:
        self.count = 0

    def arrived(self, *_: object) -> None:
        # A signal handler: the main thread between two bytecodes; logging
        # here could interleave with a line being written.
        self.count += 1

    def take(self) -> int:
        """
        How many arrived since the last call.
        """
        count, self.count = self.count, 0
        return count


STARTING = Arrivals()


def holdHangups(install: Callable[[int, Any], object] = signal.signal,
                arrivals: Arrivals = STARTING) -> None:
    """
    From now until L{gsmcpd.daemon.hangup.Hangup} starts, a C{SIGHUP} is
    counted in C{arrivals} rather than ending the process.
    """
    install(signal.SIGHUP, arrivals.arrived)


def capArenas(environ: Mapping[str, str] = os.environ,
              libc: ctypes.CDLL | None = None) -> bool:
    """
    Cap C{malloc}'s arenas at L{ARENAS}, unless C{MALLOC_ARENA_MAX} says
    how many (glibc reads it itself); nothing where C{malloc} is not
    glibc's.

    @param libc: the C library (default: the process's own).
    @return: whether the cap was set.
    """
    if "MALLOC_ARENA_MAX" in environ:
        return False
    try:
        mallopt = (libc or ctypes.CDLL(None)).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, ARENAS))


def begin() -> None:
    """
    What the process does first: L{holdHangups} and L{capArenas}.
    """
    holdHangups()
    capArenas()


def run() -> None:
    """
    The C{gsmcpd} console script: L{begin}, then the command.
    """
    begin()
    from gsmcpd.daemon.cli import run
    run()

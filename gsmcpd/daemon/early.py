"""
The process's first instant: C{SIGHUP} held before the daemon is imported.

Importing the daemon takes a second or more, and its stone seconds more
before L{gsmcpd.daemon.hangup.Hangup} starts; until then C{SIGHUP}'s
default would end the process (C{systemctl reload}, logrotate's
postrotate).  This module imports nothing of the daemon's, so the C{gsmcpd}
console script holds C{SIGHUP} before it imports anything heavy.
"""

import signal


class Arrivals:
    """
    The C{SIGHUP}s that arrived before L{gsmcpd.daemon.hangup.Hangup} could
    act on them.  A process has one disposition for a signal, so one of
    these, L{STARTING}, serves the process.
    """

    def __init__(self):
        self.count = 0

    def arrived(self, *_):
        # A signal handler: the main thread between two bytecodes; logging
        # here could interleave with a line being written.
        self.count += 1

    def take(self):
        """
        How many arrived since the last call.
        """
        count, self.count = self.count, 0
        return count


STARTING = Arrivals()


def holdHangups(install=signal.signal, arrivals=STARTING):
    """
    From now until L{gsmcpd.daemon.hangup.Hangup} starts, a C{SIGHUP} is
    counted in C{arrivals} rather than ending the process.
    """
    install(signal.SIGHUP, arrivals.arrived)


def run():
    """
    The C{gsmcpd} console script: C{SIGHUP} held, then the command.
    """
    holdHangups()
    from gsmcpd.daemon.cli import run
    run()

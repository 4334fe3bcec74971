"""
Refusing to start: one line that names the setting or the cause, and a
non-zero exit status, so systemd's C{Restart=on-failure} retries a daemon
that came up before its stone.

Refusals after option parsing (a failed login, a port in use) happen with
the reactor running; the service records them here and stops the reactor,
and whoever ran the reactor (C{gsmcpd serve}, or the twistd plugin's
shutdown hook) turns the record into the exit status.
"""

from twisted.logger import Logger

EXIT_REFUSED = 1

log = Logger(namespace="gsmcpd")


class Refusals:
    """
    What became of one run: L{None} while nothing was refused.
    """

    def __init__(self):
        self.why = None

    def refuse(self, reactor, why):
        """
        Log C{why} as the one line, remember it, and stop the reactor.
        """
        if self.why is None:
            self.why = str(why)
            log.critical("gsmcpd: refusing to start: {why}", why=self.why)
        if reactor.running:
            reactor.stop()

    @property
    def exitStatus(self):
        return 0 if self.why is None else EXIT_REFUSED


REFUSALS = Refusals()
"""This process's record: one daemon per process."""

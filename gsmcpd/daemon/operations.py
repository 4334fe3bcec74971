"""
The daemon's side of being operated: systemd's notifications, the health a
load balancer reads, and the drain before a stop.

It is one service of the tree, started with the listening port and stopped
before it: on stop it turns C{/healthz} to 503 and tells systemd
C{STOPPING=1}, then keeps serving for the drain grace, so a load balancer
stops sending new sessions before the port closes.
"""

from twisted.application.service import Service
from twisted.internet.task import LoopingCall, deferLater
from twisted.logger import Logger

STATUS_INTERVAL = 10.0
"""Seconds between C{STATUS=} updates (the session count)."""


class OperationsService(Service):
    """
    @param health: the L{gsmcpd.daemon.admin.Health} C{/healthz} reads.
    @param notifier: the L{gsmcpd.daemon.systemd.SystemdNotifier}.
    @param whenServing: answers a L{Deferred} firing once the stone has
        answered and the port is open (failing if the daemon refused).
    @param drainGrace: seconds between being told to stop and closing the
        port.
    """

    name = "operations"
    log = Logger()

    def __init__(self, health, notifier, whenServing, drainGrace, clock):
        self.health = health
        self.notifier = notifier
        self._whenServing = whenServing
        self.drainGrace = drainGrace
        self._clock = clock
        self._status = LoopingCall(self._reportStatus)
        self._status.clock = clock

    def startService(self):
        super().startService()
        self._whenServing().addCallbacks(self._serving, lambda _: None)

    def _serving(self, port):
        if not self.running:
            return
        self.health.serving = True
        self.notifier.ready(self.health.summary())
        self.notifier.startWatchdog(self._clock)
        self._status.start(STATUS_INTERVAL, now=False)

    def _reportStatus(self):
        self.notifier.status(self.health.summary())

    def stopService(self):
        super().stopService()
        if self._status.running:
            self._status.stop()
        self.health.stopping = True
        self.notifier.stopping(
            f"draining for {self.drainGrace:g}s, then logging "
            f"{self.health.sessionCount()} sessions out")
        self.notifier.stopWatchdog()
        if self.drainGrace > 0 and self.health.serving:
            self.log.info("draining: no new sessions for {grace:g}s, then "
                          "stopping", grace=self.drainGrace)
            return deferLater(self._clock, self.drainGrace, lambda: None)
        return None

"""
C{SIGHUP}: reload what can be reloaded, and never stop.

Python's default for C{SIGHUP} ends the process, so a daemon without a
handler for it died at once on C{systemctl reload} or a stray
C{kill -HUP}.  This handler is installed whatever the settings: it reads
the TLS certificate and key again when the port is C{ssl:}, and reopens the
audit file and the message trace's when there are (after logrotate moved
them away).  Reopening is also how a failed audit trail recovers, once the
operator has freed space or mended the file
(L{gsmcpd.observe.auditfile}).

The service starts only once the stone has answered, seconds after the
process did; until then L{gsmcpd.daemon.early.holdHangups}, called as the
process starts, keeps each C{SIGHUP} for the service to act on when it
starts.
"""

import signal
from collections.abc import Callable
from typing import Any

from twisted.application.service import Service
from twisted.internet.interfaces import IReactorThreads
from twisted.logger import Logger

from gsmcpd.daemon.early import STARTING, Arrivals
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.trace import MessageTrace
from gsmcpd.transport.tls import ReloadingContexts


class Hangup(Service):
    """
    @param reactor: what the handler hands its work to (the signal
        arrives on the main thread, between two reactor steps).
    @param contexts: the TLS contexts to reload, or L{None}.
    @param audit: the L{gsmcpd.observe.audit.AuditLog} to reopen, or
        L{None}.
    @param install: installs a signal handler (L{signal.signal}).
    @param trace: the L{gsmcpd.observe.trace.MessageTrace} to reopen, or
        L{None}.
    @param arrivals: the L{gsmcpd.daemon.early.Arrivals} the process
        counted C{SIGHUP}s in while starting.
    """

    name = "hangup"
    log = Logger()

    def __init__(self, reactor: IReactorThreads,
                 contexts: ReloadingContexts | None, audit: AuditLog | None,
                 install: Callable[[int, Any], object] = signal.signal,
                 trace: MessageTrace | None = None,
                 arrivals: Arrivals = STARTING) -> None:
        self._reactor = reactor
        self._contexts = contexts
        self._audit = audit
        self._install = install
        self._trace = trace
        self._arrivals = arrivals

    def startService(self) -> None:
        super().startService()
        self._install(signal.SIGHUP, lambda *_: self._reactor.callFromThread(
            self.reload))
        early = self._arrivals.take()
        if early:
            self.log.info("SIGHUP: {count} arrived while the daemon was "
                          "starting; acting on them now", count=early)
            self.reload()

    def reload(self) -> None:
        """
        What a C{SIGHUP} does, on the reactor thread.
        """
        self.log.info("SIGHUP: reloading the TLS certificate ({tls}) and "
                      "reopening the audit file ({audit}) and the trace "
                      "({trace})",
                      tls="yes" if self._contexts else "none",
                      audit="yes" if self._audit and self._audit.trail
                      else "none", trace="yes" if self._trace else "none")
        if self._contexts is not None:
            self._contexts.reload()
        if self._audit is not None:
            self._audit.reopen()
        if self._trace is not None:
            self._trace.reopen()

"""
Tests for L{gsmcpd.daemon.hangup}: C{SIGHUP} reloads and reopens, and never
ends the daemon.
"""

import signal

from twisted.logger import capturedLogs, formatEvent
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.early import Arrivals, holdHangups
from gsmcpd.daemon.hangup import Hangup
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.auditfile import AuditFile
from tests.observe.test_auditfile import Disk


class Reactor:

    def callFromThread(self, f, *args):
        f(*args)


class Recording:

    trail = "/var/log/gsmcpd/audit.log"

    def __init__(self):
        self.done = []

    def reload(self):
        self.done.append("reload")

    def reopen(self):
        self.done.append("reopen")


class HangupTests(SynchronousTestCase):

    def start(self, contexts, audit, trace=None, arrivals=None):
        handlers = {}
        service = Hangup(Reactor(), contexts, audit,
                         install=handlers.__setitem__, trace=trace,
                         arrivals=arrivals or Arrivals())
        service.startService()
        return handlers[signal.SIGHUP]

    def test_reloadsAndReopens(self):
        contexts, audit = Recording(), Recording()
        self.start(contexts, audit)(signal.SIGHUP, None)
        self.assertEqual((contexts.done, audit.done), (["reload"], ["reopen"]))

    def test_recoversAFailedAudit(self):
        """
        After the operator frees space, C{SIGHUP} is how a failed audit
        trail is written again.
        """
        disk = Disk()
        disk.full = True
        with capturedLogs():
            audit = AuditLog(AuditFile(self.mktemp(), disk.open))
        self.addCleanup(audit.close)
        handler = self.start(None, audit)
        with capturedLogs():
            handler(signal.SIGHUP, None)
        self.assertIsNotNone(audit.failure)
        disk.full = False
        with capturedLogs():
            handler(signal.SIGHUP, None)
        self.assertIsNone(audit.failure)

    def test_reopensTheTrace(self):
        trace = Recording()
        self.start(None, None, trace)(signal.SIGHUP, None)
        self.assertEqual(trace.done, ["reopen"])

    def test_plainHttpHandledToo(self):
        """
        Without TLS or an audit file the handler is still installed (the
        default would end the process) and does nothing.
        """
        self.start(None, None)(signal.SIGHUP, None)

    def test_whileStartingCountedThenActedOn(self):
        """
        A C{SIGHUP} before the service starts (the stone has not answered
        yet) is counted, not fatal; the service acts on it once as it
        starts, and says so.
        """
        handlers, arrivals = {}, Arrivals()
        holdHangups(handlers.__setitem__, arrivals)
        handlers[signal.SIGHUP](signal.SIGHUP, None)
        handlers[signal.SIGHUP](signal.SIGHUP, None)
        audit = Recording()
        with capturedLogs() as events:
            self.start(None, audit, arrivals=arrivals)
        self.assertEqual(audit.done, ["reopen"])
        self.assertEqual(formatEvent(events[0]), "SIGHUP: 2 arrived while "
                         "the daemon was starting; acting on them now")
        self.assertEqual(arrivals.count, 0)

    def test_noneWhileStarting(self):
        audit = Recording()
        with capturedLogs() as events:
            self.start(None, audit)
        self.assertEqual((audit.done, events), ([], []))

"""
Tests for L{gsmcpd.daemon.hangup}: C{SIGHUP} reloads and reopens, and never
ends the daemon.
"""

import signal

from twisted.logger import capturedLogs
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.hangup import Hangup
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.auditfile import AuditFile
from tests.test_auditfile import Disk


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

    def start(self, contexts, audit, trace=None):
        handlers = {}
        service = Hangup(Reactor(), contexts, audit,
                         install=handlers.__setitem__, trace=trace)
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

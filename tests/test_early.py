"""
Tests for L{gsmcpd.daemon.early}: from the console script's first instant,
a C{SIGHUP} is counted, never fatal.  (L{tests.test_hangup} shows the
service acting on what was counted; L{tests.test_hangup_sockets} a real
daemon surviving one as it starts.)
"""

import signal
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.early import Arrivals, holdHangups


class HoldHangupsTests(SynchronousTestCase):

    def test_counted(self):
        handlers, arrivals = {}, Arrivals()
        holdHangups(handlers.__setitem__, arrivals)
        handlers[signal.SIGHUP](signal.SIGHUP, None)
        handlers[signal.SIGHUP](signal.SIGHUP, None)
        self.assertEqual(arrivals.take(), 2)
        self.assertEqual(arrivals.take(), 0)

    def test_importsNothingOfTheDaemons(self):
        """
        The module holds C{SIGHUP} before the daemon, or Twisted, is
        imported: the seconds that takes are the window it closes.
        """
        done = subprocess.run(
            [sys.executable, "-c", "import sys, gsmcpd.daemon.early; print("
             "sorted(m for m in sys.modules if m.startswith(('gsmcpd', "
             "'twisted'))))"], capture_output=True, text=True, check=True)
        self.assertEqual(done.stdout.strip(),
                         "['gsmcpd', 'gsmcpd.daemon', 'gsmcpd.daemon.early']")

"""
Tests for L{gsmcpd.daemon.early}: from the process's first instant, a
C{SIGHUP} is counted, never fatal, and C{malloc}'s arenas are capped.
(L{tests.daemon.test_hangup} shows the service acting on what was counted;
L{tests.daemon.test_hangup_sockets} a real daemon surviving one as it starts;
L{tests.daemon.test_heap_sockets} what the cap is for.)
"""

import signal
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.early import ARENAS, M_ARENA_MAX, Arrivals, capArenas, holdHangups


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


class Libc:

    def __init__(self):
        self.calls = []

    def mallopt(self, parameter, value):
        self.calls.append((parameter, value))
        return 1


class CapArenasTests(SynchronousTestCase):

    def test_capped(self):
        libc = Libc()
        self.assertTrue(capArenas({}, libc))
        self.assertEqual(libc.calls, [(M_ARENA_MAX, ARENAS)])

    def test_operatorsChoiceKept(self):
        libc = Libc()
        self.assertFalse(capArenas({"MALLOC_ARENA_MAX": "8"}, libc))
        self.assertEqual(libc.calls, [])

    def test_notGlibc(self):
        self.assertFalse(capArenas({}, object()))

    def test_thisProcesssMalloc(self):
        """
        On glibc (this test's platform) the process's own C library takes
        the cap.
        """
        done = subprocess.run(
            [sys.executable, "-c", "from gsmcpd.daemon.early import "
             "capArenas; print(capArenas({}))"],
            capture_output=True, text=True, check=True)
        self.assertEqual(done.stdout.strip(), "True")

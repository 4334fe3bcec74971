"""
Breaks are sent from a thread of their own: a break that blocks (a wedged
gem, a stalled NetLDI) holds neither the reactor nor its session's calls.
"""

import threading

from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.gci.breaker import Breaker
from gsmcpd.gci.session import GemSession, LoginParameters
from tests.test_gci import _BreakRaceLibrary


class _Sender:
    """
    A break that blocks until the test lets it return.
    """

    def __init__(self):
        self.sent = []
        self.sending = threading.Semaphore(0)
        self.letReturn = threading.Event()

    def __call__(self, hard):
        self.sent.append(hard)
        self.sending.release()
        if not self.letReturn.wait(10):
            raise AssertionError("the test never let the break return")

    def nextBreak(self):
        if not self.sending.acquire(timeout=10):
            raise AssertionError("no break was sent")


class BreakerTests(SynchronousTestCase):

    def setUp(self):
        self.sender = _Sender()
        self.breaker = Breaker(self.sender, "test")
        self.addCleanup(self.sender.letReturn.set)
        self.addCleanup(self.breaker.stop)

    def test_requestDoesNotWaitForTheBreak(self):
        """
        Asking for a break returns while the break is still being sent.
        """
        self.breaker.request(hard=False)
        self.sender.nextBreak()
        self.assertEqual(self.sender.sent, [False])
        self.assertFalse(self.sender.letReturn.is_set())

    def test_breaksAskedMeanwhileAreMerged(self):
        """
        The breaks asked for while one is stuck go as one, hard if any
        was: no burst follows a stuck break, and a hard one is not lost.
        """
        self.breaker.request(hard=False)
        self.sender.nextBreak()
        for hard in (False, True, False):
            self.breaker.request(hard)
        self.sender.letReturn.set()
        self.sender.nextBreak()
        self.breaker.stop()
        self.assertEqual(self.sender.sent, [False, True])

    def test_softBreaksMergeSoft(self):
        self.breaker.request(hard=True)
        self.sender.nextBreak()
        self.breaker.request(hard=False)
        self.breaker.request(hard=False)
        self.sender.letReturn.set()
        self.sender.nextBreak()
        self.assertEqual(self.sender.sent, [True, False])

    def test_noBreakAfterStop(self):
        """
        Once stopped, no break is sent: a pending one is dropped, a new
        one ignored.
        """
        self.breaker.request(hard=False)
        self.sender.nextBreak()
        self.breaker.request(hard=True)
        self.breaker.stop()
        self.sender.letReturn.set()
        self.breaker.request(hard=True)
        self.assertFalse(self.sender.sending.acquire(timeout=0.2))
        self.assertEqual(self.sender.sent, [False])

    def test_aFailedBreakIsLoggedAndTheNextSent(self):
        sent = []
        done = threading.Semaphore(0)

        def send(hard):
            sent.append(hard)
            done.release()
            if len(sent) == 1:
                raise RuntimeError("the first break failed")

        breaker = Breaker(send, "failing")
        self.addCleanup(breaker.stop)
        breaker.request(hard=False)
        self.assertTrue(done.acquire(timeout=10))
        breaker.request(hard=True)
        self.assertTrue(done.acquire(timeout=10))
        self.assertEqual(sent, [False, True])
        [failure] = self.flushLoggedErrors(RuntimeError)
        self.assertEqual(str(failure.value), "the first break failed")


class SessionBreakTests(TestCase):
    """
    A L{GemSession} never sends a break on the reactor thread.
    """

    @inlineCallbacks
    def test_interruptReturnsWhileTheBreakBlocks(self):
        """
        C{interrupt} returns at once while GciTsBreak blocks, and the
        session's logout waits for that break on the session's thread, not
        the reactor's.
        """
        library = _BreakRaceLibrary()
        gem = GemSession(library, LoginParameters("s", None, "u", "p"),
                         reactor, "wedged")
        yield gem.login()
        gem.interrupt(hard=False)
        self.assertTrue((yield deferToThread(library.breaking.wait, 10)))
        self.assertEqual(library.inFlight, 1)
        loggingOut = gem.logout()
        self.assertFalse(library.loggedOut.is_set())
        library.letBreakReturn.set()
        yield loggingOut
        self.assertIs(library.loggedOutUnderABreak, False)
        self.assertEqual(library.breaks, 1)

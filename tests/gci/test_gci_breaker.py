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
from tests.gci.test_gci import _BreakRaceLibrary


class _Sender:
    """
    A break that blocks until the test lets it return.
    """

    def __init__(self):
        self.sent = []
        self.sending = threading.Semaphore(0)
        self.letReturn = threading.Event()

    def __call__(self, target, hard):
        self.sent.append((target, hard))
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
        self.breaker.request("A", hard=False)
        self.sender.nextBreak()
        self.assertEqual(self.sender.sent, [("A", False)])
        self.assertFalse(self.sender.letReturn.is_set())

    def test_breaksAskedMeanwhileAreMerged(self):
        """
        The breaks asked for while one is stuck go as one, hard if any
        was: no burst follows a stuck break, and a hard one is not lost.
        """
        self.breaker.request("A", hard=False)
        self.sender.nextBreak()
        for hard in (False, True, False):
            self.breaker.request("A", hard)
        self.sender.letReturn.set()
        self.sender.nextBreak()
        self.breaker.stop()
        self.assertEqual(self.sender.sent, [("A", False), ("A", True)])

    def test_softBreaksMergeSoft(self):
        self.breaker.request("A", hard=True)
        self.sender.nextBreak()
        self.breaker.request("A", hard=False)
        self.breaker.request("A", hard=False)
        self.sender.letReturn.set()
        self.sender.nextBreak()
        self.assertEqual(self.sender.sent, [("A", True), ("A", False)])

    def test_onlyBreaksOfOneTargetMerge(self):
        """
        A break asked for another target replaces a pending one (one call
        runs at a time: the older one's is over), hard or not of its own.
        """
        self.breaker.request("A", hard=False)
        self.sender.nextBreak()
        self.breaker.request("A", hard=True)
        self.breaker.request("B", hard=False)
        self.sender.letReturn.set()
        self.sender.nextBreak()
        self.assertEqual(self.sender.sent, [("A", False), ("B", False)])

    def test_noBreakAfterStop(self):
        """
        Once stopped, no break is sent: a pending one is dropped, a new
        one ignored.
        """
        self.breaker.request("A", hard=False)
        self.sender.nextBreak()
        self.breaker.request("A", hard=True)
        self.breaker.stop()
        self.sender.letReturn.set()
        self.breaker.request("A", hard=True)
        self.assertFalse(self.sender.sending.acquire(timeout=0.2))
        self.assertEqual(self.sender.sent, [("A", False)])

    def test_aFailedBreakIsLoggedAndTheNextSent(self):
        sent = []
        done = threading.Semaphore(0)

        def send(target, hard):
            sent.append(hard)
            done.release()
            if len(sent) == 1:
                raise RuntimeError("the first break failed")

        breaker = Breaker(send, "failing")
        self.addCleanup(breaker.stop)
        breaker.request("A", hard=False)
        self.assertTrue(done.acquire(timeout=10))
        breaker.request("A", hard=True)
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
        running = gem.execute("stuck", 4096)
        yield deferToThread(library.started[b"stuck"].wait, 10)
        gem.interrupt(hard=False)
        self.assertTrue((yield deferToThread(library.breaking.wait, 10)))
        self.assertEqual(library.inFlight, 1)
        library.letReturn[b"stuck"].set()
        yield running
        loggingOut = gem.logout()
        self.assertFalse(library.loggedOut.is_set())
        library.letBreakReturn.set()
        yield loggingOut
        self.assertIs(library.loggedOutUnderABreak, False)
        self.assertEqual(library.breaks, 1)

    @inlineCallbacks
    def test_aLateBreakNeverHitsTheNextCall(self):
        """
        A break stuck in flight holds the next call back until it returns,
        the call it was for having ended meanwhile (its result not held
        back); one asked for that call meanwhile is dropped, not sent to
        the next call.
        """
        library = _BreakRaceLibrary()
        gem = GemSession(library, LoginParameters("s", None, "u", "p"),
                         reactor, "late")
        yield gem.login()
        first = gem.execute("A", 4096)
        yield deferToThread(library.started[b"A"].wait, 10)
        gem.interrupt(hard=False)
        yield deferToThread(library.breaking.wait, 10)
        second = gem.execute("B", 4096)
        library.letReturn[b"A"].set()
        self.assertEqual((yield first), b"A")
        gem.interrupt(hard=True)
        self.assertFalse(
            (yield deferToThread(library.started[b"B"].wait, 0.3)))
        library.letBreakReturn.set()
        yield deferToThread(library.started[b"B"].wait, 10)
        self.assertFalse((yield deferToThread(library.broken[b"B"].wait, 0.3)))
        library.letReturn[b"B"].set()
        self.assertEqual((yield second), b"B")
        yield gem.logout()
        self.assertEqual(library.startedUnderABreak, [])
        self.assertIs(library.broken[b"B"].is_set(), False)

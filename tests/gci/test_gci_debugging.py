"""
The binding's debugger calls (L{gsmcpd.gci.library.GciLibrary.executeDebug},
C{continueWith}, C{clearStack}) on the simulated stone's libgcits: a run
started with the debug and interpreted flags stops at a breakpoint and is
read, stepped, continued and cleared over the GCI, as a GemStone client
drives it (a test double, not GemStone).
"""

from twisted.internet import reactor, threads
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.gci.debugcalls import Stopped
from gsmcpd.gci.errors import OOP_ILLEGAL, GciError
from gsmcpd.gci.session import GemSession
from tests.gci.test_gci import SimulatedStoneMixin

DEBUG = 0x1 | 0x20
"""GCI_PERFORM_FLAG_ENABLE_DEBUG | GCI_PERFORM_FLAG_INTERPRETED."""

SETUP = (
    "Object subclass: 'Probe' instVarNames: #() classVars: #() classInstVars: #() "
    "poolDictionaries: #() inDictionary: UserGlobals options: #(). 'ok'",
    "(UserGlobals at: #Probe) compileMethod: 'five\n\t| x |\n\tx := 3.\n\tx := x + 4.\n"
    "\t^ x * 2' dictionaries: System myUserProfile symbolList category: 'probe'.\n"
    "(Probe compiledMethodAt: #five) setBreakAtStepPoint: 2. 'ok'")


class DebuggerCallTests(SimulatedStoneMixin, TestCase):

    def setUp(self):
        self.startStone()

    def session(self):
        """
        On a thread: a logged-in handle and its Utf8 class.
        """
        handle, _ = self.library.login(self.login.stoneNrs, None, None, None,
                                       self.login.user, self.login.password)
        self.addCleanup(threads.deferToThread, self.library.logout, handle)
        return handle, self.library.resolveSymbol(handle, "Utf8")

    def fetch(self, handle, utf8, source):
        return self.library.executeFetchBytes(handle, source.encode(), utf8, 4096)

    def stopsAndSteps(self):
        library = self.library
        handle, utf8 = self.session()
        for source in SETUP:
            self.assertEqual(self.fetch(handle, utf8, source), b"ok")
        stop = self.assertRaises(GciError, library.executeDebug, handle,
                                 b"Probe new five", utf8, DEBUG)
        self.assertEqual(stop.number, 6005)
        process = stop.suspendedProcess
        self.assertIsNotNone(process)
        x = f"((Object _objectForOop: {process}) _frameContentsAt: 1) at: 11"
        self.assertEqual(self.fetch(handle, utf8, x), b"3")
        # Another session runs while this one's process is stopped.
        other, otherUtf8 = self.session()
        self.assertEqual(self.fetch(other, otherUtf8, "3 + 4"), b"7")
        step = f"(Object _objectForOop: {process}) gciStepOverFromLevel: 1".encode()
        for _ in range(2):
            again = self.assertRaises(GciError, library.executeDebug, handle, step,
                                      utf8, DEBUG)
            self.assertEqual((again.number, again.suspendedProcess), (6005, process))
        self.assertEqual(self.fetch(handle, utf8, x), b"7")
        self.assertNotEqual(library.continueWith(handle, process, DEBUG), OOP_ILLEGAL)
        gone = self.assertRaises(GciError, library.continueWith, handle, process, DEBUG)
        self.assertEqual(gone.number, 2094)

    def haltCleared(self):
        library = self.library
        handle, utf8 = self.session()
        stop = self.assertRaises(GciError, library.executeDebug, handle,
                                 b"nil halt. 7", utf8, DEBUG)
        self.assertEqual(stop.number, 6001)
        library.clearStack(handle, stop.suspendedProcess)
        self.assertEqual(self.fetch(handle, utf8, "3 + 4"), b"7")
        # Without the flags nothing stops: the halt is the call's error.
        plain = self.assertRaises(GciError, library.executeDebug, handle,
                                  b"nil halt. 7", utf8, 0)
        self.assertEqual(plain.number, 6001)
        self.assertIsNone(plain.suspendedProcess)

    @inlineCallbacks
    def test_stopStepContinue(self):
        yield threads.deferToThread(self.stopsAndSteps)

    @inlineCallbacks
    def test_haltThenClearStack(self):
        yield threads.deferToThread(self.haltCleared)


class GemSessionDebugTests(SimulatedStoneMixin, TestCase):
    """
    L{GemSession}'s debug calls (L{gsmcpd.gci.debugcalls}): a stop is an
    answer and its process is kept, where a failed call's is cleared.
    """

    def setUp(self):
        self.startStone()

    @inlineCallbacks
    def loggedIn(self):
        gem = GemSession(self.library, self.login, reactor, "debug")
        yield gem.login()
        self.addCleanup(gem.logout)
        return gem

    @inlineCallbacks
    def test_stopKeptThenContinued(self):
        gem = yield self.loggedIn()
        stopped = yield gem.executeDebug("nil halt. 7")
        self.assertIsInstance(stopped, Stopped)
        self.assertEqual(stopped.number, 6001)
        self.assertEqual(gem.paused, frozenset({stopped.process}))
        finished = yield gem.continueDebug(stopped.process)
        self.assertIsNone(finished)
        self.assertEqual(gem.paused, frozenset())

    @inlineCallbacks
    def test_stepStopsTheSameProcess(self):
        gem = yield self.loggedIn()
        stopped = yield gem.executeDebug("| x | nil halt. x := 3. x := x + 4. x")
        step = f"(Object _objectForOop: {stopped.process}) gciStepOverFromLevel: 1"
        again = yield gem.executeDebug(step, stopped.process)
        self.assertEqual((again.process, again.number), (stopped.process, 6005))
        self.assertEqual(gem.paused, frozenset({stopped.process}))

    @inlineCallbacks
    def test_clearEnds(self):
        gem = yield self.loggedIn()
        stopped = yield gem.executeDebug("nil halt. 7")
        yield gem.clearDebug(stopped.process)
        self.assertEqual(gem.paused, frozenset())
        gone = yield self.assertFailure(gem.continueDebug(stopped.process), GciError)
        self.assertEqual(gone.number, 2094)

    @inlineCallbacks
    def test_logoutEndsPausedRuns(self):
        """
        A session that ends holding a paused run ends its process: the
        stone holds none for it once the logout is over.
        """
        gem = GemSession(self.library, self.login, reactor, "debug")
        yield gem.login()
        yield gem.executeDebug("nil halt. 7")
        running = yield threads.deferToThread(self.control.call,
                                              {"op": "debugRuns"})
        self.assertEqual(running, {"debugRuns": 1})
        over = gem.logout()
        self.assertEqual(gem.paused, frozenset())
        yield over
        running = yield threads.deferToThread(self.control.call,
                                              {"op": "debugRuns"})
        self.assertEqual(running, {"debugRuns": 0})
        self.assertEqual(gem.paused, frozenset())

    @inlineCallbacks
    def test_deadGemHoldsNoPausedRun(self):
        """
        A session whose gem died holds no paused run once its next call
        finds the gem gone: nothing is left to step or continue.
        """
        gem = yield self.loggedIn()
        yield gem.executeDebug("nil halt. 7")
        [number] = [each["session"] for each in (yield threads.deferToThread(
            self.control.call, {"op": "sessions"}))["sessions"]]
        yield threads.deferToThread(self.control.call,
                                    {"op": "kill", "session": number})
        yield self.assertFailure(gem.executeDebug("3 + 4"), GciError)
        self.assertEqual(gem.paused, frozenset())

    @inlineCallbacks
    def test_abandonedHoldsNoPausedRun(self):
        """
        An abandoned session's paused runs end with it.
        """
        gem = GemSession(self.library, self.login, reactor, "debug")
        yield gem.login()
        yield gem.executeDebug("nil halt. 7")
        gem.abandon("its call took no break")
        self.assertEqual(gem.paused, frozenset())

    @inlineCallbacks
    def test_finishedAndFailed(self):
        """
        A run that finishes answers None; one that cannot stop (it does not
        compile) fails as any call does, and keeps nothing.
        """
        gem = yield self.loggedIn()
        self.assertIsNone((yield gem.executeDebug("3 + 4")))
        yield self.assertFailure(gem.executeDebug("3 +"), GciError)
        self.assertEqual(gem.paused, frozenset())

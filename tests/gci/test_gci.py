"""
The GCI layer against the simulated stone: the real ctypes path, threads,
FIFO order, errors, the pool's cap.
"""

import ctypes
import json
import os
import threading
from collections import defaultdict

from twisted.internet import reactor, threads
from twisted.internet.defer import Deferred, gatherResults, inlineCallbacks
from twisted.logger import LogLevel, formatEvent, globalLogPublisher
from twisted.python.threadable import isInIOThread
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.gci.errors import OOP_NIL, GciError
from gsmcpd.gci.library import (
    BlockingCallOnReactorThread,
    GciErrSType,
    GciLibrary,
    GciLibraryError,
    ResultOverrun,
)
from gsmcpd.gci.pool import GemSessionPool, SessionLimitReached
from gsmcpd.gci.session import CallWithdrawn, GemSession, LoginParameters, SessionGone
from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.control import SimulatorControl
from gsmcpd.testing.simulator.launch import launch
from gsmcpd.tools.templates.render import Template


def executeCode(code):
    return Template.named("execute_code").render(
        {"code": code, "limit": 50000}, 1 << 20)


class SimulatedStoneMixin:
    """
    A simulated stone for the test, and a login to it.
    """

    maxLogins = 10

    def startStone(self):
        directory = self.mktemp()
        os.makedirs(directory)
        socket = os.path.join(directory, "stone")
        self.stone = launch(socket, maxLogins=self.maxLogins)
        self.addCleanup(self.stone.stop)
        self.control = SimulatorControl(socket)
        self.library = GciLibrary.load(libraryPath())
        self.login = LoginParameters(stoneNrs=socket, gemNrs=None,
                                     user="DataCurator", password="swordfish")


class LibraryTests(SynchronousTestCase):

    def test_simulatedVersion(self):
        library = GciLibrary.load(libraryPath())
        self.assertTrue(library.version.startswith("3.7."))
        self.assertIn("simulated", library.version)

    def test_errorLayout(self):
        self.assertEqual(ctypes.sizeof(GciErrSType), 2168)
        self.assertEqual(GciErrSType.number.offset, 104)
        self.assertEqual(GciErrSType.fatal.offset, 112)
        self.assertEqual(GciErrSType.message.offset, 113)
        self.assertEqual(GciErrSType.reason.offset, 1138)

    def test_unsupportedVersionRefused(self):
        cdll = _FakeCDLL(b"3.6.2 build 1")
        error = self.assertRaises(GciLibraryError, GciLibrary, cdll, "x.so")
        self.assertIn("3.6.2", str(error))

    def test_missingFunctionRefused(self):
        cdll = _FakeCDLL(b"3.7.4", missing="GciTsBreak")
        error = self.assertRaises(GciLibraryError, GciLibrary, cdll, "x.so")
        self.assertIn("GciTsBreak", str(error))

    def test_unloadable(self):
        self.assertRaises(GciLibraryError, GciLibrary.load, "/nonexistent.so")


class _FakeFunction:
    def __init__(self, call=None):
        self.call = call

    def __call__(self, *args):
        return self.call(*args)


class _FakeCDLL:
    def __init__(self, version, missing=None):
        def writeVersion(buffer, size):
            ctypes.memmove(buffer, version + b"\0", len(version) + 1)
            return 3

        for name in ("GciTsVersion", "GciTsLogin", "GciTsLogout",
                     "GciTsExecuteFetchBytes", "GciTsBreak",
                     "GciTsClearStack", "GciTsResolveSymbol",
                     "GciTsExecute_", "GciTsContinueWith"):
            if name != missing:
                setattr(self, name, _FakeFunction())
        self.GciTsVersion.call = writeVersion


class ReactorThreadTests(SimulatedStoneMixin, TestCase):

    def test_blockingCallRefusedOnReactorThread(self):
        """
        The reactor thread never enters a blocking GemStone call: the
        binding refuses it before calling C.
        """
        self.startStone()
        self.assertTrue(isInIOThread())
        self.assertRaises(BlockingCallOnReactorThread, self.library.login,
                          self.login.stoneNrs, None, None, None,
                          "DataCurator", "swordfish")
        self.assertEqual(self.control.call({"op": "sessions"})["sessions"],
                         [])

    def test_breakRefusedOnReactorThread(self):
        """
        Not even a break is sent on the reactor thread: GciTsBreak writes
        to the gem's socket, and a wedged gem would hold the daemon.
        """
        self.startStone()
        self.assertRaises(BlockingCallOnReactorThread,
                          self.library.breakSession, 0x5E55, False)


class GemSessionTests(SimulatedStoneMixin, TestCase):

    def setUp(self):
        self.startStone()

    @inlineCallbacks
    def loggedIn(self):
        gem = GemSession(self.library, self.login, reactor, "test")
        yield gem.login()
        self.addCleanup(gem.logout)
        return gem

    @inlineCallbacks
    def killed(self, gem):
        """
        The stone kills C{gem}'s (only) session: the next call's error,
        which must be fatal.
        """
        [number] = [s["session"]
                    for s in self.control.call({"op": "sessions"})["sessions"]]
        self.control.call({"op": "kill", "session": number})
        error = yield self.assertFailure(
            gem.execute(executeCode("1"), 4096), GciError)
        self.assertTrue(error.fatal)
        return error

    @inlineCallbacks
    def test_executeOnItsOwnThread(self):
        gem = yield self.loggedIn()
        answer = yield gem.execute(executeCode("3 + 4"), 1 << 20)
        self.assertEqual(json.loads(answer), {
            "result": {"total": 1, "text": "7"}, "needsCommit": False})
        self.assertFalse(gem.busy)

    @inlineCallbacks
    def test_callsRunInOrder(self):
        gem = yield self.loggedIn()
        answers = yield gatherResults([
            gem.execute(executeCode(f"{n} * 10"), 4096) for n in range(5)])
        self.assertEqual([json.loads(a)["result"]["text"] for a in answers],
                         ["0", "10", "20", "30", "40"])

    @inlineCallbacks
    def test_gciErrorCarriesNumberAndMessage(self):
        gem = yield self.loggedIn()
        error = yield self.assertFailure(
            gem.execute('"a source that does not compile"\n1 +', 4096), GciError)
        self.assertEqual(error.number, 1001)
        self.assertFalse(error.fatal)
        answer = yield gem.execute(executeCode("1 + 1"), 4096)
        self.assertEqual(json.loads(answer)["result"]["text"], "2")

    @inlineCallbacks
    def test_fatalErrorEndsTheSession(self):
        gem = yield self.loggedIn()
        error = yield self.killed(gem)
        self.assertIs(gem.gone, error)
        again = yield self.assertFailure(
            gem.execute(executeCode("1"), 4096), SessionGone)
        self.assertTrue(again.fatal)

    @inlineCallbacks
    def test_deadGemIsLoggedOutAndFreed(self):
        """
        A session whose gem died is passed to GciTsLogout at once, which
        frees it and its socket, whether or not anyone closes the session:
        the error that says the gem is gone arrives with the handle freed.
        """
        gem = yield self.loggedIn()
        handle = gem._handle
        freed = ctypes.CDLL(self.library.path).FakeGciTsFreed
        freed.argtypes = [ctypes.c_void_p]
        self.assertEqual(freed(handle), 0)
        yield self.killed(gem)
        self.assertEqual(freed(handle), 1)

    @inlineCallbacks
    def test_loginWarningIsLogged(self):
        """
        A login that succeeds with a warning in its error report (gcits.hf:
        "login succeeded but there may still be a warning in *err") logs
        it, and the session is logged in.
        """
        self.control.call({"op": "loginWarning", "warning": {
            "number": 2347, "message": "your password is about to expire"}})
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        gem = yield self.loggedIn()
        [warning] = [e for e in events if e.get("log_level") == LogLevel.warn
                     and "with a warning" in e.get("log_format", "")]
        self.assertIn("test: logged in with a warning: GemStone error 2347: "
                      "your password is about to expire",
                      formatEvent(warning))
        answer = yield gem.execute(executeCode("1 + 1"), 4096)
        self.assertEqual(json.loads(answer)["result"]["text"], "2")

    @inlineCallbacks
    def test_breakInterruptsARunningCall(self):
        gem = yield self.loggedIn()
        running = gem.execute(executeCode("(Delay forSeconds: 30) wait"), 4096)
        started = threading.Event()
        reactor.callLater(0.2, lambda: (gem.interrupt(hard=False),
                                        started.set()))
        error = yield self.assertFailure(running, GciError)
        self.assertEqual(error.number, 6003)
        self.assertTrue(error.isBreak)
        answer = yield gem.execute(executeCode("2 + 2"), 4096)
        self.assertEqual(json.loads(answer)["result"]["text"], "4")

    @inlineCallbacks
    def test_endCallWithdrawsAQueuedCall(self):
        """
        A call queued behind a running one is withdrawn without running;
        the running one is broken; neither is anything once over.
        """
        gem = yield self.loggedIn()
        running = gem.execute(executeCode("(Delay forSeconds: 30) wait"),
                              4096)
        queued = gem.execute(executeCode("1 + 1"), 4096)
        yield self.started(gem, running)
        self.assertEqual(gem.callState(queued), "queued")
        self.assertEqual(gem.endCall(queued, hard=False), "withdrawn")
        yield self.assertFailure(queued, CallWithdrawn)
        self.assertIsNone(gem.callState(queued))
        self.assertEqual(gem.endCall(running, hard=False), "broken")
        yield self.assertFailure(running, GciError)
        self.assertIsNone(gem.endCall(running, hard=False))
        self.assertFalse(gem.busy)

    @inlineCallbacks
    def test_abandonWithdrawsAndLogsOutLater(self):
        """
        Abandoning a session withdraws its queued calls at once, refuses
        new ones, and logs it out once its stuck call returns.
        """
        gem = GemSession(self.library, self.login, reactor, "stuck")
        yield gem.login()
        stuck = gem.execute(executeCode("(Delay forSeconds: 1) wait"), 4096)
        queued = gem.execute(executeCode("1 + 1"), 4096)
        yield self.started(gem, stuck)
        gem.abandon("it took no break")
        yield self.assertFailure(queued, CallWithdrawn)
        yield self.assertFailure(gem.execute(executeCode("1"), 4096),
                                 SessionGone)
        yield stuck
        for _ in range(100):
            if not self.control.call({"op": "sessions"})["sessions"]:
                break
            yield self.wait(0.05)
        self.assertEqual(self.control.call({"op": "sessions"})["sessions"],
                         [])

    @inlineCallbacks
    def test_largeResultsThenSmallOnes(self):
        """
        A session's thread keeps its result buffer from call to call,
        giving its pages back after a large result: each result is whole
        and nothing of an earlier one shows in a later one.
        """
        gem = yield self.loggedIn()
        for code, printed in (("String new: 40000", f"'{' ' * 40000}'"),
                              ("3 + 4", "7"),
                              ("String new: 20000", f"'{' ' * 20000}'"),
                              ("'ok'", "'ok'")):
            answer = yield gem.execute(executeCode(code), 1 << 20)
            self.assertEqual(json.loads(answer)["result"]["text"], printed)

    def started(self, gem, d):
        """
        Fires once the call whose result C{d} is has begun running.
        """
        return self.until(lambda: gem.callState(d) == "running")

    @inlineCallbacks
    def until(self, condition):
        for _ in range(200):
            if condition():
                return
            yield self.wait(0.01)
        self.fail("the condition never held")

    def wait(self, seconds):
        d = Deferred()
        reactor.callLater(seconds, d.callback, None)
        return d

    @inlineCallbacks
    def test_loginFailure(self):
        bad = LoginParameters(stoneNrs=self.login.stoneNrs, gemNrs=None,
                              user="DataCurator", password="wrong")
        gem = GemSession(self.library, bad, reactor, "bad")
        self.addCleanup(gem.logout)
        error = yield self.assertFailure(gem.login(), GciError)
        self.assertNotEqual(error.number, 0)


class PoolTests(SimulatedStoneMixin, TestCase):

    def setUp(self):
        self.startStone()

    def loggedInNumbers(self):
        return [s["session"]
                for s in self.control.call({"op": "sessions"})["sessions"]]

    @inlineCallbacks
    def test_capRefusesWithoutLogin(self):
        pool = GemSessionPool(self.library, self.login, reactor, 2)
        self.addCleanup(pool.closeAll)
        yield pool.open("a")
        yield pool.open("b")
        error = self.assertRaises(SessionLimitReached, pool.open, "c")
        self.assertEqual(error.limit, 2)
        self.assertEqual(len(self.loggedInNumbers()), 2)

    @inlineCallbacks
    def test_closeGivesTheSlotBack(self):
        pool = GemSessionPool(self.library, self.login, reactor, 1)
        self.addCleanup(pool.closeAll)
        gem = yield pool.open("a")
        yield pool.close(gem)
        self.assertEqual(self.loggedInNumbers(), [])
        yield pool.open("b")

    @inlineCallbacks
    def test_failedLoginGivesTheSlotBack(self):
        self.control.call({"op": "maxLogins", "value": 0})
        pool = GemSessionPool(self.library, self.login, reactor, 1)
        yield self.assertFailure(pool.open("a"), GciError)
        self.assertEqual(len(pool), 0)
        self.control.call({"op": "maxLogins", "value": 10})
        yield pool.open("b")
        yield pool.closeAll()

    @inlineCallbacks
    def test_closeAllLogsEveryoneOut(self):
        pool = GemSessionPool(self.library, self.login, reactor, None)
        gems = yield gatherResults([pool.open(str(n)) for n in range(4)])
        busy = gems[0].execute(executeCode("[true] whileTrue"), 4096)
        busy.addErrback(lambda f: f.trap(GciError))
        yield pool.closeAll()
        self.assertEqual(self.loggedInNumbers(), [])
        self.assertEqual(len(pool), 0)


class _Spy:
    """
    A L{GciLibrary}'s calls, recorded on their way through.
    """

    def __init__(self, library):
        self._library = library
        self.calls = []

    def __getattr__(self, name):
        function = getattr(self._library, name)

        def recorded(*args):
            self.calls.append((name, args[1:]))
            return function(*args)
        return recorded

    def called(self, name):
        return [args for each, args in self.calls if each == name]


class SpiedGemTestCase(SimulatedStoneMixin, TestCase):
    """
    A logged-in L{GemSession} named C{gemName}, whose library calls
    C{self.spy} records.
    """

    gemName: str

    def setUp(self):
        self.startStone()
        self.spy = _Spy(self.library)
        self.gem = GemSession(self.spy, self.login, reactor, self.gemName)
        self.addCleanup(self.gem.logout)
        return self.gem.login()


class StackTests(SpiedGemTestCase):
    """
    A failed call's GsProcess is cleared only when the failure left one:
    C{GciErrSType.context} is OOP_NIL otherwise (3.7 C{gci.ht}), and the
    simulated stone refuses GciTsClearStack(OOP_NIL).
    """

    gemName = "stack"

    @inlineCallbacks
    def test_noContextNoClearStack(self):
        error = yield self.assertFailure(
            self.gem.execute('"does not compile"\n1 +', 4096), GciError)
        self.assertEqual(error.context, OOP_NIL)
        self.assertEqual(self.spy.called("clearStack"), [])

    @inlineCallbacks
    def test_breakLeavesAProcessThatIsCleared(self):
        running = self.gem.execute(executeCode("(Delay forSeconds: 30) wait"),
                                   4096)
        yield GemSessionTests.until(self, lambda: self.gem.callState(running)
                                    == "running")
        self.gem.interrupt(hard=False)
        error = yield self.assertFailure(running, GciError)
        self.assertEqual(self.spy.called("clearStack"),
                         [(error.context,)])
        # Cleared once: the stone holds it no longer.
        again = yield threads.deferToThread(
            self.assertRaises, GciError, self.library.clearStack,
            self.gem._handle, error.context)
        self.assertEqual(again.number, 2094)

    wait = GemSessionTests.wait


class SourceClassTests(SpiedGemTestCase):
    """
    The source's class is resolved at login (GciTsResolveSymbol), as public
    GemStone clients do: the simulated stone's OOPs are not GemStone's, so
    a hard-coded OOP_CLASS_Utf8 (154113) is refused.
    """

    gemName = "utf8"

    @inlineCallbacks
    def test_resolvedAtLogin(self):
        self.assertEqual(self.spy.called("resolveSymbol"), [("Utf8",)])
        answer = yield self.gem.execute(executeCode("'é' size"), 4096)
        [(_, sourceClass, _)] = self.spy.called("executeFetchBytes")
        self.assertNotEqual(sourceClass, 154113)
        self.assertEqual(json.loads(answer)["result"]["text"], "1")

    @inlineCallbacks
    def test_gemstoneConstantRefused(self):
        error = yield threads.deferToThread(
            self.assertRaises, GciError, self.library.executeFetchBytes,
            self.gem._handle, b"3 + 4", 154113, 4096)
        self.assertEqual(error.number, 2094)
        self.assertIn("sourceOop", error.message)

    @inlineCallbacks
    def test_stringSourceIsEightBit(self):
        """
        Source bytes given as a String are 8-bit characters: UTF-8 text
        arrives garbled, which is why the daemon names Utf8.
        """
        string = yield threads.deferToThread(
            self.library.resolveSymbol, self.gem._handle, "String")
        answer = yield threads.deferToThread(
            self.library.executeFetchBytes, self.gem._handle,
            "'é' size".encode(), string, 4096)
        self.assertEqual(answer, b"2")

    @inlineCallbacks
    def test_unresolvableName(self):
        error = yield threads.deferToThread(
            self.assertRaises, GciError, self.library.resolveSymbol,
            self.gem._handle, "NoSuchGlobal")
        self.assertFalse(error.fatal)


class ResultSizeTests(SimulatedStoneMixin, TestCase):
    """
    A result over the caller's limit is refused whole, never answered cut:
    the library answers only its first bytes (as its siblings document).
    """

    def setUp(self):
        self.startStone()
        self.gem = GemSession(self.library, self.login, reactor, "size")
        self.addCleanup(self.gem.logout)
        return self.gem.login()

    @inlineCallbacks
    def test_exactlyTheLimit(self):
        answer = yield self.gem.execute("'abcdef'", 6)
        self.assertEqual(answer, b"abcdef")

    @inlineCallbacks
    def test_overTheLimit(self):
        error = yield self.assertFailure(self.gem.execute("'abcdef'", 5),
                                         ResultOverrun)
        self.assertFalse(error.fatal)
        answer = yield self.gem.execute("'abc'", 5)
        self.assertEqual(answer, b"abc")


class _BreakRaceLibrary:
    """
    A library whose break stays in flight until the test lets it return,
    and whose logout notes whether one was: on libgcits that logout would
    free the session under the break.  Its calls run until the test lets
    each return (by its source), noting what a break reached.

    @ivar started: source to an event set once its call started.
    @ivar broken: source (L{None}: no call) to an event set once a break
        was sent while it ran.
    @ivar startedUnderABreak: the sources whose call started while a break
        was in flight.
    """

    def __init__(self):
        self.breaking = threading.Event()
        self.letBreakReturn = threading.Event()
        self.loggedOut = threading.Event()
        self.inFlight = 0
        self.breaks = 0
        self.loggedOutUnderABreak = None
        self.started = defaultdict(threading.Event)
        self.letReturn = defaultdict(threading.Event)
        self.broken = defaultdict(threading.Event)
        self.startedUnderABreak = []
        self.running = None

    def login(self, *args):
        return 0x5E55, None

    def resolveSymbol(self, handle, name):
        return 0x7E000001

    def executeFetchBytes(self, handle, source, sourceClass, maxBytes):
        if self.inFlight:
            self.startedUnderABreak.append(source)
        self.running = source
        self.started[source].set()
        self.letReturn[source].wait(10)
        self.running = None
        return source

    def breakSession(self, handle, hard):
        self.inFlight += 1
        self.breaks += 1
        self.broken[self.running].set()
        self.breaking.set()
        self.letBreakReturn.wait(10)
        self.inFlight -= 1

    def logout(self, handle):
        self.loggedOutUnderABreak = self.inFlight > 0
        self.loggedOut.set()


class HandleLifetimeTests(TestCase):
    """
    GciTsLogout frees the session while GciTsBreak may be called from the
    reactor thread: a logout waits for a break in flight, and no break is
    sent once a logout has begun.
    """

    @inlineCallbacks
    def test_logoutWaitsForABreakInFlight(self):
        library = _BreakRaceLibrary()
        gem = GemSession(library, LoginParameters("s", None, "u", "p"),
                         reactor, "race")
        yield gem.login()
        running = gem.execute("stuck", 4096)
        self.assertTrue(
            (yield threads.deferToThread(library.started[b"stuck"].wait, 10)))
        breaker = threading.Thread(target=gem.interrupt, args=(True,))
        breaker.start()
        self.addCleanup(breaker.join, 10)
        self.assertTrue(library.breaking.wait(10))
        # The call it was for returns under it, its result not held back.
        library.letReturn[b"stuck"].set()
        self.assertEqual((yield running), b"stuck")
        loggingOut = gem.logout()
        # The logout is held while the break is in flight...
        self.assertFalse(library.loggedOut.wait(0.2))
        library.letBreakReturn.set()
        yield loggingOut
        self.assertIs(library.loggedOutUnderABreak, False)
        # ...and no break is sent once it has begun.
        gem.interrupt(hard=True)
        self.assertEqual(library.breaks, 1)


class UnresolvableLibrary(_BreakRaceLibrary):
    """
    A stone whose symbol list has no Utf8.
    """

    def resolveSymbol(self, handle, name):
        raise GciError(1031, f"{name} is not in the symbol list")


class LoginResolvesTests(TestCase):

    @inlineCallbacks
    def test_unresolvedSourceClassFailsTheLoginAndLogsOut(self):
        library = UnresolvableLibrary()
        gem = GemSession(library, LoginParameters("s", None, "u", "p"),
                         reactor, "no-utf8")
        error = yield self.assertFailure(gem.login(), GciError)
        self.assertEqual(error.number, 1031)
        self.assertTrue(library.loggedOut.is_set())
        yield gem.logout()


class FakeLibraryMisuseTests(SimulatedStoneMixin, TestCase):
    """
    The session's handle against the simulated stone's library, which
    counts every call that would use a freed session on a real one.
    """

    @inlineCallbacks
    def test_breaksRacingALogoutNeverUseAFreedSession(self):
        self.startStone()
        misuses = ctypes.CDLL(self.library.path).FakeGciTsMisuses
        before = misuses()
        for n in range(20):
            gem = GemSession(self.library, self.login, reactor, f"r{n}")
            yield gem.login()
            stop = threading.Event()

            def hammer(gem=gem, stop=stop):
                while not stop.is_set():
                    gem.interrupt(hard=False)
            breaker = threading.Thread(target=hammer)
            breaker.start()
            try:
                yield gem.logout()
            finally:
                stop.set()
                yield threads.deferToThread(breaker.join, 10)
        self.assertEqual(misuses(), before)

"""
Tests for the simulated stone (a test double, not GemStone), driven through
its C library exactly as the daemon drives libgcits: a few lines of ctypes
here, so these tests do not depend on the daemon's own binding.
"""

import ctypes
import json
import os
import tempfile
import threading
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.control import SimulatorControl
from gsmcpd.testing.simulator.launch import SimulatorStartError, launch
from gsmcpd.tools.templates.render import Template

MAX_RESULT = 1 << 20


class GciErrSType(ctypes.Structure):
    _fields_ = [
        ("category", ctypes.c_uint64), ("context", ctypes.c_uint64),
        ("exceptionObj", ctypes.c_uint64), ("args", ctypes.c_uint64 * 10),
        ("number", ctypes.c_int), ("argCount", ctypes.c_int),
        ("fatal", ctypes.c_ubyte), ("message", ctypes.c_char * 1025),
        ("reason", ctypes.c_char * 1025)]


def loadLibrary():
    lib = ctypes.CDLL(libraryPath())
    err = ctypes.POINTER(GciErrSType)
    lib.GciTsVersion.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.GciTsVersion.restype = ctypes.c_uint
    lib.GciTsLogin.argtypes = [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint, ctypes.c_int,
        ctypes.POINTER(ctypes.c_int), err]
    lib.GciTsLogin.restype = ctypes.c_void_p
    lib.GciTsLogout.argtypes = [ctypes.c_void_p, err]
    lib.GciTsExecuteFetchBytes.argtypes = [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ssize_t, ctypes.c_uint64, ctypes.c_uint64,
        ctypes.c_uint64, ctypes.c_char_p, ctypes.c_ssize_t, err]
    lib.GciTsExecuteFetchBytes.restype = ctypes.c_ssize_t
    lib.GciTsBreak.argtypes = [ctypes.c_void_p, ctypes.c_int, err]
    lib.GciTsCallInProgress.argtypes = [ctypes.c_void_p, err]
    lib.GciTsClearStack.argtypes = [ctypes.c_void_p, ctypes.c_uint64, err]
    lib.GciTsResolveSymbol.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64, err]
    lib.GciTsResolveSymbol.restype = ctypes.c_uint64
    lib.FakeGciTsMisuses.restype = ctypes.c_int
    return lib


class GciFailed(Exception):
    def __init__(self, err):
        super().__init__(err.number, err.message.decode())
        self.number, self.fatal = err.number, err.fatal
        self.message, self.context = err.message.decode(), err.context


class SimulatedStoneTests(SynchronousTestCase):
    """
    Each test gets its own simulated stone process.
    """

    lib = None

    def setUp(self):
        if SimulatedStoneTests.lib is None:
            SimulatedStoneTests.lib = loadLibrary()
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.directory = directory.name
        self.socketPath = os.path.join(directory.name, "stone.sock")
        self.addCleanup(launch(self.socketPath, maxLogins=4).stop)
        self.control = SimulatorControl(self.socketPath)

    def login(self, user=b"DataCurator", password=b"swordfish"):
        err, init = GciErrSType(), ctypes.c_int(7)
        session = self.lib.GciTsLogin(self.socketPath.encode(), None, None, 0, None, user,
                                      password, 0, 0, ctypes.byref(init), ctypes.byref(err))
        if not session:
            raise GciFailed(err)
        self.assertEqual(init.value, 0)
        self.addCleanup(self.lib.GciTsLogout, session, ctypes.byref(GciErrSType()))
        return session

    def resolve(self, session, name):
        err = GciErrSType()
        oop = self.lib.GciTsResolveSymbol(session, name.encode(), 0x14, ctypes.byref(err))
        if oop == 0x01:
            raise GciFailed(err)
        return oop

    def execute(self, session, source, sourceClass="Utf8", maxResult=MAX_RESULT):
        err, buffer = GciErrSType(), ctypes.create_string_buffer(maxResult + 1)
        data = source.encode()
        size = self.lib.GciTsExecuteFetchBytes(session, data, len(data),
                                               self.resolve(session, sourceClass), 0x01, 0x14,
                                               buffer, maxResult, ctypes.byref(err))
        if size < 0:
            raise GciFailed(err)
        return buffer.raw[:size]

    def template(self, session, name, **arguments):
        """
        Render template C{name} as the daemon does and answer the decoded JSON.
        """
        source = Template.named(name).render(arguments, MAX_RESULT)
        return json.loads(self.execute(session, source))

    def evaluate(self, session, code):
        return self.template(session, "execute_code", code=code, limit=1000)

    def printed(self, session, code):
        outcome = self.evaluate(session, code)
        self.assertNotIn("error", outcome)
        return outcome["result"]["text"]


class LoginTests(SimulatedStoneTests):

    def test_version(self):
        buffer = ctypes.create_string_buffer(128)
        self.assertEqual(self.lib.GciTsVersion(buffer, 128), 3)
        self.assertIn(b"simulated stone", buffer.value)
        self.assertTrue(buffer.value.startswith(b"3.7."))

    def test_sessionNumbersIncrease(self):
        first, second = self.login(), self.login()
        a = self.template(first, "status")["result"]
        b = self.template(second, "status")["result"]
        self.assertEqual(b["session"], a["session"] + 1)
        self.assertEqual((a["user"], a["stone"], a["inTransaction"]),
                         ("DataCurator", "gs64stone", True))

    def test_logout(self):
        err = GciErrSType()
        session = self.lib.GciTsLogin(self.socketPath.encode(), None, None, 0, None,
                                      b"DataCurator", b"swordfish", 0, 0, None,
                                      ctypes.byref(err))
        number = self.template(session, "status")["result"]["session"]
        self.assertEqual(self.lib.GciTsLogout(session, ctypes.byref(err)), 1)
        for _ in range(100):
            numbers = [s["session"] for s in self.control.call({"op": "sessions"})["sessions"]]
            if number not in numbers:
                break
            time.sleep(0.01)
        self.assertNotIn(number, numbers)

    def test_badPassword(self):
        e = self.assertRaises(GciFailed, self.login, password=b"wrong")
        self.assertEqual((e.number, e.fatal), (errors.LOGIN_DENIED, 1))
        self.assertIn("userId/password combination is invalid", e.message)

    def test_cap(self):
        self.control.call({"op": "maxLogins", "value": 2})
        self.login()
        self.login()
        e = self.assertRaises(GciFailed, self.login)
        self.assertEqual(e.number, errors.MAX_SESSIONS)
        self.assertIn("maximum number of users are already logged in", e.message)

    def test_noStone(self):
        err = GciErrSType()
        path = os.path.join(self.directory, "nothing.sock").encode()
        session = self.lib.GciTsLogin(path, None, None, 0, None, b"DataCurator",
                                      b"swordfish", 0, 0, None, ctypes.byref(err))
        self.assertFalse(session)
        self.assertEqual(err.number, errors.NO_SERVER)

    def test_anySource(self):
        """
        A source is a doit like any other: the stone runs it and answers
        what it evaluates to; one that does not compile fails the call.
        """
        session = self.login()
        self.assertEqual(self.execute(session, "3 + 4"), b"7")
        e = self.assertRaises(GciFailed, self.execute, session, "3 +")
        self.assertEqual((e.number, e.fatal), (errors.COMPILE_ERROR, 0))
        self.assertIn("line 1", e.message)


class EvaluationTests(SimulatedStoneTests):

    def test_executeCode(self):
        session = self.login()
        source = Template.named("execute_code").render({"code": "3 + 4", "limit": 100},
                                                       MAX_RESULT)
        self.assertEqual(self.execute(session, source),
                         b'{"result":{"total":1,"text":"7"},"needsCommit":false}')

    def test_limit(self):
        outcome = self.template(self.login(), "execute_code", code="'abcdef'", limit=3)
        self.assertEqual(outcome["result"], {"total": 8, "text": "'ab"})

    def test_printStrings(self):
        session = self.login()
        cases = {
            "7": "7", "'abc'": "'abc'", "'it''s'": "'it''s'", "#abc": "#abc",
            "#with:with:": "#with:with:", "$a": "$a", "nil": "nil", "true": "true",
            "#(1 2 3)": "anArray( 1, 2, 3)", "#()": "anArray( )", "3.5": "3.5",
            "1/3": "1/3", "6/3": "2", "(1/3) + (2/3)": "1", "100 factorial / 98 factorial": "9900",
            "2 raisedTo: 100": "1267650600228229401496703205376",
            "OrderedCollection new add: 1; add: 2; yourself": "anOrderedCollection( 1, 2)",
            "Array with: 1 with: $b": "anArray( 1, $b)", "(Array new: 2)": "anArray( nil, nil)",
            "'abc' reversed asUppercase": "'CBA'", "'abc' , 'def'": "'abcdef'",
            "#foo asString": "'foo'", "'foo' asSymbol": "#foo", "'foo bar' asSymbol": "#'foo bar'",
            "7 // 2": "3", "-7 \\\\ 2": "1", "3 max: 9": "9",
            "3 < 4 and: [4 > 5]": "false",
            "#(1 2 3) collect: [:x | x * x]": "anArray( 1, 4, 9)",
            "#(1 2 3 4) select: [:x | x \\\\ 2 = 0]": "anArray( 2, 4)",
            "#(1 2 3) inject: 0 into: [:a :b | a + b]": "6",
            "#(1 2 3) detect: [:x | x > 5] ifNone: ['none']": "'none'",
            "'hello' copyFrom: 2 to: 3": "'el'", "'abc' includes: $b": "true",
            "| s | s := 0. 1 to: 10 do: [:i | s := s + i]. s": "55",
            "| n | n := 0. [n < 5] whileTrue: [n := n + 1]. n": "5",
            "| n | n := 0. 3 timesRepeat: [n := n + 2]. n": "6",
            "[:x | x + 1] value: 41": "42", "#(3 1 2) isEmpty": "false",
            "3 > 2 ifTrue: ['yes'] ifFalse: ['no']": "'yes'",
            "'abc' asString": "'abc'", "#(1 $a 'b' #c) printString": "'anArray( 1, $a, ''b'', #c)'",
            "[:x | ^ x] value: 5. 6": "5",
            "{1 + 1. 'two'}": "anArray( 2, 'two')",
        }
        for code, expected in cases.items():
            self.assertEqual((code, self.printed(session, code)), (code, expected))

    def test_deepRecursion(self):
        code = ("| f | f := nil. f := [:n | n = 0 ifTrue: [0] ifFalse: [1 + (f value: n - 1)]]. "
                "f value: 1000")
        self.assertEqual(self.printed(self.login(), code), "1000")

    def test_messageNotUnderstood(self):
        outcome = self.evaluate(self.login(), "3 foo")
        self.assertEqual(outcome, {"error": {
            "number": 2010, "class": "MessageNotUnderstood",
            "message": "a MessageNotUnderstood occurred (error 2010), "
                       "a SmallInteger does not understand  #'foo' (simulated stone: not "
                       "in its kernel model, see docs/simulated-stone.rst)"},
            "needsCommit": False})

    def test_zeroDivide(self):
        error = self.evaluate(self.login(), "1/0")["error"]
        self.assertEqual((error["number"], error["class"]), (2026, "ZeroDivide"))
        self.assertIn("attempt to divide 1 by zero", error["message"])

    def test_handledError(self):
        self.assertEqual(
            self.printed(self.login(), "[1/0] on: ZeroDivide do: [:e | e return: 5]"), "5")

    def test_syntaxError(self):
        error = self.evaluate(self.login(), "3 +")["error"]
        self.assertEqual((error["number"], error["class"]), (1001, "CompileError"))
        self.assertIn("line 1", error["message"])
        self.assertIn("expected", error["message"])

    def test_undefinedVariable(self):
        error = self.evaluate(self.login(), "NoSuchThing + 1")["error"]
        self.assertEqual(error["number"], 1001)
        self.assertIn("undefined symbol  NoSuchThing", error["message"])

    def test_callInProgress(self):
        session = self.login()
        err = GciErrSType()
        self.assertEqual(self.lib.GciTsCallInProgress(session, ctypes.byref(err)), 0)
        self.assertEqual(self.lib.GciTsCallInProgress(None, ctypes.byref(err)), -1)


class TransactionTests(SimulatedStoneTests):

    def test_isolation(self):
        writer, reader = self.login(), self.login()
        # Prepared as the daemon prepares a session, so its commit is told
        # from an abort (#commitResult #readOnly before it).
        self.execute(writer, Template.named("open_session").render(
            {"name": "writer"}, MAX_RESULT))
        outcome = self.evaluate(writer, "UserGlobals at: #IsolationX put: 1")
        self.assertEqual(outcome, {"result": {"total": 1, "text": "1"}, "needsCommit": True})
        absent = "UserGlobals at: #IsolationX ifAbsent: ['absent']"
        self.assertEqual(self.printed(reader, absent), "'absent'")
        self.assertEqual(self.printed(writer, "IsolationX + 1"), "2")
        self.assertEqual(self.template(writer, "commit"),
                         {"result": {"committed": True, "conflicts": {}}, "needsCommit": False,
                          "viewMoved": True, "committed": True})
        self.assertEqual(self.printed(reader, absent), "'absent'")
        self.assertEqual(self.template(reader, "refresh")["result"],
                         {"refreshed": True, "writesCanCommit": True})
        self.assertEqual(self.printed(reader, absent), "1")

    def test_abort(self):
        session = self.login()
        self.evaluate(session, "UserGlobals at: #AbortX put: 1")
        self.assertEqual(self.template(session, "abort"),
                         {"result": {"aborted": True}, "needsCommit": False,
                          "viewMoved": True, "committed": False})
        self.assertEqual(
            self.printed(session, "UserGlobals at: #AbortX ifAbsent: [nil]"), "nil")

    def test_writeWriteConflict(self):
        first, second = self.login(), self.login()
        self.evaluate(first, "UserGlobals at: #ConflictX put: 1")
        self.evaluate(second, "UserGlobals at: #ConflictX put: 2")
        self.assertTrue(self.template(first, "commit")["result"]["committed"])
        self.assertEqual(self.template(second, "commit")["result"], {
            "committed": False, "conflicts": {"Write-Write": {"count": 2, "names": []}}})
        error = self.template(second, "refresh")["error"]
        self.assertEqual((error["number"], error["class"]), (2409, "TransactionError"))
        self.template(second, "abort")
        self.assertEqual(self.template(second, "refresh")["result"],
                         {"refreshed": True, "writesCanCommit": True})
        self.assertEqual(self.printed(second, "ConflictX"), "1")

    def test_commitsBehind(self):
        session = self.login()
        number = self.template(session, "status")["result"]["session"]

        def behind():
            for each in self.control.call({"op": "sessions"})["sessions"]:
                if each["session"] == number:
                    return each["commitsBehind"]

        self.assertEqual(behind(), 0)
        self.control.call({"op": "commitFromOutside", "key": "Outside", "value": 42})
        self.assertEqual(behind(), 1)
        self.assertEqual(self.printed(session, "System needsCommit"), "false")
        self.template(session, "refresh")
        self.assertEqual(behind(), 0)
        self.assertEqual(self.printed(session, "Outside"), "42")


class InterruptTests(SimulatedStoneTests):

    def breakLater(self, session, hard, delay=0.2):
        """
        Break C{session} from another thread after C{delay} seconds; answer
        a list that gets what GciTsCallInProgress said just before.
        """
        inProgress = []

        def breaker():
            time.sleep(delay)
            inProgress.append(self.lib.GciTsCallInProgress(session, ctypes.byref(GciErrSType())))
            self.lib.GciTsBreak(session, hard, ctypes.byref(GciErrSType()))
        thread = threading.Thread(target=breaker)
        thread.start()
        self.addCleanup(thread.join)
        return inProgress

    def test_softBreakEndsDelay(self):
        session = self.login()
        self.evaluate(session, "UserGlobals at: #BreakX put: 1")
        inProgress = self.breakLater(session, 0)
        started = time.monotonic()
        e = self.assertRaises(GciFailed, self.evaluate, session, "(Delay forSeconds: 5) wait")
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(inProgress, [1])
        self.assertEqual((e.number, e.fatal), (errors.SOFT_BREAK, 0))
        self.assertNotEqual(e.context, 0x14)
        self.assertTrue(self.lib.GciTsClearStack(session, e.context, ctypes.byref(GciErrSType())))
        # the session, its view and its uncommitted work survive
        self.assertEqual(self.printed(session, "BreakX"), "1")

    def test_hardBreakEndsLoop(self):
        session = self.login()
        self.breakLater(session, 1)
        e = self.assertRaises(GciFailed, self.evaluate, session, "[true] whileTrue")
        self.assertEqual(e.number, errors.HARD_BREAK)
        self.assertEqual(self.printed(session, "3 + 4"), "7")

    def test_breakBetweenCalls(self):
        session = self.login()
        self.assertTrue(self.lib.GciTsBreak(session, 0, ctypes.byref(GciErrSType())))
        self.assertEqual(self.printed(session, "3 + 4"), "7")

    def test_kill(self):
        session = self.login()
        number = self.template(session, "status")["result"]["session"]
        self.assertEqual(self.control.call({"op": "kill", "session": number}),
                         {"killed": True})
        e = self.assertRaises(GciFailed, self.evaluate, session, "3 + 4")
        self.assertEqual((e.number, e.fatal), (errors.SESSION_GONE, 1))
        self.assertIn("gem is gone", e.message)

    def test_killDuringCall(self):
        session = self.login()
        number = self.template(session, "status")["result"]["session"]
        killer = threading.Timer(0.2, self.control.call, [{"op": "kill", "session": number}])
        killer.start()
        self.addCleanup(killer.join)
        e = self.assertRaises(GciFailed, self.evaluate, session, "[true] whileTrue")
        self.assertEqual((e.number, e.fatal), (errors.SESSION_GONE, 1))


class LaunchTests(SynchronousTestCase):

    def setUp(self):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.socketPath = os.path.join(directory.name, "stone.sock")

    def test_bannerSaysTestDouble(self):
        stone = launch(self.socketPath)
        stone.stop()
        self.assertIn("a test double, not GemStone", stone.banner)
        self.assertFalse(os.path.exists(self.socketPath))

    def test_stopsWhenLauncherGoes(self):
        """
        Closing its stdin, as the launcher's death does, stops the stone.
        """
        stone = launch(self.socketPath)
        self.addCleanup(stone.stop)
        stone.process.stdin.close()
        self.assertEqual(stone.process.wait(5), 0)

    def test_refusesLiveSocket(self):
        stone = launch(self.socketPath)
        self.addCleanup(stone.stop)
        self.assertRaises(SimulatorStartError, launch, self.socketPath)
        self.assertEqual(SimulatorControl(self.socketPath).call({"op": "sessions"}),
                         {"sessions": []})

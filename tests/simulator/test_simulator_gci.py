"""
The simulated stone's libgcits is as strict as the 3.7 headers allow:
C{GciErrSType.context} is OOP_NIL when no process was left, and
GciTsClearStack refuses it; class OOPs come from GciTsResolveSymbol and are
not GemStone's; a logged-out handle is refused (the real library freed it),
and counted; a result over C{maxResultSize} is cut to its first bytes.
"""

import ctypes

from gsmcpd.testing.simulator import errors
from tests.simulator.test_simulator import GciErrSType, GciFailed, SimulatedStoneTests

OOP_ILLEGAL = 0x01
OOP_NIL = 0x14
GEMSTONE_OOP_CLASS_UTF8 = 154113


class StrictLibraryTests(SimulatedStoneTests):

    def clearStack(self, session, process):
        err = GciErrSType()
        if not self.lib.GciTsClearStack(session, process, ctypes.byref(err)):
            raise GciFailed(err)

    def test_noProcessIsNil(self):
        session = self.login()
        e = self.assertRaises(GciFailed, self.execute, session, "1 +")
        self.assertEqual(e.number, errors.COMPILE_ERROR)
        self.assertEqual(e.context, OOP_NIL)

    def test_clearStackRefusesNil(self):
        session = self.login()
        for process in (OOP_NIL, OOP_ILLEGAL, 0, 0x7E0F0001):
            e = self.assertRaises(GciFailed, self.clearStack, session, process)
            self.assertEqual((e.number, e.fatal), (errors.ARGUMENT_TYPE_ERROR, 0))
        self.assertEqual(self.printed(session, "3 + 4"), "7")

    def test_simulatorLimitEndsTheCall(self):
        """
        Building a billion elements ends the call with the simulator's own
        error, over the socket too; the session goes on.
        """
        session = self.login()
        e = self.assertRaises(GciFailed, self.execute, session, "(1 to: 1000000000) asArray")
        self.assertEqual((e.number, e.fatal, e.context), (0, 0, OOP_NIL))
        self.assertIn("the simulator builds at most", e.message)
        self.assertEqual(self.printed(session, "(1 to: 1000000000) size"), "1000000000")

    def test_resolveSymbol(self):
        session = self.login()
        utf8 = self.resolve(session, "Utf8")
        self.assertNotIn(utf8, (OOP_ILLEGAL, OOP_NIL, GEMSTONE_OOP_CLASS_UTF8))
        self.assertEqual(self.resolve(self.login(), "Utf8"), utf8)
        self.assertNotEqual(self.resolve(session, "String"), utf8)
        e = self.assertRaises(GciFailed, self.resolve, session, "NoSuchGlobal")
        self.assertEqual(e.fatal, 0)

    def test_resolveOnlyInTheUsersSymbolList(self):
        session = self.login()
        err = GciErrSType()
        self.assertEqual(self.lib.GciTsResolveSymbol(session, b"Utf8", 0x7E0F0001,
                                                     ctypes.byref(err)), OOP_ILLEGAL)
        self.assertEqual(err.reason, b"simulatorLimit")

    def test_sourceOopMustBeAStringClass(self):
        session = self.login()
        err, buffer = GciErrSType(), ctypes.create_string_buffer(64)
        for sourceOop in (GEMSTONE_OOP_CLASS_UTF8, OOP_NIL, self.resolve(session, "Object")):
            size = self.lib.GciTsExecuteFetchBytes(session, b"3", 1, sourceOop, OOP_ILLEGAL,
                                                   OOP_NIL, buffer, 64, ctypes.byref(err))
            self.assertEqual((size, err.number), (-1, errors.ARGUMENT_TYPE_ERROR))
            self.assertIn(b"sourceOop", err.message)

    def test_onlyAnonymousDoitsInTheUsersSymbolList(self):
        session = self.login()
        utf8 = self.resolve(session, "Utf8")
        err, buffer = GciErrSType(), ctypes.create_string_buffer(64)
        for context, symbolList in ((OOP_NIL, OOP_NIL), (OOP_ILLEGAL, 0x7E0F0001)):
            self.assertEqual(self.lib.GciTsExecuteFetchBytes(
                session, b"3", 1, utf8, context, symbolList, buffer, 64,
                ctypes.byref(err)), -1)
            self.assertEqual((err.number, err.reason), (errors.ARGUMENT_TYPE_ERROR,
                                                        b"simulatorLimit"))

    def test_negativeMaxResultSizeRefused(self):
        session = self.login()
        err, buffer = GciErrSType(), ctypes.create_string_buffer(64)
        self.assertEqual(self.lib.GciTsExecuteFetchBytes(
            session, b"3", 1, self.resolve(session, "Utf8"), OOP_ILLEGAL, OOP_NIL,
            buffer, -1, ctypes.byref(err)), -1)
        self.assertEqual((err.number, err.reason), (errors.ARGUMENT_TYPE_ERROR,
                                                    b"argumentType"))

    def test_sourceClassDecidesTheEncoding(self):
        session = self.login()
        self.assertEqual(self.execute(session, "'\u00e9' size", "Utf8"), b"1")
        self.assertEqual(self.execute(session, "'\u00e9' size", "String"), b"2")

    def test_resultCutToMaxResultSize(self):
        """
        GciTsExecuteFetchBytes's header says nothing of a larger result;
        its siblings answer the first bytes: so does this, without an
        error, and it writes nothing past them.
        """
        session = self.login()
        self.assertEqual(self.execute(session, "'abcdef'", maxResult=4), b"abcd")
        err, buffer = GciErrSType(), ctypes.create_string_buffer(b"\xff" * 8, 8)
        utf8 = self.resolve(session, "Utf8")
        self.assertEqual(self.lib.GciTsExecuteFetchBytes(
            session, b"'abcdef'", 8, utf8, OOP_ILLEGAL, OOP_NIL, buffer, 3,
            ctypes.byref(err)), 3)
        self.assertEqual(buffer.raw, b"abc\xff\xff\xff\xff\xff")

    def test_loggedOutHandleRefusedAndCounted(self):
        session = self.login()
        before = self.lib.FakeGciTsMisuses()
        self.assertTrue(self.lib.GciTsLogout(session, ctypes.byref(GciErrSType())))
        self.assertEqual(self.lib.FakeGciTsMisuses(), before)
        err = GciErrSType()
        self.assertFalse(self.lib.GciTsBreak(session, 0, ctypes.byref(err)))
        self.assertEqual((err.number, err.fatal, err.reason), (errors.SESSION_GONE, 1, b"loggedOut"))
        e = self.assertRaises(GciFailed, self.execute, session, "3")
        self.assertEqual(e.number, errors.SESSION_GONE)
        self.assertEqual(self.lib.FakeGciTsMisuses(), before + 2)

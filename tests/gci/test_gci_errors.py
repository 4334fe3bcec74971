"""
Tests for L{gsmcpd.gci.errors}: what a L{GciError} tells its callers, and
what it keeps from the client.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.gci.errors import HARD_BREAK, OOP_ILLEGAL, OOP_NIL, SOFT_BREAK, GciError


class GciErrorTests(SynchronousTestCase):

    def test_breaksAreOurs(self):
        """
        A break is the daemon interrupting a call, not the call failing.
        """
        self.assertTrue(GciError(SOFT_BREAK, "a Break occurred").isBreak)
        self.assertTrue(GciError(HARD_BREAK, "a Break occurred").isBreak)
        self.assertFalse(GciError(2101, "doesNotUnderstand").isBreak)

    def test_strLeavesTheReasonOut(self):
        """
        The reason may name hosts and NRS: it goes to the log, never into
        the text a client may be shown.
        """
        error = GciError(4100, "the gem died", fatal=True,
                         reason="!tcp@db.internal#server!gs64stone")
        self.assertEqual(str(error), "GemStone error 4100: the gem died")
        self.assertNotIn("db.internal", str(error))

    def test_defaults(self):
        error = GciError(2101, "x")
        self.assertEqual((error.fatal, error.reason, error.context),
                         (False, "", OOP_NIL))
        self.assertIsNone(error.suspendedProcess)

    def test_suspendedProcess(self):
        """
        C{GciErrSType.context} is OOP_NIL when the failure left no process
        (3.7 C{gci.ht} initialises it so), never a process to clear; nor is
        the 0 of a report nobody filled in.
        """
        self.assertEqual(GciError(6003, "x", context=0x10000100)
                         .suspendedProcess, 0x10000100)
        for none in (0, OOP_ILLEGAL, OOP_NIL):
            self.assertIsNone(GciError(1001, "x", context=none)
                              .suspendedProcess)

    def test_isAnException(self):
        self.assertRaises(GciError, self.raiseIt)

    def raiseIt(self):
        raise GciError(1, "one")

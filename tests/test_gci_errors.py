"""
Tests for L{gsmcpd.gci.errors}: what a L{GciError} tells its callers, and
what it keeps from the client.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.gci.errors import HARD_BREAK, SOFT_BREAK, GciError


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
                         (False, "", 0))

    def test_isAnException(self):
        self.assertRaises(GciError, self.raiseIt)

    def raiseIt(self):
        raise GciError(1, "one")

"""
The simulated stone's SessionTemps (L{gsmcpd.testing.simulator.sessiontemps}):
one per GemStone session, in no view, gone at logout.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import gem
from gsmcpd.testing.simulator.stone import Stone

PLANT = "SessionTemps current at: #k put: 1. "
LOOK = "(SessionTemps current at: #k ifAbsent: [0]) printString"


class SessionTempsTests(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login("DataCurator", "swordfish")

    def evaluate(self, source, session=None):
        return gem.answer(session or self.session, source).decode()

    def test_untouchedByAbortOrCommit(self):
        """
        What a session leaves in its SessionTemps outlives its transaction,
        aborted or committed: it is in no view.
        """
        self.evaluate(PLANT + "System abortTransaction")
        self.assertEqual(self.evaluate(LOOK), "1")
        self.evaluate("System commitTransaction")
        self.assertEqual(self.evaluate(LOOK), "1")

    def test_perSession(self):
        """
        Another session, of the same user, has its own.
        """
        self.evaluate(PLANT)
        other = self.stone.login("DataCurator", "swordfish")
        self.assertEqual(self.evaluate(LOOK, other), "0")

    def test_goneAtLogout(self):
        """
        A session logged in after another logged out starts with an empty
        one, whatever the other left.
        """
        self.evaluate(PLANT)
        self.stone.logout(self.session)
        again = self.stone.login("DataCurator", "swordfish")
        self.assertEqual(self.evaluate(LOOK, again), "0")

    def test_oneAndOfItsClass(self):
        """
        C{SessionTemps current} is the same object each time, a SessionTemps
        under SymbolKeyValueDictionary, printed as one.
        """
        self.assertEqual(self.evaluate(
            "{SessionTemps current == SessionTemps current. "
            "SessionTemps current class name. "
            "SessionTemps superclass name} printString"),
            "anArray( true, #SessionTemps, #SymbolKeyValueDictionary)")
        self.assertEqual(self.evaluate(
            PLANT + "SessionTemps current printString"),
            "aSessionTemps( #k->1)")

    def test_newIsAModelGap(self):
        """
        The model makes no SymbolKeyValueDictionary of its own (its
        Dictionary compares keys by equality, not by identity): asking
        for one fails loudly, never as a GemStone error.
        """
        for source in ("SymbolKeyValueDictionary new",
                       "SessionTemps new"):
            self.assertRaises(NotImplementedError, self.evaluate, source)

"""
Tests for L{gsmcpd.tools.templates.nearest}: the names a "not found"
message offers instead.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.templates.nearest import distance, nearest, withNearest


class DistanceTests(SynchronousTestCase):

    def test_edits(self):
        """
        Insertions, deletions and substitutions count one each.
        """
        self.assertEqual([distance(*each) for each in (
            ("Acount", "Account"), ("Account", "Acount"), ("Acount", "Amount"),
            ("", "abc"), ("abc", "abc"), ("Accuont", "Account"))],
            [1, 1, 1, 3, 0, 2])


class NearestTests(SynchronousTestCase):

    def test_nearestFirst(self):
        """
        The near names, nearest first, then by name; never the name itself
        or one too far.
        """
        self.assertEqual(
            nearest("Acount", ["Amount", "Account", "Acount", "Object", "Accounts"]),
            ["Account", "Amount", "Accounts"])

    def test_caseIgnoredFirst(self):
        """
        A name in the wrong case is nearest.
        """
        self.assertEqual(nearest("account", ["Accounts", "Account"]),
                         ["Account", "Accounts"])

    def test_reach(self):
        """
        A short name reaches one edit, a longer a third of its length, at
        most three; at most three names are given.
        """
        self.assertEqual(nearest("Foo", ["Fo", "F"]), ["Fo"])
        self.assertEqual(nearest("Transactionz", ["Transaction", "Trxnsxctixnz"]),
                         ["Transaction", "Trxnsxctixnz"])
        self.assertEqual(nearest("Transactionzz", ["Txxxsxction"]), [])
        self.assertEqual(nearest("ab", ["aa", "bb", "cb", "ac"]), ["aa", "ac", "bb"])

    def test_message(self):
        self.assertEqual(withNearest("Class not found: Acount.", "Acount",
                                     ["Account", "Object"]),
                         "Class not found: Acount. Nearest: Account.")
        self.assertEqual(withNearest("Not found.", "Zz", ["Object"]), "Not found.")

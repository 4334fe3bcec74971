"""
Tests for L{gsmcpd.daemon.shapes}: the shapes of the answers the daemon
reads from the templates it runs on its own.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.shapes import Mapping, described, isKind, mismatch


class ShapeTests(SynchronousTestCase):

    def test_kinds(self):
        self.assertTrue(isKind(int, 3))
        self.assertFalse(isKind(int, True))
        self.assertFalse(isKind(int, "3"))
        self.assertTrue(isKind(bool, False))
        self.assertTrue(isKind((int, None), None))
        self.assertTrue(isKind([str], []))
        self.assertTrue(isKind([str], ["a", "b"]))
        self.assertFalse(isKind([str], ["a", 2]))
        self.assertFalse(isKind([int], {"a": 1}))

    def test_mismatch(self):
        shape = {"session": int, "commitsBehind": (int, None)}
        self.assertIsNone(mismatch(shape, {"session": 1,
                                           "commitsBehind": None, "x": 1}))
        self.assertEqual(mismatch(shape, "a String"),
                         "the answer is not a dictionary: it is a string")
        self.assertEqual(
            mismatch(shape, {"session": "1"}),
            "session is not an integer: it is a string; commitsBehind is "
            "missing")
        self.assertEqual(mismatch(shape, {"session": 1, "commitsBehind": []}),
                         "commitsBehind is not an integer or nil: it is an "
                         "empty list")
        self.assertEqual(mismatch([str], [1]),
                         "the answer is not a list of strings: it is a list "
                         "of 1")

    def test_mismatchNeverShowsValues(self):
        """
        A wrong answer may hold a secret (a password not in its
        dictionary): a mismatch names its kinds, never its values.
        """
        for shape, value in [({"password": str}, "s3cret"),
                             ({"password": str}, {"password": ["s3cret"]}),
                             ({"password": str}, {"password": {"s3cret": 1}}),
                             ([int], ["s3cret"]), (str, {"s3cret": 1})]:
            self.assertNotIn("s3cret", mismatch(shape, value))

    def test_describedNeverShowsValues(self):
        self.assertEqual(described({"password": "s3cret", "n": 2}),
                         "n (an integer), password (a string)")
        self.assertEqual(described([]), "an empty list")
        self.assertEqual(described({}), "an empty dictionary")
        self.assertEqual(described({"a": [1], "b": None, "c": {}, "d": 1.5,
                                    "e": {"x": 1}}),
                         "a (a list of 1), b (nil), c (an empty dictionary), "
                         "d (a number), e (a dictionary of 1)")

    def test_mapping(self):
        """
        A dictionary of keys not known in advance (a commit's conflict
        kinds), each value of a shape; with C{least}, never empty.
        """
        conflicts = Mapping({"count": int, "names": [str]}, least=1)
        self.assertTrue(isKind(conflicts, {"Write-Write": {
            "count": 1, "names": []}}))
        self.assertFalse(isKind(conflicts, {}))
        self.assertTrue(isKind(Mapping(int), {}))
        self.assertFalse(isKind(conflicts, {"Write-Write": {"count": "1",
                                                            "names": []}}))
        self.assertFalse(isKind(conflicts, [{"count": 1, "names": []}]))
        self.assertEqual(
            mismatch({"conflicts": conflicts}, {"conflicts": {}}),
            "conflicts is not a dictionary of at least 1 dictionaries with "
            "count, names: it is an empty dictionary")

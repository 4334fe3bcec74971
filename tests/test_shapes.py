"""
Tests for L{gsmcpd.daemon.shapes}: the shapes of the answers the daemon
reads from the templates it runs on its own.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.shapes import described, isKind, mismatch


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
                         'the answer is not a dictionary: "a String"')
        self.assertEqual(
            mismatch(shape, {"session": "1"}),
            'session is not an integer: "1"; commitsBehind is missing')
        self.assertEqual(mismatch(shape, {"session": 1, "commitsBehind": []}),
                         "commitsBehind is not an integer or nil: []")
        self.assertEqual(mismatch([str], [1]),
                         "the answer is not a list of strings: [1]")

    def test_describedNeverShowsValues(self):
        self.assertEqual(described({"password": "s3cret", "n": 2}),
                         "n (an integer), password (a string)")
        self.assertEqual(described([]), "an empty list")
        self.assertEqual(described({}), "an empty dictionary")
        self.assertEqual(described({"a": [1], "b": None, "c": {}, "d": 1.5}),
                         "a (a list of 1), b (nil), c (a dictionary), "
                         "d (a number)")

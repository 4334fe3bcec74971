"""
Tests for L{gsmcpd.observe.clipping}: client-supplied values made fit for
a log line.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.clipping import clipped


class ClippedTests(SynchronousTestCase):

    def test_shortValuesWhole(self):
        self.assertEqual(clipped("reason"), "reason")
        self.assertEqual(clipped(7), "7")
        self.assertEqual(clipped({"name": "x"}), "{'name': 'x'}")

    def test_longValuesCut(self):
        text = clipped("i" * 1_000_000)
        self.assertEqual(text, "i" * 200 + "… (999800 more characters)")

    def test_reprCut(self):
        self.assertEqual(clipped(["a"] * 100, limit=10),
                         "['a', 'a',… (490 more characters)")

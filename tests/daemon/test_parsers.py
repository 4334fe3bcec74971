"""
Tests for L{gsmcpd.daemon.parsers}: the text an operator writes, and what
each setting makes of it.
"""

import os

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.parsers import (
    count,
    countOrNone,
    endpoint,
    parseFlag,
    positiveSecondsOrNone,
    seconds,
    secondsOrNone,
    secretFile,
    words,
)


class ParserTests(SynchronousTestCase):

    def test_endpoint(self):
        """
        A bare port is that port on loopback; anything else is left to
        Twisted's parser.
        """
        self.assertEqual(endpoint("40191"), "tcp:40191:interface=127.0.0.1")
        self.assertEqual(endpoint("ssl:8443:privateKey=k.pem"),
                         "ssl:8443:privateKey=k.pem")

    def test_count(self):
        self.assertEqual((count("0"), count("2")), (0, 2))
        for bad in ("-1", "none", "many"):
            self.assertRaises(ValueError, count, bad)

    def test_countOrNone(self):
        self.assertEqual(countOrNone("5"), 5)
        self.assertIsNone(countOrNone("None"))
        for bad in ("0", "-1", "many"):
            self.assertRaises(ValueError, countOrNone, bad)

    def test_seconds(self):
        self.assertEqual(seconds("0"), 0.0)
        self.assertEqual(seconds("2.5"), 2.5)
        for bad in ("-1", "soon", "none"):
            self.assertRaises(ValueError, seconds, bad)

    def test_secondsOrNone(self):
        self.assertIsNone(secondsOrNone(" none "))
        self.assertEqual(secondsOrNone("0"), 0.0)
        self.assertIn("or 'none'", str(self.assertRaises(
            ValueError, secondsOrNone, "soon")))

    def test_positiveSecondsOrNone(self):
        self.assertEqual(positiveSecondsOrNone("3"), 3.0)
        self.assertIsNone(positiveSecondsOrNone("none"))
        self.assertRaises(ValueError, positiveSecondsOrNone, "0")

    def test_words(self):
        self.assertEqual(words("a, b c"), ("a", "b", "c"))
        self.assertEqual(words(" "), ())

    def test_flagWords(self):
        self.assertEqual([parseFlag(w) for w in ("1", "TRUE", "on", "", "no")],
                         [True, True, True, False, False])
        self.assertRaises(ValueError, parseFlag, "maybe")

    def test_secretFile(self):
        self.assertIn("No such file", str(self.assertRaises(
            ValueError, secretFile, self.mktemp())))
        empty = self.mktemp()
        os.close(os.open(empty, os.O_WRONLY | os.O_CREAT, 0o600))
        self.assertEqual(str(self.assertRaises(ValueError, secretFile, empty)),
                         "the file is empty")

    def test_secretFileOthersMayRead(self):
        shared = self.mktemp()
        with open(shared, "w") as f:
            f.write("hunter2\n")
        os.chmod(shared, 0o640)
        self.assertIn("chmod 600", str(self.assertRaises(
            ValueError, secretFile, shared)))

"""
Tests for L{gsmcpd.observe.trace}: what a traced line holds and never
holds, rotation, reopening, and a queue that drops rather than waits.
"""

import json
import os

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.trace import (
    REDACTED, MessageTrace, RotatingFile, capped, messagesOf, redacted)


class RedactionTests(SynchronousTestCase):

    def test_secretFields(self):
        self.assertEqual(redacted({
            "password": "swordfish", "oneTimePassword": "123456",
            "access_token": "eyJ", "client_secret": "s", "apiKey": "k",
            "Authorization": "Bearer x", "otp": "1",
            "nested": [{"passwd": "p", "name": "ok"}],
            "_meta": {"progressToken": 7}, "emptyPassword": ""}), {
            "password": REDACTED, "oneTimePassword": REDACTED,
            "access_token": REDACTED, "client_secret": REDACTED,
            "apiKey": REDACTED, "Authorization": REDACTED, "otp": REDACTED,
            "nested": [{"passwd": REDACTED, "name": "ok"}],
            "_meta": {"progressToken": 7}, "emptyPassword": ""})

    def test_handlesCut(self):
        self.assertEqual(redacted({"arguments": {"session": "0123456789ab"}}),
                         {"arguments": {"session": "01234567…"}})
        self.assertEqual(redacted({"session": None}), {"session": None})

    def test_capped(self):
        self.assertEqual(capped("abcdef", 4), "abcd...(+2 more)")
        self.assertEqual(capped("abc", 4), "abc")
        self.assertEqual(capped("abc" * 9, None), "abc" * 9)

    def test_messagesOfAnEventStream(self):
        data = (b'event: message\nid: 1\ndata: {"jsonrpc":"2.0","id":1}\n\n'
                b'data: {"jsonrpc":"2.0","method":"x"}\n\n: keepalive\n\n')
        self.assertEqual(messagesOf(data, True), [
            {"jsonrpc": "2.0", "id": 1}, {"jsonrpc": "2.0", "method": "x"}])
        self.assertEqual(messagesOf(b"not json", False), ["not json"])
        self.assertEqual(messagesOf(b": primed\n\n", True), [])


class RotatingFileTests(SynchronousTestCase):

    def setUp(self):
        self.path = self.mktemp()

    def contents(self, suffix=""):
        with open(self.path + suffix, encoding="utf-8") as f:
            return f.read()

    def test_rotatesKeepingN(self):
        file = RotatingFile(self.path, 10, 2)
        for line in ("aaaaaa\n", "bbbbbb\n", "cccccc\n", "dddddd\n"):
            file.write(line)
        file.close()
        self.assertEqual((self.contents(), self.contents(".1"),
                          self.contents(".2")),
                         ("dddddd\n", "cccccc\n", "bbbbbb\n"))
        self.assertFalse(os.path.exists(self.path + ".3"))

    def test_private(self):
        RotatingFile(self.path, 10, 1).close()
        self.assertEqual(os.stat(self.path).st_mode & 0o777, 0o600)

    def test_keepNone(self):
        file = RotatingFile(self.path, 10, 0)
        for line in ("aaaaaa\n", "bbbbbb\n"):
            file.write(line)
        file.close()
        self.assertEqual(self.contents(), "bbbbbb\n")
        self.assertFalse(os.path.exists(self.path + ".1"))

    def test_oneLongLineIsWrittenWhole(self):
        file = RotatingFile(self.path, 4, 1)
        file.write("a long line\n")
        file.close()
        self.assertEqual(self.contents(), "a long line\n")

    def test_reopen(self):
        """
        After logrotate moved the file away, lines go to a new one.
        """
        file = RotatingFile(self.path, 1000, 1)
        file.write("before\n")
        os.rename(self.path, self.path + ".moved")
        file.reopen()
        file.write("after\n")
        file.close()
        self.assertEqual(self.contents(".moved"), "before\n")
        self.assertEqual(self.contents(), "after\n")


class MessageTraceTests(SynchronousTestCase):

    def setUp(self):
        self.path = self.mktemp()
        self.clock = Clock()
        self.clock.advance(1_800_000_000)
        self.trace = MessageTrace(RotatingFile(self.path, 10**6, 1),
                                  self.clock, maxBody=60, threaded=False,
                                  capacity=3)

    def lines(self):
        self.trace.drain()
        with open(self.path, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def test_line(self):
        self.trace.received("0123456789abcdef", json.dumps({
            "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                "name": "execute_code", "arguments": {
                    "code": "x := 1.\n" * 20}}}).encode(), secret="tok")
        [line] = self.lines()
        self.assertEqual(line["time"], "2027-01-15T08:00:00.000+00:00")
        self.assertEqual((line["session"], line["direction"], line["method"],
                          line["id"]),
                         ("01234567…", "in", "tools/call", 4))
        self.assertIn("...(+", line["body"])
        self.assertEqual(len(line["body"].split("...(+")[0]), 60)

    def test_secretStruckAnywhere(self):
        self.trace.answered(None, b'{"jsonrpc":"2.0","id":1,"result":'
                            b'{"text":"pasted sekrit-token here"}}', False,
                            secret="sekrit-token")
        self.trace.drain()
        with open(self.path, encoding="utf-8") as f:
            text = f.read()
        self.assertNotIn("sekrit-token", text)
        self.assertIn(REDACTED, text)

    def test_fullQueueDrops(self):
        """
        Past its capacity the queue drops, without waiting; the next line
        written says how many were lost.
        """
        for id in range(5):
            self.trace.received(None, b'{"jsonrpc":"2.0","id":%d}' % id)
        self.assertEqual(self.trace.dropped, 2)
        lines = self.lines()
        self.assertEqual([line["id"] for line in lines], [0, 1, 2])
        self.assertEqual(lines[0]["droppedBefore"], 2)
        self.assertNotIn("droppedBefore", lines[1])

    def test_reopenAndStopAlwaysQueued(self):
        for id in range(3):
            self.trace.received(None, b'{"jsonrpc":"2.0","id":%d}' % id)
        os.rename(self.path, self.path + ".moved")
        self.trace.reopen()
        self.trace.received(None, b'{"jsonrpc":"2.0","id":9}')
        self.assertEqual([line["id"] for line in self.lines()], [9])

    def test_threaded(self):
        """
        Started, the trace writes on its own thread; stopping it writes
        what is queued and closes the file.
        """
        trace = MessageTrace(RotatingFile(self.path, 10**6, 1), self.clock)
        trace.startService()
        trace.received(None, b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        trace.stopService()
        with open(self.path, encoding="utf-8") as f:
            self.assertEqual(json.loads(f.read())["method"], "ping")
        self.assertTrue(trace.file._file.closed)

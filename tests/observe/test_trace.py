"""
Tests for L{gsmcpd.observe.trace}: what a traced line holds and never
holds, rotation, reopening, and a queue that drops rather than waits.
"""

import base64
import json
import os
import random

from twisted.internet.task import Clock
from twisted.logger import LogLevel, globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.redaction import REDACTED
from gsmcpd.observe.trace import MessageTrace, RotatingFile, capped, messagesOf
from tests.observe.test_redaction import KEYS, SECRET, damaged


class FunctionsTests(SynchronousTestCase):

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

    def test_tornLineEnded(self):
        """
        A line the file took only part of is ended before the next one.
        """
        file = RotatingFile(self.path, 1000, 1)
        real = file._file
        file._file = _Partial(real, 3)
        self.assertRaises(OSError, file.write, "abcdef\n")
        file._file = real
        file.write("next\n")
        file.close()
        self.assertEqual(self.contents(), "abc\nnext\n")

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


class _Partial:
    """A file that takes C{limit} bytes, then fails as a full disk does."""

    def __init__(self, file, limit):
        self.file, self.limit = file, limit

    def write(self, data):
        if not self.limit:
            raise OSError(28, "No space left on device")
        taken = self.file.write(data[:self.limit])
        self.limit -= taken
        return taken


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

    def traced(self):
        self.trace.drain()
        with open(self.path, encoding="utf-8") as f:
            return f.read()

    def test_malformedBodyRedacted(self):
        """
        The repro: a body a trailing comma keeps from parsing holds a
        password, an access token and a one-time password; the trace holds
        none of them.
        """
        self.trace.maxBody = None
        self.trace.received(None, b'{"jsonrpc":"2.0","id":1,"method":'
                            b'"tools/call","params":{"name":"login",'
                            b'"arguments":{"password":"pw-Sw0rdf1sh",'
                            b'"access_token":"eyJ-tok","otp":"918273",}}}')
        text = self.traced()
        for secret in ("pw-Sw0rdf1sh", "eyJ-tok", "918273"):
            self.assertNotIn(secret, text)
        self.assertIn('\\"password\\":\\"[redacted]\\"', text)

    def test_malformedVariantsRedacted(self):
        """
        Damaged bodies of many shapes, as a body and as an event: no
        secret value reaches the file.
        """
        self.trace.maxBody = None
        rng = random.Random(5)
        for _ in range(300):
            body = damaged(rng, rng.choice(KEYS), SECRET).encode()
            self.trace.received(None, body)
            self.trace.answered(None, b"data: " + body.replace(
                b"\n", b" ") + b"\n\n", True)
            self.trace.drain()
        self.assertNotIn(SECRET, self.traced())

    def test_bytesNotUtf8InTheKey(self):
        self.trace.received(None, b'{"pass\xffwo\xfe\xferd":"pw-Sw0rdf1sh",')
        self.assertNotIn("pw-Sw0rdf1sh", self.traced())

    def test_jsonStringBodyRedacted(self):
        """
        A body that is JSON, but a string holding the object meant, is
        redacted by its text too.
        """
        self.trace.received(None, json.dumps(json.dumps(
            {"password": "pw-Sw0rdf1sh"})).encode())
        self.assertNotIn("pw-Sw0rdf1sh", self.traced())

    def test_handleInEveryHeaderForm(self):
        """
        Whichever form the session header took (plain, wrapped in base64,
        padded), the handle is cut in the line's C{session} and struck
        from the body, in any form the body holds it.
        """
        handle = "3f2a91c0d4e5b6a7c8d9e0f1a2b3c4d5e6"
        encoded = base64.b64encode(handle.encode()).decode()
        self.assertTrue(encoded.endswith("="))
        for header in (handle, f"=?base64?{encoded}?=",
                       f"=?base64?{encoded.rstrip('=')}?="):
            self.trace.answered(header, json.dumps({
                "jsonrpc": "2.0", "id": 1, "result": {"text": (
                    f"handle {handle}, or {encoded} or ={header}")}}).encode(),
                False)
        text = self.traced()
        self.assertNotIn(handle, text)
        self.assertNotIn(encoded.rstrip("="), text)
        self.assertEqual({json.loads(line)["session"]
                          for line in text.splitlines()}, {"3f2a91c0…"})

    def test_unwritableFileLogsOnce(self):
        """
        A file that takes nothing (C{/dev/full}): one critical line in the
        daemon's log, not one a message; every line lost is counted; the
        first line written after says the trace is written again.
        """
        logged = []
        globalLogPublisher.addObserver(logged.append)
        self.addCleanup(globalLogPublisher.removeObserver, logged.append)
        trace = MessageTrace(RotatingFile("/dev/full", 10**6, 1), self.clock,
                             threaded=False)
        for id in range(200):
            trace.received(None, b'{"jsonrpc":"2.0","id":%d}' % id)
            trace.answered(None, b'data: {"id":%d}\n\ndata: {}\n\n' % id,
                           True)
            trace.drain()
        self.assertEqual((trace.unwritten, trace.lost), (600, 600))
        self.assertEqual(
            [e["log_level"] for e in logged
             if e.get("log_namespace", "").endswith("MessageTrace")],
            [LogLevel.critical])
        self.assertIsNotNone(trace.failure)
        trace.file.close()
        trace.file = RotatingFile(self.path, 10**6, 1)
        trace.received(None, b'{"jsonrpc":"2.0","id":1}')
        trace.drain()
        self.assertIsNone(trace.failure)
        self.assertEqual(len(logged), 2)

    def test_lostCountsDrops(self):
        for id in range(5):
            self.trace.received(None, b'{"jsonrpc":"2.0","id":%d}' % id)
        self.assertEqual(self.trace.lost, 2)

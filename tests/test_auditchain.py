"""
The audit trail's hash chain: written line by line, across a reopen, and
verified.
"""

import json
import os

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.auditchain import (
    NOTHING, PREVIOUS_KEY, chainStart, lastLine, lineDigest, verify)
from tests.test_audit import ran


class ChainTests(SynchronousTestCase):

    def setUp(self):
        self.path = self.mktemp()

    def write(self, *tools, path=None):
        audit = AuditLog.toFile(path or self.path, "DataCurator")
        for tool in tools:
            ran(audit, tool, anonymous=True)
        return audit

    def lines(self, path=None):
        with open(path or self.path, "rb") as f:
            return f.read().splitlines()

    def test_eachLineNamesTheOneBefore(self):
        """
        The first line of a new trail names the digest of nothing; each
        after it, the SHA-256 of the line before it.
        """
        self.write("status", "abort", "status").close()
        lines = self.lines()
        named = [json.loads(line)[PREVIOUS_KEY] for line in lines]
        self.assertEqual(named, [NOTHING] + [lineDigest(line)
                                             for line in lines[:-1]])
        self.assertIsNone(verify([self.path]))

    def test_restartContinuesTheFile(self):
        """
        A restart's C{auditOpened} line names the last line before it.
        """
        self.write("status").close()
        self.write("abort").close()
        lines = self.lines()
        self.assertEqual([json.loads(line)["event"] for line in lines],
                         ["auditOpened", "toolCall"] * 2)
        self.assertEqual(json.loads(lines[2])[PREVIOUS_KEY],
                         lineDigest(lines[1]))

    def test_reopenAfterRotationContinuesTheChain(self):
        """
        After a rename and a reopen, the new file's first line names the
        rotated file's last: the two verify as one trail, in order.
        """
        audit = self.write("status", "abort")
        self.addCleanup(audit.close)
        os.rename(self.path, self.path + ".1")
        audit.reopen()
        ran(audit, "status", anonymous=True)
        opened, status = self.lines()
        self.assertEqual(json.loads(opened)[PREVIOUS_KEY],
                         lineDigest(self.lines(self.path + ".1")[-1]))
        self.assertIsNone(verify([self.path + ".1", self.path]))
        self.assertIn(":1: breaks", verify([self.path, self.path + ".1"]))

    def rewrite(self, lines):
        with open(self.path, "wb") as f:
            f.write(b"".join(line + b"\n" for line in lines))

    def test_removedLineBreaksTheChain(self):
        self.write("status", "abort", "status", "abort").close()
        lines = self.lines()
        self.rewrite(lines[:2] + lines[3:])
        self.assertEqual(verify([self.path]).split(": ")[:2],
                         [f"{self.path}:3", "breaks the chain"])

    def test_editedLineBreaksTheChainAfterIt(self):
        self.write("status", "abort", "status").close()
        lines = self.lines()
        lines[2] = lines[2].replace(b'"abort"', b'"commit"')
        self.rewrite(lines)
        self.assertTrue(verify([self.path]).startswith(f"{self.path}:4: "))

    def test_notAnAuditLine(self):
        self.write("status").close()
        with open(self.path, "ab") as f:
            f.write(b"[1]\n")
        self.assertEqual(verify([self.path]), f"{self.path}:3: not an audit "
                         f"line carrying {PREVIOUS_KEY}")


class TornLineTests(SynchronousTestCase):

    def test_partLineNamed(self):
        """
        A line the disk took only part of before it filled stays in the
        file: once the trail is written again, its next line names the
        torn one, and C{verify} points at it.
        """
        path = self.mktemp()
        audit = AuditLog.toFile(path)
        audit.close()
        with open(path, "ab") as f:
            f.write(b'{"event": "toolCall", "previo')
        audit = AuditLog.toFile(path)
        audit.close()
        self.assertEqual(verify([path]), f"{path}:2: not an audit line "
                         f"carrying {PREVIOUS_KEY}")
        with open(path, "rb") as f:
            torn, opened = f.read().splitlines()[1:]
        self.assertEqual(json.loads(opened)[PREVIOUS_KEY], lineDigest(torn))


class LastLineTests(SynchronousTestCase):

    def tail(self, data):
        path = self.mktemp()
        with open(path, "wb") as f:
            f.write(data)
        with open(path, "rb") as f:
            return lastLine(f)

    def test_lastLine(self):
        long = b"x" * 20_000
        for data, expected in ((b"", None), (b"a\n", b"a"), (b"a", b"a"),
                               (b"a\nb\n", b"b"), (b"a\nb", b"b"),
                               (long + b"\n" + long + b"\n", long),
                               (b"a\n" + long, long)):
            self.assertEqual(self.tail(data), expected, data[:10])

    def test_chainStart(self):
        path = self.mktemp()
        open(path, "wb").close()
        self.assertEqual(chainStart(path, "before"), ("before", False))
        with open(path, "wb") as f:
            f.write(b"a\n")
        self.assertEqual(chainStart(path), (lineDigest(b"a"), False))
        with open(path, "ab") as f:
            f.write(b"b")
        self.assertEqual(chainStart(path), (lineDigest(b"b"), True))

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
from tests.test_audit import _Session, ok


class ChainTests(SynchronousTestCase):

    def setUp(self):
        self.path = self.mktemp()

    def write(self, *tools, path=None):
        audit = AuditLog.toFile(path or self.path, "DataCurator")
        for tool in tools:
            audit.toolCall(session=_Session(principal=None), tool=tool,
                           arguments={}, response=ok(), seconds=0.0)
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
        self.write("status").close()
        self.write("abort").close()
        first, second = self.lines()
        self.assertEqual(json.loads(second)[PREVIOUS_KEY], lineDigest(first))

    def test_reopenAfterRotationContinuesTheChain(self):
        """
        After a rename and a reopen, the new file's first line names the
        rotated file's last: the two verify as one trail, in order.
        """
        audit = self.write("status", "abort")
        self.addCleanup(audit.close)
        os.rename(self.path, self.path + ".1")
        audit.reopen()
        audit.toolCall(session=_Session(principal=None), tool="status",
                       arguments={}, response=ok(), seconds=0.0)
        [first] = self.lines()
        self.assertEqual(json.loads(first)[PREVIOUS_KEY],
                         lineDigest(self.lines(self.path + ".1")[-1]))
        self.assertIsNone(verify([self.path + ".1", self.path]))
        self.assertIn(":1: breaks", verify([self.path, self.path + ".1"]))

    def rewrite(self, lines):
        with open(self.path, "wb") as f:
            f.write(b"".join(line + b"\n" for line in lines))

    def test_removedLineBreaksTheChain(self):
        self.write("status", "abort", "status", "abort").close()
        lines = self.lines()
        self.rewrite(lines[:1] + lines[2:])
        self.assertEqual(verify([self.path]).split(": ")[:2],
                         [f"{self.path}:2", "breaks the chain"])

    def test_editedLineBreaksTheChainAfterIt(self):
        self.write("status", "abort", "status").close()
        lines = self.lines()
        lines[1] = lines[1].replace(b'"abort"', b'"commit"')
        self.rewrite(lines)
        self.assertTrue(verify([self.path]).startswith(f"{self.path}:3: "))

    def test_notAnAuditLine(self):
        self.write("status").close()
        with open(self.path, "ab") as f:
            f.write(b"[1]\n")
        self.assertEqual(verify([self.path]), f"{self.path}:2: not an audit "
                         f"line carrying {PREVIOUS_KEY}")


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
        self.assertEqual(chainStart(path, "before"), "before")
        with open(path, "wb") as f:
            f.write(b"a\n")
        self.assertEqual(chainStart(path), lineDigest(b"a"))

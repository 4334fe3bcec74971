"""
The audit trail's hash chain: written line by line, across a reopen, and
verified.
"""

import json
import os

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.auditchain import (
    GENESIS,
    KEYED_PREVIOUS_KEY,
    PREVIOUS_KEY,
    OtherChain,
    chainStart,
    lastLine,
    lineDigest,
    verify,
)
from tests.observe.test_audit import ran


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
        self.assertEqual(named, [GENESIS] + [lineDigest(line)
                                             for line in lines[:-1]])
        self.assertIsNone(verify([self.path])[0])

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
        self.assertIsNone(verify([self.path + ".1", self.path])[0])
        self.assertIn(":1: the head of file 2", verify(
            [self.path, self.path + ".1"])[0])
        self.assertEqual([json.loads(line)["file"] for line in (
            self.lines(self.path + ".1")[0], opened)], [1, 2])

    def rewrite(self, lines):
        with open(self.path, "wb") as f:
            f.write(b"".join(line + b"\n" for line in lines))

    def test_removedLineBreaksTheChain(self):
        self.write("status", "abort", "status", "abort").close()
        lines = self.lines()
        self.rewrite(lines[:2] + lines[3:])
        self.assertEqual(verify([self.path])[0].split(": ")[:2],
                         [f"{self.path}:3", "breaks the chain"])

    def test_editedLineBreaksTheChainAfterIt(self):
        self.write("status", "abort", "status").close()
        lines = self.lines()
        lines[2] = lines[2].replace(b'"abort"', b'"commit"')
        self.rewrite(lines)
        self.assertTrue(verify([self.path])[0].startswith(f"{self.path}:4: "))

    def test_notAnAuditLine(self):
        self.write("status").close()
        with open(self.path, "ab") as f:
            f.write(b"[1]\n")
        self.assertEqual(verify([self.path])[0], f"{self.path}:3: not an "
                         f"audit line carrying {PREVIOUS_KEY}")


class _Trail:

    def setUp(self):
        self.path = self.mktemp()

    def trail(self, files=3, key=None):
        """
        A trail of C{files} files rotated as logrotate does, oldest first.
        """
        path = self.path
        audit = AuditLog.toFile(path, "DataCurator", key=key)
        self.addCleanup(audit.close)
        for index in range(files):
            for tool in ("status", "abort", "status"):
                ran(audit, tool, anonymous=True)
            if index < files - 1:
                for number in range(index, 0, -1):
                    os.rename(f"{path}.{number}", f"{path}.{number + 1}")
                os.rename(path, f"{path}.1")
                audit.reopen()
        return [f"{path}.{number}" for number in range(files - 1, 0, -1)
                ] + [path]

    def cut(self, path, lines):
        with open(path, "rb") as f:
            kept = f.readlines()[lines:]
        with open(path, "wb") as f:
            f.writelines(kept)


class HeadTests(_Trail, SynchronousTestCase):
    """
    Each file starts with its head: a trail cut at its head, or missing
    its first files, does not verify.
    """

    def test_trailHolds(self):
        paths = self.trail()
        broken, last = verify(paths)
        self.assertIsNone(broken)
        with open(self.path, "rb") as f:
            self.assertEqual(last, lineDigest(f.read().splitlines()[-1]))

    def test_cutHead(self):
        """
        The repro: the first line, or the first five, deleted.
        """
        for lines in (1, 5):
            paths = self.trail()
            self.cut(paths[0], lines)
            self.assertIn(f"{paths[0]}:1: not the head of a trail file",
                          verify(paths)[0])

    def test_cutHeadOfALaterFile(self):
        paths = self.trail()
        self.cut(paths[1], 1)
        self.assertTrue(verify(paths)[0].startswith(f"{paths[1]}:1: "))

    def test_firstFilesMissing(self):
        """
        The newer files alone are not a trail; with C{continues} naming
        the last digest of the files before them, they are.
        """
        paths = self.trail()
        self.assertIn("the head of file 2 of its trail, continuing",
                      verify(paths[1:])[0])
        before = verify(paths[:1])[1]
        self.assertIsNone(verify(paths[1:], continues=before)[0])
        self.assertIn("not " + "0" * 64,
                      verify(paths[1:], continues="0" * 64)[0])

    def test_fileSkipped(self):
        paths = self.trail()
        self.assertIn("breaks the chain", verify(paths[::2])[0])

    def test_emptyFile(self):
        open(self.path, "wb").close()
        self.assertEqual(verify([self.path])[0],
                         f"{self.path}: empty, not a file of an audit trail")

    def test_restartOnARotatedFileContinues(self):
        """
        A daemon started on an empty file whose C{.1} logrotate left
        continues that file's chain.
        """
        audit = AuditLog.toFile(self.path, "DataCurator")
        ran(audit, "status", anonymous=True)
        audit.close()
        os.rename(self.path, self.path + ".1")
        AuditLog.toFile(self.path, "DataCurator").close()
        self.assertIsNone(verify([self.path + ".1", self.path])[0])

    def test_reopenInPlaceKeepsTheNumber(self):
        audit = AuditLog.toFile(self.path, "DataCurator")
        audit.reopen()
        audit.close()
        with open(self.path, "rb") as f:
            self.assertEqual([json.loads(line)["file"] for line in f], [1, 1])
        self.assertIsNone(verify([self.path])[0])


class OtherChainTests(_Trail, SynchronousTestCase):
    """
    A key given or dropped: never a trail whose lines are chained two
    ways.
    """

    def test_keyGivenOnAnUnkeyedFile(self):
        self.trail(files=1)
        self.assertRaises(OtherChain, AuditLog.toFile, self.path, key=b"k")

    def test_keyDroppedOnAKeyedFile(self):
        self.trail(files=1, key=b"k")
        self.assertRaises(OtherChain, AuditLog.toFile, self.path)

    def test_rotatedFileOfTheOtherKindStartsANewTrail(self):
        """
        Started with a key on an empty file whose C{.1} has none, the
        daemon starts a new trail, which verifies with the key alone.
        """
        self.trail(files=1)
        os.rename(self.path, self.path + ".1")
        AuditLog.toFile(self.path, key=b"k").close()
        self.assertIsNone(verify([self.path], b"k")[0])
        self.assertIsNone(verify([self.path + ".1"])[0])

    def test_reopenOnAFileOfTheOtherKindKeepsTheFile(self):
        audit = AuditLog.toFile(self.path, key=b"k")
        self.addCleanup(audit.close)
        os.rename(self.path, self.path + ".keyed")
        self.trail(files=1)
        audit.reopen()
        ran(audit, "status", anonymous=True)
        self.assertIsNone(verify([self.path + ".keyed"], b"k")[0])


def rechained(path, digest, named):
    """
    Edit C{path}'s second line and hash every line after it again with
    C{digest}, as whoever edits a trail would.
    """
    with open(path, "rb") as f:
        records = [json.loads(line) for line in f]
    records[1]["tool"] = "innocent"
    previous, lines = None, []
    for record in records:
        record.pop(PREVIOUS_KEY, None)
        record.pop(KEYED_PREVIOUS_KEY, None)
        record[named] = previous or GENESIS
        line = json.dumps(record).encode()
        lines.append(line + b"\n")
        previous = digest(line)
    with open(path, "wb") as f:
        f.writelines(lines)


class KeyedChainTests(_Trail, SynchronousTestCase):
    """
    With a key, an edit whose editor hashed every later line again is
    caught; without one, it is not (which is what the key is for).
    """

    KEY = b"s3cret-audit-key"

    def test_keyedTrailHolds(self):
        paths = self.trail(key=self.KEY)
        self.assertIsNone(verify(paths, self.KEY)[0])
        with open(paths[0], "rb") as f:
            self.assertIn(KEYED_PREVIOUS_KEY, json.loads(f.readline()))
        self.assertIn("give the trail's key", verify(paths)[0])
        self.assertIn("breaks the chain", verify(paths, b"guess")[0])

    def test_recomputedWithoutTheKey(self):
        paths = self.trail(files=1, key=self.KEY)
        rechained(paths[0], lineDigest, KEYED_PREVIOUS_KEY)
        self.assertIn(f"{paths[0]}:2: breaks the chain",
                      verify(paths, self.KEY)[0])
        rechained(paths[0], lambda line: lineDigest(line, b"guess"),
                  KEYED_PREVIOUS_KEY)
        self.assertIn(f"{paths[0]}:2: breaks the chain",
                      verify(paths, self.KEY)[0])

    def test_unkeyedRecomputedHolds(self):
        paths = self.trail(files=1)
        rechained(paths[0], lineDigest, PREVIOUS_KEY)
        self.assertIsNone(verify(paths)[0])
        self.assertIn("this trail has no key", verify(paths, self.KEY)[0])


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
        self.assertEqual(verify([path])[0], f"{path}:2: not an audit line "
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
        self.assertIsNone(chainStart(path))
        head = b'{"event": "auditOpened", "file": 3}'
        with open(path, "wb") as f:
            f.write(head + b"\n")
        self.assertEqual(chainStart(path), (lineDigest(head), False, 3))
        with open(path, "ab") as f:
            f.write(b"b")
        self.assertEqual(chainStart(path), (lineDigest(b"b"), True, 3))
        self.assertEqual(chainStart(path, b"k"),
                         (lineDigest(b"b", b"k"), True, 3))
        with open(path, "wb") as f:
            f.write(b"a\n")
        self.assertEqual(chainStart(path), (lineDigest(b"a"), False, None))

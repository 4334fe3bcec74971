"""
Tests for L{gsmcpd.observe.auditfile}: the audit trail's file knows
whether it can be written, says so once, and recovers on a reopen.
"""

import errno
import json
import os

from twisted.logger import Logger, LogLevel, capturedLogs, formatEvent
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.auditchain import GENESIS, PREVIOUS_KEY, verify
from gsmcpd.observe.auditfile import AUDIT_NAMESPACE, AuditFile, described


class Disk:
    """
    Opens real files whose writes (or flushes) fail while C{full}, as a
    disk that fills up and is freed again.
    """

    def __init__(self, failing="write", error=errno.ENOSPC):
        self.full = False
        self.failing = failing
        self.error = error
        self.opened = []

    def open(self, path):
        file = DiskFile(self, open(path, "ab", buffering=0))
        self.opened.append(file)
        return file

    def refuse(self, step):
        if self.full and self.failing == step:
            raise OSError(self.error, os.strerror(self.error))


class DiskFile:

    def __init__(self, disk, file):
        self.disk = disk
        self.file = file

    def write(self, data):
        self.disk.refuse("write")
        return self.file.write(data)

    def flush(self):
        self.disk.refuse("flush")

    def close(self):
        self.file.close()

    @property
    def closed(self):
        return self.file.closed


def emit(trail, **fields):
    """
    One audit event into C{trail}, as the audit's logger makes it.
    """
    Logger(namespace=AUDIT_NAMESPACE, observer=trail).info(
        "an event {n}", event="toolCall", **fields)


class AuditFileTests(SynchronousTestCase):

    def setUp(self):
        self.path = self.mktemp()
        self.disk = Disk()

    def lines(self):
        with open(self.path, "rb") as f:
            return [json.loads(line) for line in f]

    def trail(self):
        trail = AuditFile(self.path, self.disk.open)
        self.addCleanup(trail.close)
        return trail

    def test_openedLineFirst(self):
        """
        Opening the file writes and flushes an C{auditOpened} line before
        any event, in the chain like every line.
        """
        trail = self.trail()
        emit(trail, n=1)
        opened, event = self.lines()
        self.assertEqual(
            (opened["event"], opened["cause"], opened["unwritten"],
             opened[PREVIOUS_KEY]), ("auditOpened", "start", 0, GENESIS))
        self.assertEqual(event["n"], 1)
        self.assertIsNone(verify([self.path])[0])
        self.assertIsNone(trail.failure)

    def test_failedWriteNeverRaises(self):
        """
        A write that fails fails the trail, with the file and the OS error
        as the reason, in one critical line however many events follow;
        each event goes to the daemon's log instead, and is counted.
        """
        trail = self.trail()
        self.disk.full = True
        with capturedLogs() as logged:
            for n in range(5):
                emit(trail, n=n)
        self.assertEqual(trail.failure,
                         f"{self.path}: No space left on device (ENOSPC)")
        critical = [e for e in logged if e["log_level"] is LogLevel.critical]
        self.assertEqual(len(critical), 1)
        self.assertEqual(critical[0]["reason"], trail.failure)
        self.assertIn("SIGHUP", critical[0]["log_format"])
        instead = [e for e in logged if e.get("auditUnwritten")]
        self.assertEqual([e["n"] for e in instead], list(range(5)))
        self.assertEqual({e["log_level"] for e in instead}, {LogLevel.warn})
        self.assertEqual(trail.unwritten, 5)
        self.assertEqual([e["event"] for e in self.lines()], ["auditOpened"])

    def test_failedFlush(self):
        """
        A flush that fails (an I/O error) fails the trail too.
        """
        self.disk = Disk("flush", errno.EIO)
        trail = self.trail()
        self.disk.full = True
        with capturedLogs():
            emit(trail, n=1)
        self.assertEqual(trail.failure, f"{self.path}: Input/output error "
                         "(EIO)")
        self.assertEqual(trail.unwritten, 1)

    def test_failedBeforeTheFirstEvent(self):
        """
        A file that cannot take its C{auditOpened} line is failed from
        the start.
        """
        self.disk.full = True
        with capturedLogs() as logged:
            trail = self.trail()
        self.assertIn("ENOSPC", trail.failure)
        self.assertEqual(len(logged), 1)
        self.assertEqual(trail.unwritten, 0)

    def test_devFull(self):
        """
        C{/dev/full}, for real: opened, and failed before any event.
        """
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full here")
        with capturedLogs():
            trail = AuditFile("/dev/full")
        self.addCleanup(trail.close)
        self.assertEqual(trail.failure,
                         "/dev/full: No space left on device (ENOSPC)")

    def test_cannotOpen(self):
        """
        A path that cannot be opened at all is refused at once: the
        setting is wrong, and the daemon does not start.
        """
        os.mkdir(self.path)
        self.assertRaises(IsADirectoryError, AuditFile, self.path)

    def test_reopenAfterSpaceFreedRecovers(self):
        """
        Once space is freed, a reopen writes its C{auditOpened} line, which
        counts the events the file missed, clears the failure, and the
        chain runs on unbroken.
        """
        trail = self.trail()
        emit(trail, n=1)
        self.disk.full = True
        with capturedLogs():
            emit(trail, n=2)
            emit(trail, n=3)
        self.disk.full = False
        with capturedLogs() as logged:
            trail.reopen()
        self.assertIsNone(trail.failure)
        self.assertIn("written again", logged[0]["log_format"])
        emit(trail, n=4)
        lines = self.lines()
        self.assertEqual(
            [(e["event"], e.get("cause"), e.get("unwritten"), e.get("n"))
             for e in lines],
            [("auditOpened", "start", 0, None), ("toolCall", None, None, 1),
             ("auditOpened", "reopen", 2, None),
             ("toolCall", None, None, 4)])
        self.assertIsNone(verify([self.path])[0])
        self.assertTrue(self.disk.opened[0].closed)
        self.assertEqual(trail.unwritten, 2)

    def test_failedReopenKeepsTheFailure(self):
        """
        A reopen onto a disk still full keeps the trail failed, and the
        file it had.
        """
        trail = self.trail()
        self.disk.full = True
        with capturedLogs():
            emit(trail, n=1)
            reason = trail.failure
        with capturedLogs() as logged:
            trail.reopen()
        self.assertEqual(trail.failure, reason)
        self.assertIn("stays failed", formatEvent(logged[0]))
        first, second = self.disk.opened
        self.assertEqual((first.closed, second.closed), (False, True))

    def test_reopenThatCannotOpenKeepsTheFile(self):
        """
        A healthy trail whose path cannot be opened again writes on to the
        file it has.
        """
        trail = self.trail()
        os.rename(self.path, self.path + ".1")
        os.mkdir(self.path)
        with capturedLogs() as logged:
            trail.reopen()
        self.assertIn("still writing", formatEvent(logged[0]))
        emit(trail, n=1)
        self.assertIsNone(trail.failure)
        with open(self.path + ".1") as f:
            self.assertEqual(json.loads(f.readlines()[-1])["n"], 1)

    def test_unreadableForTheChainAtStart(self):
        """
        A file that opens for appending but whose last line cannot be
        read is refused at start too, and closed.
        """
        opened = []

        def opener(path):
            opened.append(open(os.devnull, "ab", buffering=0))
            return opened[-1]

        self.assertRaises(FileNotFoundError, AuditFile, self.path, opener)
        self.assertTrue(opened[0].closed)


class ShortWrites:
    """
    A file that takes at most C{each} bytes a write, then nothing.
    """

    def __init__(self, each, total):
        self.each = each
        self.left = total
        self.data = b""

    def write(self, data):
        taken = bytes(data[:min(self.each, self.left)])
        self.left -= len(taken)
        self.data += taken
        return len(taken)

    def flush(self):
        pass

    def close(self):
        pass


class ShortWriteTests(SynchronousTestCase):

    def trail(self, file):
        path = self.mktemp()
        open(path, "wb").close()
        return AuditFile(path, lambda path: file)

    def test_restWritten(self):
        """
        An unbuffered file may take part of a line: the rest follows.
        """
        file = ShortWrites(7, 10_000)
        trail = self.trail(file)
        emit(trail, n=1)
        self.assertIsNone(trail.failure)
        self.assertEqual([json.loads(line)["event"] for line in
                          file.data.splitlines()], ["auditOpened", "toolCall"])

    def test_nothingTakenFails(self):
        """
        A file that stops taking bytes mid-line fails the trail rather
        than looping.
        """
        file = ShortWrites(7, 10)
        with capturedLogs():
            trail = self.trail(file)
        self.assertEqual(trail.failure.split(": ", 1)[1],
                         "the file took no bytes (EIO)")


class DescribedTests(SynchronousTestCase):

    def test_noErrno(self):
        self.assertEqual(described(OSError("odd")), "odd")

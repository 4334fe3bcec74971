"""
Tests for L{gsmcpd.daemon.recording}: the session C{gsmcpd check
--templates} runs on, noting which template each source is.
"""

from twisted.internet.defer import succeed
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.recording import Recording


class _Gem:
    def __init__(self):
        self.sent = []

    def execute(self, source, maxBytes):
        self.sent.append(source)
        return succeed(b"answered")

    def executeDebug(self, source, process=None):
        self.sent.append(source)
        return succeed(None)


class RecordingTests(SynchronousTestCase):

    def test_notesEachTemplateAndPassesItOn(self):
        """
        Each source's first-line tag names its template in C{ran}, in
        order, and the source reaches the session unchanged.
        """
        gem = _Gem()
        recording = Recording(gem)
        first = '"gsmcp:list_classes"\n^1'
        second = '"gsmcp:debug_run"\n^2'
        self.assertEqual(self.successResultOf(recording.execute(first, 10)),
                         b"answered")
        self.assertIsNone(self.successResultOf(
            recording.executeDebug(second)))
        self.assertEqual(recording.ran, ["list_classes", "debug_run"])
        self.assertEqual(gem.sent, [first, second])

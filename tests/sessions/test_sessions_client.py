"""
Tests for L{gsmcpd.sessions.client}: one 2025 client's session, its log
gate, its streams (the newest wins) and the events kept for resumption.
"""

from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.sessions.client import KEPT_SEQUENCES, LogGate
from gsmcpd.sessions.outbox import OUTBOX_LIMIT
from gsmcpd.sessions.work import newHandle
from tests.builders import clientSession
from tests.fakes import FakeGem


class Sequence:

    def __init__(self, key):
        self.key = key


class Stream:

    def __init__(self, generation):
        self.generation = generation
        self.sequence = Sequence(f"s{generation}")
        self.flushes = 0
        self.ended = None

    def flush(self):
        self.flushes += 1

    def end(self, why):
        self.ended = why


class LogGateTests(SynchronousTestCase):

    def test_burstThenRate(self):
        """
        A chatty tool gets a burst, then a steady rate: it cannot flood the
        client's stream.
        """
        clock = Clock()
        budget = LogGate(clock.seconds, rate=2.0, burst=3.0)
        self.assertEqual([budget.spend() for _ in range(4)],
                         [True, True, True, False])
        clock.advance(0.5)
        self.assertEqual([budget.spend(), budget.spend()], [True, False])

    def test_refillStopsAtTheBurst(self):
        clock = Clock()
        budget = LogGate(clock.seconds, rate=2.0, burst=3.0)
        clock.advance(3600)
        self.assertEqual(sum(budget.spend() for _ in range(10)), 3)


class SessionTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.session = clientSession(FakeGem(), "h1", "2025-11-25",
                                     seconds=self.clock.seconds)

    def test_logLevelIsAFloor(self):
        self.session.setLogLevel("warning")
        self.assertEqual(
            [self.session.wantsLog(level)
             for level in ("debug", "info", "warning", "error")],
            [False, False, True, True])

    def test_logsBeyondTheBudgetAreDropped(self):
        sent = [self.session.wantsLog("error") for _ in range(60)]
        self.assertEqual(sent.count(True), 50)
        self.clock.advance(1)
        self.assertEqual(sum(self.session.wantsLog("error")
                             for _ in range(30)), 20)

    def test_postWithoutAStreamWaitsInTheOutbox(self):
        self.session.post({"n": 1})
        self.assertEqual(len(self.session.outbox), 1)

    def test_fullOutboxLogsTheLabelOnly(self):
        """
        A full outbox names its session by label: the full handle is a
        bearer capability and stays out of the log.
        """
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        handle = newHandle()
        session = clientSession(FakeGem(), handle, "2025-11-25")
        for n in range(OUTBOX_LIMIT + 1):
            session.post({"n": n})
        [event] = [e for e in events if "dropped" in e]
        self.assertEqual(event["session"], session.label)
        self.assertNotIn(handle, repr(event))

    def test_postFlushesAnOpenStream(self):
        stream = self.session.attachStream(Stream)
        self.session.post({"n": 1})
        self.assertEqual(stream.flushes, 1)

    def test_newestStreamWins(self):
        first = self.session.attachStream(Stream)
        second = self.session.attachStream(Stream)
        self.assertEqual((first.generation, second.generation), (1, 2))
        self.assertEqual(first.ended, "superseded")
        self.assertIsNone(second.ended)
        self.assertIs(self.session.stream, second)
        self.assertEqual(set(self.session.sequences), {"s1", "s2"})

    def test_callKeysAreDistinct(self):
        self.assertEqual([self.session.nextCallKey() for _ in range(3)],
                         ["c1", "c2", "c3"])

    def test_onlyTheNewestSequencesAreKept(self):
        """
        Resumable events are bounded per session: the oldest stream's go
        first.
        """
        for n in range(KEPT_SEQUENCES + 2):
            self.session.keep(Sequence(f"k{n}"))
        self.assertEqual(len(self.session.sequences), KEPT_SEQUENCES)
        self.assertNotIn("k0", self.session.sequences)
        self.assertNotIn("k1", self.session.sequences)
        self.assertIn(f"k{KEPT_SEQUENCES + 1}", self.session.sequences)

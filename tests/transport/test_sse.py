"""
Tests for L{gsmcpd.transport.sse}, in memory: event framing and numbering,
the standalone stream's backpressure and keepalives, and a call's stream
that may close early and be resumed.
"""

import json

from twisted.internet.interfaces import IPushProducer
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.test.requesthelper import DummyRequest
from zope.interface.verify import verifyObject

from gsmcpd.sessions.interfaces import ICallSink
from gsmcpd.sessions.outbox import Outbox
from gsmcpd.transport.sse import (
    KEEPALIVE_INTERVAL,
    PROGRESS_INTERVAL,
    REPLAY_LIMIT,
    WRITE_BLOCKED_LIMIT,
    CallStream,
    EventSequence,
    EventStream,
    eventBytes,
    parseEventId,
)


class Transport:

    def __init__(self):
        self.aborted = False

    def abortConnection(self):
        self.aborted = True

    def loseConnection(self):
        pass


class StreamingRequest(DummyRequest):
    """
    A request that keeps a push producer registered, as a connection does
    (L{DummyRequest} would drive it as a pull producer, forever).
    """

    def __init__(self):
        super().__init__([b"mcp"])
        self.channel = object()
        self.transport = Transport()
        self.producer = None

    def registerProducer(self, producer, streaming):
        self.producer = producer

    def unregisterProducer(self):
        self.producer = None

    def text(self):
        return b"".join(self.written).decode("utf-8")


def message(n):
    return {"jsonrpc": "2.0", "method": "notifications/n", "params": {"n": n}}


class FramingTests(SynchronousTestCase):

    def test_eventBytes(self):
        """
        One message is one event; non-ASCII text goes as UTF-8.
        """
        self.assertEqual(eventBytes({"t": "é"}),
                         b'event: message\ndata: {"t":"\xc3\xa9"}\n\n')

    def test_sequenceNumbersItsEvents(self):
        sequence = EventSequence("c4", None)
        first, second = sequence.frame(message(1)), sequence.frame(message(2))
        self.assertTrue(first.startswith(b"id: c4:1\nevent: message\n"))
        self.assertTrue(second.startswith(b"id: c4:2\n"))
        self.assertEqual(sequence.since(1), [second])
        self.assertEqual(sequence.since(0), [first, second])
        self.assertEqual(sequence.since(2), [])

    def test_onlyTheLastEventsAreKept(self):
        sequence = EventSequence("g1", None)
        for n in range(REPLAY_LIMIT + 3):
            sequence.frame(message(n))
        kept = sequence.since(0)
        self.assertEqual(len(kept), REPLAY_LIMIT)
        self.assertTrue(kept[0].startswith(b"id: g1:4\n"))

    def test_priming(self):
        """
        An id with no data, so a client can resume a stream that has sent
        nothing yet.
        """
        self.assertEqual(EventSequence("c1", None).priming(),
                         b"id: c1:0\nretry: 500\ndata: \n\n")

    def test_parseEventId(self):
        self.assertEqual(parseEventId("c4:12"), ("c4", 12))
        for bad in (None, "", "c4", "c4:", ":3", "c4:x", "c4:-1"):
            self.assertIsNone(parseEventId(bad), bad)


class EventStreamTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.request = StreamingRequest()
        self.outbox = Outbox("h1")
        self.lost = []

    def stream(self, **kwargs):
        return EventStream(self.request, self.clock, self.outbox,
                           generation=2, onLost=self.lost.append, **kwargs)

    def test_provides(self):
        self.assertTrue(verifyObject(IPushProducer, self.stream()))

    def test_opensAndFlushesTheOutbox(self):
        self.outbox.put(message(1))
        stream = self.stream(replay=[b"id: g1:3\n\n"])
        self.assertEqual(self.request.responseHeaders.getRawHeaders(
            b"content-type"), [b"text/event-stream"])
        self.assertIs(self.request.producer, stream)
        text = self.request.text()
        self.assertTrue(text.startswith(": stream open\n\nid: g1:3\n\n"
                                        "id: g2:1\n"))
        self.assertEqual(len(self.outbox), 0)

    def test_keepalive(self):
        self.stream()
        self.clock.advance(KEEPALIVE_INTERVAL)
        self.assertTrue(self.request.text().endswith(": keepalive\n\n"))

    def test_pausedMessagesWaitInTheOutbox(self):
        stream = self.stream()
        stream.pauseProducing()
        self.outbox.put(message(1))
        stream.flush()
        self.assertEqual(self.request.text(), ": stream open\n\n")
        self.assertEqual(len(self.outbox), 1)
        stream.resumeProducing()
        self.assertIn('"n":1', self.request.text())
        self.assertTrue(stream.open)

    def test_streamStillBlockedPastTheLimitIsDropped(self):
        """
        A client that stops reading does not hold a connection (and the
        session's messages) forever.
        """
        stream = self.stream()
        stream.pauseProducing()
        self.clock.advance(WRITE_BLOCKED_LIMIT)
        self.assertEqual(stream.endedBy, "slow")
        self.assertTrue(self.request.transport.aborted)
        self.assertEqual(self.lost, [stream])
        self.successResultOf(stream.done)
        self.assertIsNone(self.request.producer)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_resumingInTimeKeepsTheStream(self):
        stream = self.stream()
        stream.pauseProducing()
        self.clock.advance(WRITE_BLOCKED_LIMIT - 1)
        stream.resumeProducing()
        stream.pauseProducing()
        self.clock.advance(WRITE_BLOCKED_LIMIT - 1)
        self.assertTrue(stream.open)

    def test_clientHangsUp(self):
        stream = self.stream()
        self.request.finish()
        self.assertEqual(stream.endedBy, "client")
        self.assertEqual(self.lost, [stream])
        self.successResultOf(stream.done)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_cancellingDoneIsTheClientGoing(self):
        """
        Klein cancels the route's Deferred when the client goes away.
        """
        stream = self.stream()
        stream.done.cancel()
        self.assertEqual(stream.endedBy, "client")
        self.assertEqual(self.lost, [stream])

    def test_serverEndIsNotALoss(self):
        stream = self.stream()
        stream.end("superseded")
        stream.end("server")
        self.assertEqual(stream.endedBy, "superseded")
        self.assertEqual(self.lost, [])
        self.successResultOf(stream.done)
        self.outbox.put(message(1))
        stream.flush()
        self.assertEqual(len(self.outbox), 1)


class CallStreamTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.request = StreamingRequest()
        self.sequence = EventSequence("c1", None)

    def callStream(self, token="t", prime=False):
        return CallStream(self.request, self.clock, self.sequence, token,
                          prime)

    def events(self, request=None):
        return [json.loads(line[len("data: "):])
                for line in (request or self.request).text().splitlines()
                if line.startswith("data: {")]

    def test_provides(self):
        self.assertTrue(verifyObject(ICallSink, self.callStream()))

    def test_primed(self):
        stream = self.callStream(prime=True)
        self.assertTrue(self.request.text().startswith("id: c1:0\n"))
        self.assertIs(self.sequence.owner, stream)

    def test_elapsedTimeWhileTheToolReportsNone(self):
        """
        Clients that reset their timeout on progress keep waiting on a long
        call.
        """
        self.callStream()
        self.clock.pump([PROGRESS_INTERVAL] * 2)
        self.assertEqual([e["params"] for e in self.events()], [
            {"progressToken": "t", "progress": 5,
             "message": "still running after 5s"},
            {"progressToken": "t", "progress": 10,
             "message": "still running after 10s"}])

    def test_noProgressWithoutAToken(self):
        stream = self.callStream(token=None)
        self.assertFalse(stream.wantsProgress)
        self.clock.advance(PROGRESS_INTERVAL * 3)
        self.assertEqual(self.events(), [])

    def test_toolsOwnProgressReplacesElapsedTime(self):
        stream = self.callStream()
        stream.report(1, 4, "one of four")
        self.clock.advance(PROGRESS_INTERVAL * 3)
        self.assertEqual([e["params"] for e in self.events()], [
            {"progressToken": "t", "progress": 1, "total": 4,
             "message": "one of four"}])

    def test_finishSendsTheResponse(self):
        stream = self.callStream()
        self.assertEqual(stream.finish({"jsonrpc": "2.0", "id": 1,
                                        "result": {}}), b"")
        self.assertEqual(self.events()[-1]["id"], 1)
        self.assertTrue(stream.finished)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_closedEarlyThenResumed(self):
        """
        The server may end the connection before the response; the call
        goes on, and the client resumes from the last event it saw.
        """
        stream = self.callStream()
        stream.post(message(1))
        stream.closeEarly()
        self.assertEqual(self.request.finished, 1)
        stream.post(message(2))
        resumed = StreamingRequest()
        over = stream.resume(resumed, after=1)
        self.assertEqual([e["params"]["n"] for e in self.events(resumed)],
                         [2])
        stream.post(message(3))
        self.assertIsNone(stream.finish({"jsonrpc": "2.0", "id": 1,
                                         "result": {}}))
        self.successResultOf(over)
        self.assertEqual([e.get("id") for e in self.events(resumed)],
                         [None, None, 1])

    def test_resumingAFinishedCall(self):
        stream = self.callStream()
        stream.closeEarly()
        stream.finish({"jsonrpc": "2.0", "id": 1, "result": {}})
        resumed = StreamingRequest()
        self.successResultOf(stream.resume(resumed, after=0))
        self.assertEqual([e["id"] for e in self.events(resumed)], [1])

    def test_resumedClientGoesAwayAgain(self):
        stream = self.callStream()
        stream.closeEarly()
        resumed = StreamingRequest()
        stream.resume(resumed, after=0)
        resumed.finish()
        stream.post(message(1))
        self.assertEqual(self.events(resumed), [])
        self.assertEqual(len(self.sequence.since(0)), 1)

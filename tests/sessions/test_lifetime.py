"""
Sessions that live and die correctly, driven by a Clock: the stream and its
outbox, liveness pings, the lifetime policy, deadlines, cancellation and
progress.
"""

import json

from twisted.application.internet import TimerService
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.options import Config
from gsmcpd.sessions.lifetime import LifetimePolicy, PolicyError, Reaper
from gsmcpd.sessions.outbox import OUTBOX_LIMIT, Outbox
from tests.transport.test_modern import ModernTestCase
from tests.transport.test_web import Collector, TransportTestCase, request

DEFAULTS = Config(simulated=True)
"""The daemon's own defaults, for the tests of a day of use."""


class LifetimeTestCase(TransportTestCase):
    """
    The transport plus a reaper, all on the test's Clock.
    """

    policy = LifetimePolicy()
    requestTimeout = None

    def setUp(self):
        super().setUp()
        self.sessions.clients.streamLossGrace = self.policy.streamLossGrace
        self.reaper = Reaper(self.sessions, self.app.pending, self.policy,
                             self.clock)
        passes = TimerService(self.reaper.interval, self.reaper.maintain)
        passes.clock = self.clock
        passes.startService()
        self.addCleanup(passes.stopService)

    def elapse(self, seconds, step=1.0):
        """
        Let C{seconds} pass in steps, as the reactor would.
        """
        while seconds > 0:
            self.clock.advance(min(step, seconds))
            seconds -= step
        self.treq.flush()

    @inlineCallbacks
    def openStream(self, handle):
        response = yield self.treq.get(
            "http://127.0.0.1/mcp", unbuffered=True,
            headers={"mcp-session-id": [handle],
                     "accept": ["text/event-stream"]})
        received = []
        response.deliverBody(Collector(received))
        self.treq.flush()
        return received

    @inlineCallbacks
    def streaming(self):
        """
        A new session and what its stream receives.
        """
        handle, _ = yield self.initialize()
        received = yield self.openStream(handle)
        return handle, received

    @inlineCallbacks
    def alive(self, handle):
        response, _ = yield self.post(request("ping"), handle)
        return response.code == 200

    def assertHeld(self, handle):
        self.assertIsNotNone(self.sessions.work.get(handle))

    def assertReleased(self, handle):
        self.assertIsNone(self.sessions.work.get(handle))


def events(received):
    """
    The JSON-RPC messages in what a stream delivered.
    """
    return [json.loads(line[len(b"data: "):])
            for line in b"".join(received).split(b"\n")
            if line.startswith(b"data: ") and line.strip() != b"data:"]


class StreamlessTests(LifetimeTestCase):

    @inlineCallbacks
    def test_streamlessSessionReleasedAfterAMinute(self):
        handle, _ = yield self.initialize()
        self.elapse(50)
        self.assertHeld(handle)
        self.elapse(20)
        self.assertReleased(handle)
        self.assertTrue(self.pool.opened[0].loggedOut)
        alive = yield self.alive(handle)
        self.assertFalse(alive)

    @inlineCallbacks
    def test_requestsKeepItAlive(self):
        handle, _ = yield self.initialize()
        for _ in range(5):
            self.elapse(40)
            alive = yield self.alive(handle)
            self.assertTrue(alive)

    @inlineCallbacks
    def test_callInFlightNeverReapedAsIdle(self):
        handle, _ = yield self.initialize()
        gem = self.pool.opened[0]
        gem.held = True
        calling = self.call(handle, "execute_code", {"code": "x"})
        self.elapse(600)
        self.assertHeld(handle)
        gem.release()
        self.treq.flush()
        yield calling

    @inlineCallbacks
    def test_suspendedHostForgiven(self):
        """
        A pass that runs two hours late (the host slept) forgives instead
        of reaping every session at once.
        """
        handle, _ = yield self.initialize()
        self.clock.advance(7200)
        self.assertHeld(handle)
        self.elapse(30)
        self.assertHeld(handle)


class ProbeTests(LifetimeTestCase):

    @inlineCallbacks
    def pinged(self):
        """
        A new session with a stream, idle until pinged (not yet answered).
        """
        handle, _ = yield self.streaming()
        self.elapse(1510, step=10)
        return handle

    @inlineCallbacks
    def test_idleStreamSessionPingedThenReaped(self):
        handle, received = yield self.streaming()
        self.elapse(1490, step=10)
        self.assertEqual(events(received), [])
        self.elapse(20, step=10)
        [ping] = events(received)
        self.assertEqual((ping["method"], ping["id"]), ("ping", "srv-1"))
        response, body = yield self.post(
            {"jsonrpc": "2.0", "id": "srv-1", "result": {}}, handle)
        self.assertEqual((response.code, body), (202, None))
        session = self.sessions.work.get(handle)
        self.assertIsNone(session.liveness.probeGeneration)
        # The answer proved it live but did not reset its activity clock.
        self.assertLess(session.liveness.lastActivity, 100)
        self.elapse(300, step=10)
        self.assertReleased(handle)

    @inlineCallbacks
    def test_unansweredPingReleasesEarly(self):
        handle = yield self.pinged()
        self.assertHeld(handle)
        self.elapse(30, step=10)
        self.assertReleased(handle)

    @inlineCallbacks
    def test_pingLostToHandoverIsResent(self):
        handle = yield self.pinged()
        second = yield self.openStream(handle)
        self.elapse(30, step=10)
        self.assertHeld(handle)
        self.elapse(10, step=10)
        self.assertEqual([e["id"] for e in events(second)], ["srv-2"])

    @inlineCallbacks
    def test_answeredErrorStillProvesLive(self):
        handle = yield self.pinged()
        yield self.post({"jsonrpc": "2.0", "id": "srv-1",
                         "error": {"code": -1, "message": "no"}}, handle)
        self.elapse(60, step=10)
        self.assertHeld(handle)


class StreamLossTests(LifetimeTestCase):

    @inlineCallbacks
    def hungUp(self):
        """
        A new session whose stream was lost.
        """
        handle, _ = yield self.streaming()
        self.sessions.clients.get(handle).stream.stopProducing()
        return handle

    @inlineCallbacks
    def test_releasedAfterGrace(self):
        handle = yield self.hungUp()
        self.clock.advance(9.9)
        self.assertHeld(handle)
        self.clock.advance(0.2)
        self.assertReleased(handle)

    @inlineCallbacks
    def keptBy(self, keeping):
        handle = yield self.hungUp()
        self.clock.advance(5)
        yield keeping(handle)
        self.clock.advance(10)
        self.assertHeld(handle)

    def test_anyRequestRetractsTheVerdict(self):
        return self.keptBy(self.alive)

    def test_aCallRetractsTheVerdict(self):
        """
        A call counts as activity as it runs; one not made (no such tool),
        and a notification, count all the same.
        """
        return self.keptBy(lambda handle: self.call(
            handle, "execute_code", {"code": "1"}))

    def test_aCallNotMadeRetractsTheVerdict(self):
        return self.keptBy(lambda handle: self.call(handle, "no_such_tool"))

    def test_aNotificationRetractsTheVerdict(self):
        return self.keptBy(lambda handle: self.post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            handle))

    def test_reattachKeepsIt(self):
        return self.keptBy(self.openStream)

    @inlineCallbacks
    def test_zeroGraceReleasesAtOnce(self):
        self.sessions.clients.streamLossGrace = 0
        handle = yield self.hungUp()
        self.assertReleased(handle)

    @inlineCallbacks
    def test_supersededStreamIsNotALoss(self):
        handle, _ = yield self.streaming()
        yield self.openStream(handle)
        self.clock.advance(20)
        self.assertHeld(handle)


class CapTests(LifetimeTestCase):

    policy = LifetimePolicy(maxLifetime=600)

    @inlineCallbacks
    def test_absoluteCap(self):
        handle, _ = yield self.streaming()
        for _ in range(11):
            self.elapse(50, step=10)
            yield self.alive(handle)
        self.assertHeld(handle)
        self.elapse(60, step=10)
        self.assertReleased(handle)


class HandleIdleTests(LifetimeTestCase, ModernTestCase):

    policy = DEFAULTS.lifetime

    @inlineCallbacks
    def test_handleIdlesOutSoonerThanAStream(self):
        """
        A 2026-07-28 handle nobody closes is released after
        --handle-idle-timeout, a 2025 session with its stream open is not.
        """
        handle = yield self.openSession()
        legacy, _ = yield self.initialize()
        yield self.openStream(legacy)
        self.elapse(self.policy.handleIdleTimeout - 10, step=10)
        self.assertHeld(handle)
        self.elapse(20, step=10)
        self.assertReleased(handle)
        self.assertIsNotNone(self.sessions.work.get(legacy))


class DayOfUseTests(LifetimeTestCase, ModernTestCase):
    """
    The defaults against clients that never end their sessions.
    """

    policy = DEFAULTS.lifetime
    maxSessions = DEFAULTS.maxSessions

    @inlineCallbacks
    def inspectorCall(self):
        """
        What the MCP Inspector does for a quick request: a new session, its
        stream, one request, the stream dropped, and no DELETE.
        """
        handle, _ = yield self.streaming()
        self.assertTrue((yield self.alive(handle)))
        self.sessions.clients.get(handle).stream.stopProducing()

    @inlineCallbacks
    def test_aDayOfInspectorUse(self):
        """
        Eight hours of bursts of six Inspector requests two seconds apart,
        every ten minutes, and 2026-07-28 handles opened and never closed
        (two a burst, one with the burst, one five minutes on): no session
        is ever refused.
        """
        held = 0
        for _burst in range(8 * 6):
            for _click in range(6):
                yield self.inspectorCall()
                self.elapse(2)
                held = max(held, len(self.pool.open_))
            yield self.openSession()
            self.elapse(290, step=10)
            yield self.openSession()
            self.elapse(298, step=10)
        self.assertLess(held, self.maxSessions)


class BackpressureTests(LifetimeTestCase):

    @inlineCallbacks
    def test_pausedStreamQueuesThenFlushes(self):
        handle, received = yield self.streaming()
        session = self.sessions.clients.get(handle)
        session.stream.pauseProducing()
        session.post({"jsonrpc": "2.0", "method": "notifications/x"})
        self.treq.flush()
        self.assertEqual(events(received), [])
        self.assertEqual(len(session.outbox), 1)
        session.stream.resumeProducing()
        self.treq.flush()
        self.assertEqual(len(events(received)), 1)

    @inlineCallbacks
    def test_blockedPastFiveSecondsDropped(self):
        handle, _ = yield self.streaming()
        session = self.sessions.clients.get(handle)
        stream = session.stream
        stream.pauseProducing()
        self.clock.advance(4.9)
        self.assertTrue(stream.open)
        self.clock.advance(0.2)
        self.assertEqual(stream.endedBy, "slow")
        self.assertIsNone(session.stream)
        self.clock.advance(10)
        self.assertReleased(handle)


class OutboxTests(SynchronousTestCase):

    def test_boundedDropsOldestAndSaysSo(self):
        logged = []
        globalLogPublisher.addObserver(logged.append)
        self.addCleanup(globalLogPublisher.removeObserver, logged.append)
        outbox = Outbox("s")
        for n in range(OUTBOX_LIMIT + 2):
            outbox.put(n)
        self.assertEqual(len(outbox), OUTBOX_LIMIT)
        self.assertEqual(outbox.take(), 2)
        self.assertEqual(outbox.dropped, 2)
        self.assertTrue(any("gap" in e.get("log_format", "") for e in logged))


class PolicyTests(SynchronousTestCase):

    def test_defaults(self):
        LifetimePolicy().validate()

    def test_unworkable(self):
        for policy, fragment in (
                (LifetimePolicy(probeAfter=1800), "probeAfter"),
                (LifetimePolicy(idleTimeout=None, probeAfter=None),
                 "idleTimeout"),
                (LifetimePolicy(streamlessIdleTimeout=0),
                 "streamlessIdleTimeout"),
                (LifetimePolicy(streamlessIdleTimeout=4000),
                 "streamlessIdleTimeout"),
                (LifetimePolicy(streamLossGrace=-1), "streamLossGrace"),
                (LifetimePolicy(maxLifetime=0), "maxLifetime"),
                (LifetimePolicy(handleIdleTimeout=0), "handleIdleTimeout")):
            error = self.assertRaises(PolicyError, policy.validate)
            self.assertIn(fragment, str(error))

    def test_namedAsTheCallerSays(self):
        error = self.assertRaises(PolicyError, LifetimePolicy(
            probeAfter=1800).validate, lambda field: f"<{field}>")
        self.assertIn("<probeAfter> (1800s) must be less than <idleTimeout>",
                      str(error))

    def test_indefiniteWithProbe(self):
        LifetimePolicy(idleTimeout=None, probeAfter=600).validate()


class HeldTestCase(LifetimeTestCase):
    """
    One session, whose gem holds every call until released.
    """

    @inlineCallbacks
    def setUp(self):
        super().setUp()
        self.handle, _ = yield self.initialize()
        self.gem = self.pool.opened[0]
        self.gem.held = True

    def execute(self, id, code):
        return self.post(request("tools/call", id, name="execute_code",
                                 arguments={"code": code}), self.handle)


class DeadlineTests(HeldTestCase):

    requestTimeout = 30

    def callWithId(self, id):
        return self.execute(id, "[true] whileTrue")

    @inlineCallbacks
    def test_beatsTheDeadline(self):
        calling = self.callWithId(7)
        self.clock.advance(29)
        self.gem.release()
        self.treq.flush()
        response, body = yield calling
        self.assertEqual(body["result"]["content"][0]["text"], "7")
        self.assertEqual(self.gem.interrupts, [])

    @inlineCallbacks
    def test_softBreak(self):
        calling = self.callWithId(7)
        self.clock.advance(30)
        self.treq.flush()
        response, body = yield calling
        self.assertEqual(body["id"], 7)
        self.assertEqual(body["error"]["code"], -32001)
        self.assertIn("soft break", body["error"]["message"])
        self.assertEqual(body["error"]["data"],
                         {"kind": "deadline", "step": "soft"})
        self.assertEqual(self.gem.interrupts, [False])
        self.assertIsNotNone(self.sessions.work.get(self.handle))

    @inlineCallbacks
    def test_hardBreakNoSoonerThan300ms(self):
        self.gem.ignores = {"soft"}
        calling = self.callWithId(8)
        self.clock.advance(30)
        self.clock.advance(0.3)
        self.assertEqual(self.gem.interrupts, [False])
        self.clock.advance(2)
        self.treq.flush()
        response, body = yield calling
        self.assertEqual(self.gem.interrupts, [False, True])
        self.assertIn("hard break", body["error"]["message"])

    @inlineCallbacks
    def test_neitherBreakTakenReplacesTheSession(self):
        self.gem.ignores = {"soft", "hard"}
        calling = self.callWithId(9)
        self.clock.advance(30)
        self.clock.advance(2)
        self.clock.advance(3)
        self.treq.flush()
        response, body = yield calling
        self.assertEqual(body["id"], 9)
        self.assertIn("replacing the GemStone session",
                      body["error"]["message"])
        self.assertEqual(body["error"]["data"]["step"], "replaced")
        self.assertIsNotNone(self.gem.abandoned)
        session = self.sessions.work.get(self.handle)
        self.assertIsNot(session.gem, self.gem)
        result = yield self.call(self.handle, "execute_code", {"code": "1"})
        self.assertFalse(result["result"]["isError"])

    @inlineCallbacks
    def test_nextRequestWaitsForTheReplacement(self):
        self.gem.ignores = {"soft", "hard"}
        self.pool.replacementDelay = Deferred()
        calling = self.callWithId(9)
        self.clock.advance(30)
        self.clock.advance(2)
        self.clock.advance(3)
        self.treq.flush()
        yield calling
        waiting = self.call(self.handle, "execute_code", {"code": "1"})
        self.assertFalse(waiting.called)
        self.pool.replacementDelay.callback(None)
        self.treq.flush()
        result = yield waiting
        self.assertFalse(result["result"]["isError"])


class CancellationTests(HeldTestCase):

    @inlineCallbacks
    def cancel(self, id):
        answer = yield self.post(
            {"jsonrpc": "2.0", "method": "notifications/cancelled",
             "params": {"requestId": id, "reason": "Esc"}}, self.handle)
        self.treq.flush()
        return answer

    @inlineCallbacks
    def test_cancelledRequestAnswered202(self):
        calling = self.execute(5, "x")
        response, body = yield self.cancel(5)
        self.assertEqual((response.code, body), (202, None))
        response, body = yield calling
        self.assertEqual((response.code, body), (202, None))
        self.assertEqual(self.gem.interrupts, [False])

    @inlineCallbacks
    def test_secondRequestWaitsItsTurn(self):
        first = self.execute(1, "1")
        second = self.execute(2, "2")
        self.assertEqual([tag for tag, _ in self.gem.calls],
                         ["execute_code", "execute_code"])
        self.gem.release()
        self.treq.flush()
        response, body = yield first
        self.assertFalse(second.called)
        self.gem.release()
        self.treq.flush()
        yield second

    @inlineCallbacks
    def test_cancelQueuedCallBreaksNothing(self):
        first = self.execute(1, "1")
        second = self.execute(2, "2")
        yield self.cancel(2)
        response, body = yield second
        self.assertEqual(response.code, 202)
        self.assertEqual(self.gem.interrupts, [])
        self.gem.release()
        self.treq.flush()
        response, body = yield first
        self.assertEqual(body["result"]["content"][0]["text"], "7")

    @inlineCallbacks
    def test_unknownRequestIgnored(self):
        response, _ = yield self.cancel(99)
        self.assertEqual(response.code, 202)


class ProgressTests(LifetimeTestCase):

    @inlineCallbacks
    def test_longCallReportsElapsedTime(self):
        handle, _ = yield self.initialize()
        gem = self.pool.opened[0]
        gem.held = True
        calling = self.treq.post(
            "http://127.0.0.1/mcp", unbuffered=True,
            headers={"content-type": ["application/json"],
                     "accept": ["application/json, text/event-stream"],
                     "mcp-session-id": [handle]},
            data=json.dumps(request(
                "tools/call", 3, name="execute_code",
                arguments={"code": "x"},
                _meta={"progressToken": "tok"})).encode())
        self.clock.advance(5)
        self.clock.advance(5)
        self.treq.flush()
        response = yield calling
        self.assertEqual(response.headers.getRawHeaders("content-type"),
                         ["text/event-stream"])
        received = []
        response.deliverBody(Collector(received))
        gem.release()
        self.treq.flush()
        messages = events(received)
        progress = [m["params"] for m in messages
                    if m.get("method") == "notifications/progress"]
        self.assertEqual([p["progress"] for p in progress], [5, 10])
        self.assertEqual(progress[0]["progressToken"], "tok")
        self.assertEqual(messages[-1]["id"], 3)
        self.assertEqual(messages[-1]["result"]["content"][0]["text"], "7")

    @inlineCallbacks
    def test_noProgressTokenPlainJson(self):
        handle, _ = yield self.initialize()
        response, body = yield self.post(
            request("tools/call", 4, name="execute_code",
                    arguments={"code": "x"}), handle)
        self.assertEqual(response.headers.getRawHeaders("content-type"),
                         ["application/json"])

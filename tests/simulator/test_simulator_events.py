"""
Asynchronous events on the simulated stone (a test double): a signalled
abort, a lost object table, a signal from another session, delivered to a
running call or the next one, and what the daemon makes of each (the numbers
and texts of GemStone 3.7's gcierr.ht).
"""

import json

from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.session import GemSession
from gsmcpd.testing.simulator import events
from gsmcpd.testing.simulator.control import ControlError
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.templates.run import runTemplate
from tests.gci.test_gci import SimulatedStoneMixin, executeCode


class EventTableTests(SynchronousTestCase):

    def test_gemstoneNumbers(self):
        self.assertEqual({name: event.number
                          for name, event in events.EVENTS.items()},
                         {"signalAbort": 6009, "lostOtRoot": 3031,
                          "sessionSignal": 6010, "finishTransaction": 6012})

    def test_errorCarriesItsProcessAndDetail(self):
        error = events.error("sessionSignal", 0x1234, "from 3: 7 'hello'")
        self.assertEqual((error.number, error.fatal, error.context),
                         (6010, False, 0x1234))
        self.assertIn("InterSessionSignal", error.message)
        self.assertIn("from 3: 7 'hello'", error.message)

    def test_aPendingEventOutlivesTheCallsBetween(self):
        """
        An event sent to an idle session waits for its next call; a lost
        view aborts the session when the event is taken.
        """
        session = Stone().login("DataCurator", "swordfish")
        session.interrupt.deliver("lostOtRoot")
        session.interrupt.begin()
        self.assertEqual(session.interrupt.poll(), "event")
        session.transaction.writes["x"] = 1
        error = session.eventError()
        self.assertEqual(error.number, 3031)
        self.assertEqual(session.transaction.writes, {})
        self.assertIsNone(session.interrupt.poll())


class DeliveredEventTests(SimulatedStoneMixin, TestCase):

    def setUp(self):
        self.startStone()

    @inlineCallbacks
    def loggedIn(self):
        gem = GemSession(self.library, self.login, reactor, "events")
        yield gem.login()
        self.addCleanup(gem.logout)
        [number] = [s["session"]
                    for s in self.control.call({"op": "sessions"})["sessions"]]
        return gem, number

    def deliver(self, number, name, detail=""):
        return self.control.call({"op": "event", "session": number,
                                  "event": name, "detail": detail})

    @inlineCallbacks
    def test_signalledAbortEndsTheRunningCallNotTheSession(self):
        """
        A signalled abort ends the call that runs (6009, not a break, not
        fatal); the daemon says it is the stone's event, its suspended
        process is cleared and the session goes on.
        """
        gem, number = yield self.loggedIn()
        running = runTemplate(gem, "execute_code",
                              {"code": "(Delay forSeconds: 30) wait",
                               "limit": 1000})
        reactor.callLater(0.2, self.deliver, number, "signalAbort")
        failure = yield self.assertFailure(running, ToolError)
        self.assertEqual(failure.details, {"number": 6009})
        self.assertIn("TransactionBacklog", failure.message)
        self.assertIn("asynchronous GemStone event", failure.message)
        answer = yield runTemplate(gem, "execute_code",
                                   {"code": "3 + 4", "limit": 1000})
        self.assertEqual(answer.value["text"], "7")

    @inlineCallbacks
    def test_lostViewLosesTheChanges(self):
        """
        A lost object table, sent while the session was idle, ends its next
        call (3031) and its uncommitted changes are gone.
        """
        gem, number = yield self.loggedIn()
        answer = yield runTemplate(gem, "execute_code", {
            "code": "UserGlobals at: #gsmcpEventProbe put: 1", "limit": 1000})
        self.assertTrue(answer.needsCommit)
        self.assertEqual(self.deliver(number, "lostOtRoot"),
                         {"delivered": "lostOtRoot"})
        error = yield self.assertFailure(
            gem.execute(executeCode("1"), 4096), GciError)
        self.assertEqual((error.number, error.fatal, error.isBreak),
                         (3031, False, False))
        answer = yield gem.execute(executeCode("System needsCommit"), 4096)
        self.assertEqual(json.loads(answer)["result"]["text"], "false")

    @inlineCallbacks
    def test_sessionSignalCarriesItsMessage(self):
        gem, number = yield self.loggedIn()
        self.deliver(number, "sessionSignal", "from session 9: 42 'wake up'")
        error = yield self.assertFailure(
            gem.execute(executeCode("1"), 4096), GciError)
        self.assertEqual(error.number, 6010)
        self.assertIn("from session 9: 42 'wake up'", error.message)

    def test_unknownEventRefused(self):
        self.assertRaises(ControlError, self.control.call, {
            "op": "event", "session": 1, "event": "sigHup"})
        self.assertEqual(self.control.call({
            "op": "event", "session": 999, "event": "signalAbort"}),
            {"delivered": None})

"""
Tests for L{gsmcpd.sessions.breaks}: ending a call escalates soft break,
hard break, replacement, each step only if the one before was not taken.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.sessions.breaks import (
    HARD_BREAK_DELAY,
    REPLACE_DELAY,
    CallState,
    RunningCall,
)
from gsmcpd.tools.context import ICallControl
from tests.fakes import FakeGem


class Session:
    """
    What a L{RunningCall} reads of its session.
    """

    def __init__(self, gem):
        self.gem = gem
        self.handle = "h1"
        self.label = "h1"
        self.calls = CallState()

    def callEnding(self):
        self.calls.ended = True

    def admit(self, run):
        self.calls.running[run.requestId] = run


class Replacement:

    def __init__(self):
        self.replaced = []

    def replace(self, session, why):
        self.replaced.append((session, why))


class CallFixture(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.gem = FakeGem()
        self.gem.held = True
        self.session = Session(self.gem)
        self.registry = Replacement()
        self.running = RunningCall(self.session, 7, self.registry, self.clock)

    def start(self):
        running = self.gem.execute("\"gsmcp:status\"\n1", 100)
        self.running.track(running)
        return running

    def broken(self, running):
        """
        C{running} failed, as an ended call does.
        """
        self.failureResultOf(running, GciError, CallWithdrawn)


class EscalationTests(CallFixture):

    def test_provides(self):
        self.assertTrue(verifyObject(ICallControl, self.running))

    def test_startsTheGemsCall(self):
        """
        C{start} makes the GemStone call it is given, a gem's method and
        its arguments, and tracks it as the one to break.
        """
        running = self.running.start(self.gem.execute,
                                     "\"gsmcp:status\"\n1", 100)
        self.assertIs(self.running.current, running)
        self.assertEqual(self.gem.callState(running), "running")
        self.running.end("cancelled")
        self.assertEqual(self.gem.interrupts, [False])
        self.broken(running)

    def test_softBreakTakenEndsIt(self):
        running = self.start()
        self.running.end("cancelled")
        self.assertEqual((self.gem.interrupts, self.running.step),
                         ([False], "soft"))
        self.assertTrue(self.failureResultOf(running, GciError).value.isBreak)
        self.assertIsNone(self.running.current)
        self.assertTrue(self.running.work.calls.ended)
        self.clock.advance(HARD_BREAK_DELAY + REPLACE_DELAY)
        self.assertEqual(self.gem.interrupts, [False])
        self.assertEqual(self.registry.replaced, [])

    def test_notCancellableByItsClient(self):
        """
        A call that is not cancellable, cancelled while its GemStone call
        runs, is answered nothing at once but not broken; its deadline
        still ends it.
        """
        self.running = RunningCall(self.session, 7, self.registry,
                                   self.clock, cancellable=False)
        self.running.setDeadline(30)
        running = self.start()
        self.running.end("cancelled")
        self.assertTrue(self.running.cancelled.called)
        self.assertEqual((self.gem.interrupts, self.running.why), ([], None))
        self.clock.advance(30)
        self.assertEqual((self.gem.interrupts, self.running.why),
                         ([False], "deadline"))
        self.broken(running)

    def test_notCancellableEndsBeforeItRuns(self):
        """
        Before its GemStone call begins (waiting for a confirmation, say),
        such a call is ended as any other: it never starts one.
        """
        self.running = RunningCall(self.session, 7, self.registry,
                                   self.clock, cancellable=False)
        self.running.end("cancelled")
        self.assertEqual(self.running.why, "cancelled")

    def test_hardBreakNoSoonerThanTheDelay(self):
        """
        Two breaks closer than 300 ms have crashed GemStone's client
        library: the hard one waits L{HARD_BREAK_DELAY}.
        """
        self.gem.ignores = {"soft"}
        running = self.start()
        self.running.end("deadline")
        self.clock.advance(HARD_BREAK_DELAY - 0.01)
        self.assertEqual(self.gem.interrupts, [False])
        self.clock.advance(0.01)
        self.assertEqual(self.gem.interrupts, [False, True])
        self.assertEqual(self.running.step, "hard")
        self.failureResultOf(running, GciError)

    def test_replacedWhenNeitherBreakIsTaken(self):
        self.gem.ignores = {"soft", "hard"}
        self.start()
        self.running.end("deadline")
        self.clock.advance(HARD_BREAK_DELAY)
        self.assertNoResult(self.running.abandoned)
        self.clock.advance(REPLACE_DELAY)
        self.assertEqual(self.running.step, "replaced")
        self.assertEqual([s for s, _ in self.registry.replaced],
                         [self.session])
        self.assertIn("7", self.registry.replaced[0][1])
        self.successResultOf(self.running.abandoned)

    def test_callThatFinishesStopsTheEscalation(self):
        self.gem.ignores = {"soft", "hard"}
        self.start()
        self.running.end("deadline")
        self.gem.release()
        self.assertIsNone(self.running.finished())
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_finishedTellsHowItWasEnded(self):
        """
        A call finished after its deadline ended it answers what its client
        is told.
        """
        running = self.start()
        self.running.setDeadline(5)
        self.clock.advance(5)
        self.broken(running)
        self.assertEqual(self.running.finished(),
                         self.running.endedMessage())
        self.assertIn("5s deadline", self.running.finished())
        self.assertEqual(self.registry.replaced, [])

    def test_queuedCallIsWithdrawn(self):
        """
        A call still waiting behind another is taken off the queue, not
        broken: the call running is someone else's.
        """
        self.gem.execute("\"gsmcp:status\"\n1", 100)
        queued = self.start()
        self.running.end("cancelled")
        self.assertEqual(self.running.step, "withdrawn")
        self.assertEqual(self.gem.interrupts, [])
        self.failureResultOf(queued, CallWithdrawn)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_betweenCallsNothingToBreak(self):
        self.running.end("deadline")
        self.assertTrue(self.running.ending)
        self.assertIsNone(self.running.step)
        self.assertEqual(self.gem.interrupts, [])

    def test_endOnlyOnce(self):
        running = self.start()
        self.running.end("cancelled")
        self.running.end("deadline")
        self.assertEqual(self.running.why, "cancelled")
        self.assertEqual(self.gem.interrupts, [False])
        self.broken(running)

    def test_cancellationFiresCancelled(self):
        """
        A cancelled request is answered at once, not when the break lands.
        """
        self.gem.ignores = {"soft"}
        self.start()
        self.running.end("cancelled")
        self.successResultOf(self.running.cancelled)

    def test_deadlineDoesNotFireCancelled(self):
        running = self.start()
        self.running.end("deadline")
        self.assertNoResult(self.running.cancelled)
        self.broken(running)


class DeadlineTests(CallFixture):

    def test_begin(self):
        """
        A call begun is admitted into its work session, and ended by its
        deadline.
        """
        run = RunningCall.begin(self.session, 8, self.registry, self.clock,
                                True, 5)
        self.assertIs(self.session.calls.running[8], run)
        self.clock.advance(5)
        self.assertEqual(run.why, "deadline")
        self.assertIsNone(RunningCall.begin(None, 9, self.registry,
                                            self.clock, True, None)._timer)

    def test_deadlineEndsTheCall(self):
        running = self.start()
        self.running.setDeadline(5)
        self.clock.advance(4.99)
        self.assertFalse(self.running.ending)
        self.clock.advance(0.01)
        self.assertEqual((self.running.why, self.running.step),
                         ("deadline", "soft"))
        self.assertEqual(self.running.endedMessage(),
                         "The request ran past its 5s deadline and was "
                         "ended by a soft break (the GemStone session and "
                         "its uncommitted changes survive).")
        self.broken(running)

    def test_finishedBeforeTheDeadline(self):
        self.start()
        self.running.setDeadline(5)
        self.gem.release()
        self.running.finished()
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_cancelledRequestIsToldNothing(self):
        running = self.start()
        self.running.end("cancelled")
        self.assertIsNone(self.running.endedMessage())
        self.broken(running)

    def test_messageForAWithdrawnCall(self):
        self.gem.execute("\"gsmcp:status\"\n1", 100)
        queued = self.start()
        self.running.setDeadline(1)
        self.clock.advance(1)
        self.assertIn("withdrawing it before it started",
                      self.running.endedMessage())
        self.broken(queued)

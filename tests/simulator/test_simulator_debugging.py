"""
Tests for the simulated stone's debugger (L{gsmcpd.testing.simulator.debugging}):
a run started with the debug and interpreted flags stops at a breakpoint,
a halt or an unhandled Error, and is stepped, continued, restarted and
ended as a GemStone client drives a GsProcess (a test double, not GemStone).
"""

import threading

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import debugging, errors
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.processes import NotModeled
from gsmcpd.testing.simulator.stone import Stone

CLASS = ("Object subclass: 'Probe' instVarNames: #() classVars: #() classInstVars: #() "
         "poolDictionaries: #() inDictionary: UserGlobals options: #().\n")

FIVE = "five\n\t| x |\n\tx := 3.\n\tx := x + 4.\n\t^ x * 2"
"""A five-line method: line 4 is C{x := x + 4}."""


class DebuggingTestCase(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login("DataCurator", "swordfish")
        self.evaluator = Evaluator(self.session)
        self.evaluate(CLASS)
        self.addCleanup(self.endAll)

    def endAll(self):
        for oop in list(self.session.debugRuns):
            debugging.clearStack(self.session, oop)

    def evaluate(self, source):
        return self.evaluator.evaluate(source)

    def compile(self, source):
        self.evaluate(f"(UserGlobals at: #Probe) compileMethod: '{source}' dictionaries: "
                      "System myUserProfile symbolList category: 'probe'.")

    def stopped(self, source):
        """
        Run C{source} so it can stop; the GciError it stops with.
        """
        return self.assertRaises(errors.GciError, debugging.execute, self.session, source)

    def perform(self, oop, selector, *args):
        return debugging.perform(self.session, oop, selector, *args)

    def top(self, oop, level=1):
        """
        The frame at C{level}: its selector, line, and argument and
        temporary values by name.
        """
        items = self.perform(oop, "_frameContentsAt:", level).items
        gsMethod, ip, names = items[0], items[1], items[8].items
        step = self.evaluator.send(gsMethod, "_previousStepPointForIp:", (ip,))
        line = self.evaluator.send(gsMethod, "_lineNumberForStep:", (step,))
        values = {name.text: value for name, value in zip(names, items[10:], strict=False)
                  if not name.text.startswith(".")}
        return gsMethod.selector, line, values


class SteppingTests(DebuggingTestCase):

    def setUp(self):
        super().setUp()
        self.compile("outer\n\t| y |\n\ty := self inner.\n\t^ y + 1")
        self.compile("inner\n\t^ 10 * 2")
        self.evaluate("(Probe compiledMethodAt: #outer) setBreakAtStepPoint: 1")
        self.oop = self.stopped("Probe new outer").context

    def test_into(self):
        self.assertRaises(errors.GciError, self.perform, self.oop, "gciStepIntoFromLevel:", 1)
        self.assertEqual(self.top(self.oop)[:2], ("inner", 2))
        self.assertEqual(self.perform(self.oop, "localStackDepth"), 3)

    def test_out(self):
        self.assertRaises(errors.GciError, self.perform, self.oop, "gciStepIntoFromLevel:", 1)
        self.assertRaises(errors.GciError, self.perform, self.oop, "gciStepThruFromLevel:", 1)
        self.assertEqual(self.top(self.oop), ("outer", 3, {"y": None}))

    def test_stepNeedsTheInterpretedFlag(self):
        self.assertRaises(errors.GciError, debugging.perform, self.session, self.oop,
                          "gciStepOverFromLevel:", 1, flags=debugging.ENABLE_DEBUG)

    def test_levelOutOfRange(self):
        self.assertRaises(errors.GciError, self.perform, self.oop, "_frameContentsAt:", 3)

    def test_otherSessionsRunMeanwhile(self):
        other = self.stone.login("DataCurator", "swordfish")
        self.assertEqual(Evaluator(other).evaluate("3 + 4"), 7)

    def test_finishes(self):
        self.assertEqual(debugging.continueWith(self.session, self.oop), 21)
        self.assertRaises(errors.GciError, debugging.continueWith, self.session, self.oop)


class SignalTests(DebuggingTestCase):

    def test_zeroDivideTwoSendsDeepThenFixAndRestart(self):
        """
        An unhandled ZeroDivide stops the process where it is signalled,
        its signal the top frame (the exception its receiver); once the
        method is fixed, trimming to its frame and continuing runs its new
        source.
        """
        self.compile("outer\n\t^ self inner + 1")
        self.compile("inner\n\t^ 10 / 0")
        stop = self.stopped("Probe new outer")
        self.assertEqual(stop.number, 2026)
        selectors = [self.top(stop.context, level)[0] for level in range(1, 6)]
        self.assertEqual(selectors, ["signal", "/", "inner", "outer", None])
        signal = self.perform(stop.context, "_frameContentsAt:", 1).items
        self.assertEqual(self.evaluator.send(signal[9], "class", ()).name,
                         "ZeroDivide")
        self.compile("inner\n\t^ 10 / 5")
        self.assertIs(self.perform(stop.context, "trimStackToLevel:", 3).__class__.__name__,
                      "Process")
        self.assertEqual(self.perform(stop.context, "localStackDepth"), 3)
        self.assertEqual(self.top(stop.context)[:2], ("inner", 2))
        self.assertEqual(debugging.continueWith(self.session, stop.context), 3)

    def test_handledErrorsDoNotStop(self):
        self.assertEqual(debugging.execute(
            self.session, "[10 / 0] on: ZeroDivide do: [:e | 5]"), 5)

    def test_continuedErrorEndsTheRun(self):
        stop = self.stopped("nil foo")
        error = self.assertRaises(errors.GciError, debugging.continueWith,
                                  self.session, stop.context)
        self.assertEqual((error.number, error.context), (2010, 0x14))

    def test_haltThenClearStack(self):
        """
        A halt stops the process; clearing its stack ends it (its ensure
        blocks run) and the session goes on.
        """
        stop = self.stopped("[nil halt. UserGlobals at: #After put: 1] "
                            "ensure: [UserGlobals at: #Ensured put: true]")
        self.assertEqual(stop.number, errors.HALT)
        debugging.clearStack(self.session, stop.context)
        self.assertEqual(self.session.debugRuns, {})
        self.assertEqual(printString(self.evaluate(
            "Array with: (UserGlobals at: #After ifAbsent: [nil]) "
            "with: (UserGlobals at: #Ensured ifAbsent: [nil])")), "anArray( nil, true)")
        self.assertEqual(debugging.execute(self.session, "3 + 4"), 7)

    def test_haltContinued(self):
        stop = self.stopped("nil halt. 7")
        self.assertEqual(debugging.continueWith(self.session, stop.context), 7)

    def continuedAndBroken(self, hard):
        """
        A process stopped before a loop, continued on a thread of its own
        and broken (C{hard} or soft): the stop, and the continue's error.
        """
        stop = self.stopped("nil halt. [true] whileTrue: [nil yourself]. 7")
        outcome = []
        self.session.interrupt.begin()
        thread = threading.Thread(target=lambda: outcome.append(self.assertRaises(
            errors.GciError, debugging.continueWith, self.session, stop.context)))
        thread.start()
        self.session.interrupt.breakCall(hard)
        thread.join(30)
        self.session.interrupt.end()
        return stop, outcome[0]

    def test_aLongContinueIsBroken(self):
        """
        A continued process that runs long is broken like any call: the
        break reaches the process's own thread and ends the run.
        """
        _, error = self.continuedAndBroken(hard=True)
        self.assertEqual(error.number, errors.HARD_BREAK)
        self.assertEqual(self.session.debugRuns, {})

    def test_softBreakStops(self):
        """
        A soft break stops a run that can stop, as a breakpoint does: the
        call answers 6003 with the process as its context.
        """
        stop, error = self.continuedAndBroken(hard=False)
        self.assertEqual((error.number, error.context),
                         (errors.SOFT_BREAK, stop.context))
        debugging.clearStack(self.session, stop.context)

    def test_onlyMethodFramesRestart(self):
        stop = self.stopped("nil halt. 7")
        self.assertRaises(NotModeled, self.perform, stop.context, "trimStackToLevel:", 2)

"""
Tests for the simulated stone's step points and breakpoints
(L{gsmcpd.testing.simulator.steppoints}): numbered as they run, set per
compiled method and session, honoured only in a run that can stop.
"""

from gsmcpd.testing.simulator import debugging, errors
from gsmcpd.testing.simulator.objects import printString
from tests.simulator.test_simulator_debugging import FIVE, DebuggingTestCase


class BreakpointTests(DebuggingTestCase):

    def test_sourceOffsets(self):
        """
        Each send and assignment is a step point, numbered in the order
        they run (an assignment after its value);
        C{_sourceOffsets} answers their 1-based offsets.
        """
        self.compile(FIVE)
        self.assertEqual(printString(self.evaluate(
            "(Probe compiledMethodAt: #five) _sourceOffsets")), "anArray( 14, 28, 23, 38)")

    def test_lineFourThenStepOver(self):
        """
        Stopped at line 4, C{x} still holds line 3's value; a step over
        stops at line 5 with C{x} updated; continuing answers the method's
        answer.
        """
        self.compile(FIVE)
        self.evaluate("(Probe compiledMethodAt: #five) setBreakAtStepPoint: 2")
        stop = self.stopped("Probe new five")
        self.assertEqual((stop.number, stop.message),
                         (debugging.BREAKPOINT, "a breakpoint was encountered"))
        self.assertEqual(self.top(stop.context), ("five", 4, {"x": 3}))
        self.assertEqual(self.perform(stop.context, "localStackDepth"), 2)
        step = self.assertRaises(errors.GciError, self.perform, stop.context,
                                 "gciStepOverFromLevel:", 1)
        self.assertEqual(step.context, stop.context)
        self.assertEqual(self.top(stop.context), ("five", 4, {"x": 3}))
        self.assertRaises(errors.GciError, self.perform, stop.context,
                          "gciStepOverFromLevel:", 1)
        self.assertEqual(self.top(stop.context), ("five", 5, {"x": 7}))
        self.assertEqual(debugging.continueWith(self.session, stop.context), 14)
        self.assertEqual(self.session.debugRuns, {})

    def test_writeATemporary(self):
        """
        C{_frameAt:tempAt:put:} writes the stopped frame's temporary: what
        runs next reads the value written (a send stopped at has read its
        operands already).
        """
        self.compile("six\n\t| x y |\n\tx := 3.\n\ty := 1.\n\t^ x + y")
        self.evaluate("(Probe compiledMethodAt: #six) setBreakAtStepPoint: 2")
        stop = self.stopped("Probe new six")
        self.perform(stop.context, "_frameAt:tempAt:put:", 1, 1, 10)
        self.assertEqual(self.top(stop.context), ("six", 4, {"x": 10, "y": None}))
        self.assertEqual(debugging.continueWith(self.session, stop.context), 11)

    def test_clearedBreakpoint(self):
        self.compile(FIVE)
        self.evaluate("(Probe compiledMethodAt: #five) setBreakAtStepPoint: 3; "
                      "clearBreakAtStepPoint: 3")
        self.assertEqual(debugging.execute(self.session, "Probe new five"), 14)

    def test_recompiledMethodHasNone(self):
        """
        A breakpoint belongs to the compiled method: once the method is
        compiled again, the new one has none.
        """
        self.compile(FIVE)
        self.evaluate("(Probe compiledMethodAt: #five) setBreakAtStepPoint: 3")
        self.compile(FIVE)
        self.assertEqual(debugging.execute(self.session, "Probe new five"), 14)

    def test_breakpointsAreTheSessions(self):
        self.compile(FIVE)
        self.evaluate("(Probe compiledMethodAt: #five) setBreakAtStepPoint: 3")
        self.evaluate("System commitTransaction")
        other = self.stone.login("DataCurator", "swordfish")
        self.assertEqual(debugging.execute(other, "Probe new five"), 14)

    def test_noStepPointThere(self):
        self.compile(FIVE)
        for step in (0, 5):
            self.assertRaises(errors.SmalltalkError, self.evaluate,
                              f"(Probe compiledMethodAt: #five) setBreakAtStepPoint: {step}")

    def test_withoutTheFlagsNothingStops(self):
        """
        Without both debug flags a breakpoint is not honoured: the run is
        an ordinary one.
        """
        self.compile(FIVE)
        self.evaluate("(Probe compiledMethodAt: #five) setBreakAtStepPoint: 3")
        self.assertEqual(debugging.execute(self.session, "Probe new five",
                                           flags=debugging.ENABLE_DEBUG), 14)

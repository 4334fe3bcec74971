"""
The simulated stone's Interval computes what GemStone computes from its
bounds and step: a billion-element Interval answers its size, elements and
C{includes:} at once, a loop over it is a long loop that a break ends, and
only building a collection of its elements builds them, up to the
simulator's limit.
"""

import threading
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.intervals import MAX_ELEMENTS
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.stone import Stone

BILLION = "(1 to: 1000000000)"
HUGE = "(1 to: 10000000000000000000000000)"

COMPUTED = [
    (f"{BILLION} size", "1000000000"),
    (f"{BILLION} first", "1"),
    (f"{BILLION} last", "1000000000"),
    (f"{BILLION} at: 123456789", "123456789"),
    (f"{BILLION} includes: 999999999", "true"),
    (f"{BILLION} includes: 0", "false"),
    (f"{BILLION} includes: 1000000001", "false"),
    (f"{BILLION} includes: 5/2", "false"),
    (f"{BILLION} includes: 'a'", "false"),
    (f"{BILLION} isEmpty", "false"),
    (f"{BILLION} notEmpty", "true"),
    (f"{BILLION} detect: [:each | each * each > 50]", "8"),
    (f"{BILLION} detect: [:each | each > 3] ifNone: [0]", "4"),
    (f"{BILLION} anySatisfy: [:each | each = 5]", "true"),
    (f"{BILLION} copyFrom: 5 to: 7", "anArray( 5, 6, 7)"),
    (f"{BILLION} = (Interval from: 1 to: 1000000000 by: 1)", "true"),
    (f"{BILLION} = (2 to: 1000000001)", "false"),
    (f"| n | n := 0. {BILLION} do: [:each | each > 3 ifTrue: [^n]. n := n + each]", "6"),
    (f"{BILLION} reverseDo: [:each | each < 999999999 ifTrue: [^each]]", "999999998"),
    (f"{BILLION} inject: 0 into: [:sum :each | each > 4 ifTrue: [^sum]. sum + each]", "10"),
    (f"{BILLION} collect: [:each | each > 2 ifTrue: [^each]. each]", "3"),
    (f"{BILLION} select: [:each | each > 2 ifTrue: [^each]. true]", "3"),
    # Past the machine's word, as GemStone's LargeIntegers go.
    (f"{HUGE} size", "10000000000000000000000000"),
    (f"{HUGE} notEmpty", "true"),
    (f"{HUGE} last", "10000000000000000000000000"),
    (f"{HUGE} at: 99999999999999999999999", "99999999999999999999999"),
    (f"{HUGE} includes: 5", "true"),
    (f"{HUGE} = {HUGE}", "true"),
    (f"{HUGE} reverseDo: [:each | ^each]", "10000000000000000000000000"),
    (f"{HUGE} copyFrom: 9999999999999999999999999 to: 10000000000000000000000000",
     "anArray( 9999999999999999999999999, 10000000000000000000000000)"),
    # Steps of every kind of number, negative steps, empty intervals.
    ("(Interval from: 0 to: 1 by: 1/3) asArray", "anArray( 0, 1/3, 2/3, 1)"),
    ("(Interval from: 0 to: 1 by: 1/3) includes: 2/3", "true"),
    ("(Interval from: 0 to: 1 by: 1/3) includes: 1/2", "false"),
    ("(Interval from: 0 to: 1 by: 0.25) asArray", "anArray( 0.0, 0.25, 0.5, 0.75, 1.0)"),
    ("(Interval from: 0 to: 1 by: 0.25) includes: 0.75", "true"),
    ("(Interval from: 0 to: 1 by: 0.25) includes: 3/4", "true"),
    ("(Interval from: 0 to: 2 by: 0.5) last", "2.0"),
    ("(Interval from: 0 to: 2 by: 0.5) size", "5"),
    ("(1/2 to: 3) asArray", "anArray( 1/2, 3/2, 5/2)"),
    ("(1 to: 5/2) last", "2"),
    ("(Interval from: 10 to: 1 by: -3) asArray", "anArray( 10, 7, 4, 1)"),
    ("(Interval from: 10 to: 1 by: -3) includes: 4", "true"),
    ("(Interval from: 10 to: 1 by: -3) includes: 5", "false"),
    ("(Interval from: 10 to: 1 by: -3) last", "1"),
    ("(Interval from: 10 to: 1 by: -3) reverse", "anArray( 1, 4, 7, 10)"),
    ("| out | out := OrderedCollection new. (Interval from: 10 to: 1 by: -3) "
     "reverseDo: [:each | out add: each]. out asArray", "anArray( 1, 4, 7, 10)"),
    ("(1 to: 0) size", "0"),
    ("(1 to: 0) isEmpty", "true"),
    ("(1 to: 0) includes: 1", "false"),
    ("(1 to: 0) asArray", "anArray( )"),
    ("(1 to: 0) printString", "'anInterval( )'"),
    ("(1 to: 0) = (5 to: 2)", "true"),
    ("(Interval from: 1 to: 10 by: -1) size", "0"),
    ("(1 to: 3) printString", "'anInterval( 1, 2, 3)'"),
    ("(1 to: 0) detect: [:each | true] ifNone: [#none]", "#none"),
]


class IntervalTests(SynchronousTestCase):
    """
    What an Interval computes, checked expression by expression.
    """

    def setUp(self):
        self.session = Stone().login("DataCurator", "swordfish")
        self.evaluator = Evaluator(self.session)

    def answer(self, source):
        try:
            return printString(self.evaluator.evaluate(source))
        except errors.SmalltalkError as e:
            return f"error: {e.description}"

    def test_computed(self):
        """
        Each answers at once: nothing builds a billion elements.
        """
        wrong = []
        for source, expected in COMPUTED:
            started = time.monotonic()
            answer = self.answer(source)
            if answer != expected or time.monotonic() - started > 1:
                wrong.append((source, expected, answer))
        self.assertEqual(wrong, [])

    def test_outOfRange(self):
        """
        An index past either end is refused as any collection's.
        """
        for source in (f"{BILLION} at: 1000000001", f"{BILLION} at: 0", "(1 to: 0) first",
                       "(1 to: 0) last"):
            e = self.assertRaises(errors.SmalltalkError, self.evaluator.evaluate, source)
            self.assertEqual(e.className, "OffsetError", source)

    def test_zeroStep(self):
        e = self.assertRaises(errors.SmalltalkError, self.evaluator.evaluate,
                              "Interval from: 1 to: 10 by: 0")
        self.assertEqual(e.className, "OutOfRange")

    def test_buildingTooMany(self):
        """
        Building the elements of an Interval larger than the simulator
        builds ends the call with the simulator's own error, which no
        handler takes (a gem would run out of temporary object memory).
        """
        for source in (f"{BILLION} asArray", f"{BILLION} printString", f"{BILLION} reverse",
                       f"{BILLION} asOrderedCollection", f"{BILLION} copyFrom: 1 to: 999999999",
                       f"[{BILLION} asArray] on: Error do: [:e | 7]",
                       f"{HUGE} copyFrom: 2 to: 10000000000000000000000000",
                       "(Interval from: 0 to: 1e20 by: 1e-5) includes: 1e19"):
            e = self.assertRaises(errors.GciError, self.evaluator.evaluate, source)
            self.assertEqual((e.number, e.reason), (0, "simulatorLimit"), source)
            self.assertIn("the simulator builds at most", e.message)

    def test_buildingAtTheLimit(self):
        """
        An Interval of exactly the limit's size is built.
        """
        self.assertEqual(self.answer(f"(1 to: {MAX_ELEMENTS}) asArray size"), str(MAX_ELEMENTS))

    def test_softBreakEndsLongLoop(self):
        """
        A C{do:} over a billion elements is a long loop: a soft break ends
        it within moments, as it ends any loop.
        """
        self.session.interrupt.begin()
        self.addCleanup(self.session.interrupt.end)
        breaker = threading.Timer(0.2, self.session.interrupt.breakCall, [False])
        breaker.start()
        self.addCleanup(breaker.join)
        started = time.monotonic()
        e = self.assertRaises(errors.GciError, self.evaluator.evaluate,
                              f"| n | n := 0. {BILLION} do: [:each | n := n + 1]. n")
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(e.number, errors.SOFT_BREAK)

    def test_softBreakResumed(self):
        """
        A handler may resume the Break, and the loop goes on where it was.
        """
        self.session.interrupt.begin()
        self.addCleanup(self.session.interrupt.end)
        breaker = threading.Timer(0.05, self.session.interrupt.breakCall, [False])
        breaker.start()
        self.addCleanup(breaker.join)
        self.assertEqual(self.answer(
            "| n | n := 0. [(1 to: 300000) do: [:each | n := n + each]] "
            "on: Break do: [:e | e resume: nil]. n"), str(300000 * 300001 // 2))

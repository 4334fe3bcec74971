"""
Tests for the simulated stone's stack (L{gsmcpd.testing.simulator.frames}):
C{GsProcess _frameContentsAt:} over the evaluator's own frames, as strict as
GemStone's reflection reads (a test double, not GemStone).
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.objects import Array, printString
from gsmcpd.testing.simulator.stone import Stone

CLASS = ("Object subclass: 'Probe' instVarNames: #() classVars: #() classInstVars: #() "
         "poolDictionaries: #() inDictionary: UserGlobals options: #().\n")

LINE = ("[:f | | m | m := f at: 1. m _lineNumberForStep: (m _previousStepPointForIp: "
        "(f at: 2))]")


class FramesTestCase(SynchronousTestCase):

    def setUp(self):
        self.evaluator = Evaluator(Stone().login("DataCurator", "swordfish"))

    def evaluate(self, source):
        return self.evaluator.evaluate(source)

    def compile(self, *sources):
        self.evaluate(CLASS + "\n".join(
            f"(UserGlobals at: #Probe) compileMethod: '{each}' dictionaries: System "
            "myUserProfile symbolList category: 'probe'." for each in sources))


class FrameContentsTests(FramesTestCase):

    def test_levelOneIsTheSender(self):
        """
        Level 1 is the frame that sent C{_frameContentsAt:}: here the doit,
        whose method has no class, with its temporaries' names and values
        from slot 9 and 11 on, and nil as C{self} (slots 8 and 10).
        """
        frame = self.evaluate("| a b |\na := 3.\nb := GsProcess _frameContentsAt: 1.\nb")
        self.assertIsInstance(frame, Array)
        items = frame.items
        self.assertEqual(printString(items[8]), "anArray( #a, #b)")
        self.assertEqual((items[7], items[9], items[10], items[11]), (None, None, 3, None))
        self.assertIsNone(self.evaluate(
            "(GsProcess _frameContentsAt: 1) first inClass"))

    def test_nilBeyondTheStack(self):
        self.assertEqual(self.evaluate(
            "Array with: (GsProcess _frameContentsAt: 0) with: (GsProcess _frameContentsAt: 2)"
            " with: (GsProcess _frameContentsAt: 1) notNil").items, [None, None, True])

    def test_anIpIsNotALine(self):
        """
        A frame's ip is not its line, nor is its step point: only the two
        conversions GemStone's reflection has give the line.
        """
        found = self.evaluate(
            f"| f |\n\nf := GsProcess _frameContentsAt: 1.\n"
            f"Array with: ({LINE} value: f) with: ((f at: 1) _lineNumberForStep: (f at: 2))")
        self.assertEqual(found.items[0], 3)
        self.assertNotEqual(found.items[1], 3)

    def test_methodsBlocksAndPrimitives(self):
        """
        Each method, block and kernel primitive running is a frame: a
        block's method is not its home method, and its receiver (slot 10)
        is the block, not C{self}; a method's VM temporary has no value, a
        block's holds one; a primitive's frame names the class that
        implements it.
        """
        self.compile("outer\n\t^#(1) collect: [:each | self inner: each]",
                     "inner: x\n\t| y |\n\ty := x + 1.\n\t^Array with: (GsProcess "
                     "_frameContentsAt: 1) with: (GsProcess _frameContentsAt: 2) with: "
                     "(GsProcess _frameContentsAt: 3) with: (GsProcess _frameContentsAt: 4)")
        inner, block, collect, outer = self.evaluate("Probe new outer first").items
        self.assertEqual([each.text for each in self.evaluate(
            "Probe new outer first collect: [:f | (f at: 1) homeMethod selector]").items],
            ["inner:", "outer", "collect:", "outer"])
        self.assertEqual(printString(inner.items[8]), "anArray( #x, #y, #'.t1')")
        self.assertEqual(inner.items[10:], [1, 2])
        self.assertEqual(printString(block.items[9]), "anExecBlock")
        self.assertEqual((printString(block.items[8]), block.items[10:]),
                         ("anArray( #each, #'.t1')", [1, None]))
        self.assertEqual(printString(block.items[7]), "aProbe")
        self.assertIsNot(block.items[0], outer.items[0])
        self.assertIs(block.items[0].home, outer.items[0])
        self.assertEqual(collect.items[0].behavior.name, "SequenceableCollection")

    def test_inClassIsTheClass(self):
        """
        A method's class is the one object its receivers' C{class} answers,
        on either side.
        """
        self.compile("here\n\t^((GsProcess _frameContentsAt: 1) at: 1) inClass == self class")
        self.evaluate("Probe class compileMethod: 'here ^((GsProcess _frameContentsAt: 1) "
                      "at: 1) inClass == self class' dictionaries: System myUserProfile "
                      "symbolList category: 'probe'")
        self.assertEqual(self.evaluate("Array with: Probe new here with: Probe here").items,
                         [True, True])

    def test_handlerRunsAboveTheSignal(self):
        """
        An Error's handler reads the stack where it was signalled, with a
        frame of the exception itself between (GemStone runs the handler
        before unwinding); a Halt's, where it was signalled, alike.
        """
        self.compile("divide\n\t| zero |\n\tzero := 0.\n\t^3 / zero")
        for signal in ("Probe new divide", "Probe new halt"):
            frames = self.evaluate(
                f"[{signal}] on: ZeroDivide, Halt do: [:ex | | all level f |\n"
                "all := OrderedCollection new. level := 1.\n"
                "[(f := GsProcess _frameContentsAt: level) notNil] whileTrue: [\n"
                "all add: f. level := level + 1].\n"
                "all collect: [:each | Array with: (each at: 1) homeMethod selector "
                "with: (each at: 10) == ex]]")
            names = [(printString(each.items[0]), each.items[1]) for each in frames.items]
            names = [(name.lstrip("#"), flag) for name, flag in names]
            self.assertIn(("signal", True), names, signal)
            below = names[[flag for _, flag in names].index(True) + 1:]
            self.assertEqual(below[0][0], "/" if "divide" in signal else "halt")

    def test_notAnInteger(self):
        e = self.assertRaises(errors.SmalltalkError, self.evaluate,
                              "GsProcess _frameContentsAt: 'one'")
        self.assertEqual(e.className, "ArgumentTypeError")

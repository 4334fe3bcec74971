"""
Tests for evaluation in a stopped frame
(L{gsmcpd.testing.simulator.contexteval}).
"""

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.objects import Symbol
from tests.simulator.test_simulator_debugging import DebuggingTestCase


class EvaluateInContextTests(DebuggingTestCase):
    """
    C{String>>evaluateInContext:symbolList:} with the frame's temporaries in
    a SymbolDictionary before the session's list, as Jasper evaluates in a
    stopped frame.
    """

    def setUp(self):
        super().setUp()
        self.evaluate("Object subclass: 'Holder' instVarNames: #(#held) classVars: #() "
                      "classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals "
                      "options: #()")
        self.evaluate("(UserGlobals at: #Holder) compileMethod: 'run\n\t| x |\n\theld := 5.\n"
                      "\tx := 3.\n\t^ x + held' dictionaries: System myUserProfile symbolList "
                      "category: 'probe'.")
        self.evaluate("(Holder compiledMethodAt: #run) setBreakAtStepPoint: 3")
        self.oop = self.stopped("Holder new run").context

    def inFrame(self, code):
        return self.evaluate(
            f"| f d names | f := (Object _objectForOop: {self.oop}) _frameContentsAt: 1.\n"
            "d := SymbolDictionary new. names := f at: 9.\n"
            "1 to: names size do: [:i | ((names at: i) at: 1) = $. ifFalse: [\n"
            "  d at: (names at: i) put: (f at: 10 + i)]].\n"
            f"Array with: ({code!r} evaluateInContext: (f at: 8) symbolList: "
            "(SymbolList with: d) , System myUserProfile symbolList) with: d")

    def test_selfAndTemporaries(self):
        value, _ = self.inFrame("x * 10 + held").items
        self.assertEqual(value, 35)

    def test_assignmentWritesTheDictionary(self):
        value, bindings = self.inFrame("x := 42").items
        self.assertEqual(value, 42)
        self.assertEqual(self.evaluator.send(bindings, "at:", (Symbol("x"),)), 42)
        self.assertEqual(self.top(self.oop)[2], {"x": 3})

    def test_unknownNameDoesNotCompile(self):
        self.assertRaises(errors.SmalltalkError, self.inFrame, "y + 1")

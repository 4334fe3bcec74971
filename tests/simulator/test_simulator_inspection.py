"""
The simulated stone's object ids and instance-variable reads
(L{gsmcpd.testing.simulator.inspection}).
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, gem, inspection
from gsmcpd.testing.simulator.objects import Array, String, Symbol
from gsmcpd.testing.simulator.stone import Stone


class InspectionTests(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login("DataCurator", "swordfish")

    def evaluate(self, source, session=None):
        return gem.answer(session or self.session, source).decode()

    def test_oneOopPerObject(self):
        """
        An object keeps its oop; another object (even an equal one) has
        another; a Symbol, a number or nil is one object wherever it is.
        """
        self.assertEqual(self.evaluate(
            "| a b | a := 'x' copy. b := 'x' copy. "
            "(Array with: a asOop = a asOop with: a asOop = b asOop "
            "with: #abc asOop = #abc asOop with: 3 asOop = 3 asOop "
            "with: nil asOop = nil asOop) printString"),
            "anArray( true, false, true, true, true)")

    def test_oopsLikeGemStones(self):
        """
        An oop is a positive integer, 1 modulo 8.
        """
        self.assertEqual(self.evaluate("(Object new asOop \\\\ 8) printString"), "1")

    def test_instVarAt(self):
        """
        instVarAt: reads the named instance variables in allInstVarNames
        order; out of range is GemStone's OffsetError.
        """
        self.assertEqual(self.evaluate(
            "| a | a := Account owner: 'ann'. (Array with: (a instVarAt: 1) "
            "with: (a instVarAt: 2)) printString"), "anArray( 0, 'ann')")
        e = self.assertRaises(errors.GciError, self.evaluate, "Object new instVarAt: 1")
        self.assertEqual(e.number, errors.OFFSET_ERROR)

    def test_classInstanceVariables(self):
        """
        A class's instance variables, as the model has them, are Class's
        C{name} and then its class-instance variables.
        """
        self.evaluate("Object subclass: 'Counter' instVarNames: #() classVars: #() "
                 "classInstVars: #(count) poolDictionaries: #() "
                 "inDictionary: UserGlobals options: #()")
        self.evaluate("Counter class compileMethod: 'bump count := 7' "
                 "dictionaries: System myUserProfile symbolList category: 'x'")
        self.assertEqual(self.evaluate("Counter bump. (Counter instVarAt: 2) printString"),
                         "7")
        self.assertEqual(self.evaluate("(Counter instVarAt: 1) printString"), "#Counter")

    def test_kernelVariablesTheModelLacksFailLoudly(self):
        """
        A kernel object with instance variables the model does not hold
        (none has them today) is the model's gap: a Python error, never a
        nil passed off as GemStone's.
        """
        class Evaluator:
            def send(self, receiver, selector, args):
                return Array([Symbol("size")])

        self.assertRaises(NotImplementedError, inspection._instVarAt,
                          Evaluator(), String("abc"), 1)

"""
The simulated stone answers as GemStone 3.7 where the audit of issue 30
found it kinder, stricter or different; each test names its source.

MCP below is GemTalk/mcp_server docs/GemStone_Notes.md, measured on 3.7
stones.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.stone import Stone

DEFINE = ("Object subclass: 'Probe' instVarNames: #(count) classVars: #() classInstVars: #() "
          "poolDictionaries: #() inDictionary: UserGlobals options: #()")


def compileSource(side, source):
    return (f"Probe{side} compileMethod: {source!r} dictionaries: System myUserProfile "
            "symbolList category: 'probe'")


class FidelityTestCase(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login("DataCurator", "swordfish")
        self.evaluator = Evaluator(self.session)

    def evaluate(self, source):
        return printString(self.evaluator.evaluate(source))

    def commit(self):
        self.assertEqual(self.evaluate("System commitTransaction"), "true")


class DeclarationTests(FidelityTestCase):
    """
    Issue 30 items 1 and 2: Class's instance variables on the class side.
    """

    def setUp(self):
        super().setUp()
        self.evaluate(DEFINE)

    def refused(self, side, source):
        e = self.assertRaises(errors.SmalltalkError, self.evaluate, compileSource(side, source))
        self.assertEqual(e.className, "CompileError")
        return e.details[0][0]

    def test_classSideTempNameRefused(self):
        """
        MCP: a class-side method declaring a temporary C{name} is CompileError
        1030, "variable has already been declared" (it is Class's).
        """
        self.assertEqual(self.refused(" class", "probe | name | name := 1. ^name"),
                         errors.ALREADY_DECLARED)

    def test_instanceSideTempShadowingInstVarRefused(self):
        """
        The same rule on the instance side: a temporary named as an
        instance variable (MCP: "the same goes for the other Class ivars").
        """
        self.assertEqual(self.refused("", "probe | count | ^count"), errors.ALREADY_DECLARED)
        self.assertEqual(self.refused("", "probe: count ^count"), errors.ALREADY_DECLARED)

    def test_classSideNameInScope(self):
        """
        MCP: C{name} is in scope on the class side; C{^name} compiles and
        answers the class's name.
        """
        self.evaluate(compileSource(" class", "probeName ^name"))
        self.assertEqual(self.evaluate("Probe probeName"), "#Probe")

    def test_classInstVarNameRefused(self):
        """
        A class-instance variable C{name} would be Class's again: refused.
        """
        self.assertRaises(errors.SmalltalkError, self.evaluate,
                          DEFINE.replace("classInstVars: #()", "classInstVars: #(name)"))

    def test_metaclassInstVarNames(self):
        """
        C{Object class allInstVarNames} is not empty: Class's C{name}.
        """
        self.assertEqual(self.evaluate("(Object class allInstVarNames includes: #name)"), "true")


class RedefinitionTests(FidelityTestCase):

    def test_unchangedRedefinitionIsNoChange(self):
        """
        MCP (issue 30): re-sending an unchanged class definition after a
        commit leaves C{System needsCommit} false.
        """
        self.evaluate(DEFINE)
        self.commit()
        self.evaluate(DEFINE)
        self.assertEqual(self.evaluate("System needsCommit"), "false")

    def test_changedRedefinitionIsAChange(self):
        self.evaluate(DEFINE)
        self.commit()
        self.evaluate(DEFINE.replace("#(count)", "#(count total)"))
        self.assertEqual(self.evaluate("System needsCommit"), "true")


class CommitResultTests(FidelityTestCase):
    """
    MCP: C{System transactionConflicts at: #commitResult} after each way a
    transaction ends.
    """

    def commitResult(self):
        return self.evaluate("System transactionConflicts at: #commitResult")

    def test_success(self):
        self.evaluate("UserGlobals at: #Probe put: 1")
        self.commit()
        self.assertEqual(self.commitResult(), "#success")

    def test_readOnlyAfterContinue(self):
        self.assertEqual(self.evaluate("System continueTransaction"), "true")
        self.assertEqual(self.commitResult(), "#readOnly")

    def conflict(self):
        other = Evaluator(self.stone.login("DataCurator", "swordfish"))
        self.evaluate("UserGlobals at: #Shared put: 1")
        other.evaluate("UserGlobals at: #Shared put: 2")
        self.assertEqual(printString(other.evaluate("System commitTransaction")), "true")

    def test_failureAfterAFalseContinue(self):
        self.conflict()
        self.assertEqual(self.evaluate("System continueTransaction"), "false")
        self.assertEqual(self.commitResult(), "#failure")

    def test_retryFailureAfterAConflict(self):
        self.conflict()
        self.assertEqual(self.evaluate("System commitTransaction"), "false")
        self.assertEqual(self.commitResult(), "#retryFailure")


class AnswerTests(FidelityTestCase):
    """
    Issue 30 items 3 and 4.
    """

    def test_generatedComment(self):
        """
        A class with no comment answers GemStone's generated text, as 3.x
        stones file it out (GemTalk/Rowan, GemTalk/Grail: "No
        class-specific documentation for X, hierarchy is: ").
        """
        self.evaluate(DEFINE)
        self.assertEqual(self.evaluator.evaluate("Probe comment").text,
                         "No class-specific documentation for Probe, hierarchy is: \n"
                         "Object\n  Probe( count)\n")
        self.assertIn("Probe comment: \n'No class-specific documentation for Probe",
                      self.evaluator.evaluate("Probe fileOutClass").text)

    def test_setCommentWins(self):
        self.evaluate(DEFINE)
        self.evaluate("Probe comment: 'A probe.'")
        self.assertEqual(self.evaluate("Probe comment"), "'A probe.'")

    def test_loggedOutDescription(self):
        """
        A logged-out session's description is an Array whose UserProfile
        is nil.
        """
        self.assertEqual(self.evaluate("(System descriptionOfSession: 999) first"), "nil")

    def test_asIntegerStopsAtTheFirstBadCharacter(self):
        """
        MCP: C{'1-2' asInteger} answers 1.
        """
        self.assertEqual(self.evaluate("'1-2' asInteger"), "1")

    def test_symbolDictionaryNew(self):
        """
        Issue 30: C{SymbolDictionary new at: #a put: 1} works (it failed
        with the model's own C{_entries}).
        """
        self.assertEqual(self.evaluate("(SymbolDictionary new at: #a put: 1; yourself) size"),
                         "1")
        self.assertEqual(self.evaluate("| d | d := SymbolDictionary new. d at: #Mine put: d. "
                                       "d name"), "#Mine")

    def test_identitySetProtocol(self):
        """
        Issue 30: an IdentitySet answers C{size} and C{do:} (inspect's code
        for unordered collections needs them).
        """
        self.assertEqual(self.evaluate(
            "| s n | s := IdentitySet new. s add: 'a'; add: 'a'; add: #b; add: #b. n := 0. "
            "s do: [:each | n := n + 1]. {s size. n}"), "anArray( 3, 3)")

    def test_includesString(self):
        """
        MCP: C{includesString:} answers, ignoring case.
        """
        self.assertEqual(self.evaluate("'abcDEF' includesString: 'cdef'"), "true")


class LiteralTests(FidelityTestCase):
    """
    Issue 30 item 1: compiled literals cannot be modified in place (the
    stricter reading, docs/gemstone-fidelity.rst).
    """

    def test_literalArrayInvariant(self):
        e = self.assertRaises(errors.SmalltalkError, self.evaluate, "#(1 2 3) at: 1 put: 9")
        self.assertIn("invariant", e.description)

    def test_literalStringInvariant(self):
        self.assertRaises(errors.SmalltalkError, self.evaluate, "'abc' at: 1 put: $z")

    def test_literalInAMethodInvariant(self):
        self.evaluate(DEFINE)
        self.evaluate(compileSource("", "probe ^#(1 2)"))
        self.assertRaises(errors.SmalltalkError, self.evaluate, "Probe new probe at: 1 put: 3")

    def test_copiesAndBracesAreNot(self):
        self.assertEqual(self.evaluate("#(1 2 3) copy at: 1 put: 9; yourself"),
                         "anArray( 9, 2, 3)")
        self.assertEqual(self.evaluate("{1. 2} at: 1 put: 9; yourself"), "anArray( 9, 2)")
        self.assertEqual(self.evaluate("(String new: 2) at: 1 put: $a; yourself"), "'a '")

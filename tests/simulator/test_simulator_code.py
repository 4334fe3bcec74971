"""
Tests for the simulated stone's code repository (a test double, not
GemStone), in process: dictionaries, classes and methods under the
transaction model, user classes run by the evaluator, search, SUnit, and
the seeded repository.
"""

import collections
import json

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, gem
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.templates.render import Template

TestOutcome = collections.namedtuple(
    "TestOutcome", "className selector status exceptionClass description",
    defaults=(None, None))

FIXED_WITHDRAW = ("withdraw: amount\n\tamount > balance ifTrue: [^self].\n"
                  "\tbalance := balance - amount")


class CodeTestCase(SynchronousTestCase):
    """
    A seeded stone and two sessions on it.
    """

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login("DataCurator", "swordfish")
        self.evaluator = Evaluator(self.session)
        self.code = self.evaluator.code

    def other(self):
        """
        The code model of another session.
        """
        return Evaluator(self.stone.login("DataCurator", "swordfish")).code

    def printed(self, source):
        return printString(self.evaluator.evaluate(source))

    def commit(self, code=None):
        self.assertTrue((code or self.code).session.transaction.commit())

    def abort(self):
        self.session.transaction.abort()


class SymbolListTests(CodeTestCase):

    def test_seededOrder(self):
        self.assertEqual(self.code.symbolList(),
                         ["UserGlobals", "Banking", "Globals", "Published"])

    def test_dictionaryEntries(self):
        banking = self.code.dictionaryEntries("Banking")
        self.assertEqual(sorted(banking),
                         ["Account", "AccountTest", "Banking", "SavingsAccount"])
        self.assertEqual(banking["Account"].instVarNames, ("balance", "owner"))
        self.assertEqual(self.code.dictionaryEntries("UserGlobals")["AppName"], "'demo'")
        self.assertEqual(self.code.dictionaryEntries("Globals")["Object"].category, "Kernel")
        self.assertIsNone(self.code.dictionaryEntries("Nowhere"))

    def test_addAndAbort(self):
        self.code.addDictionary("Scratch")
        self.code.defineClass("Tmp", "Object", dictionary="Scratch")
        self.assertEqual(self.code.symbolList()[-1], "Scratch")
        self.assertEqual(self.printed("Tmp name"), "#Tmp")
        self.assertNotIn("Scratch", self.other().symbolList())
        self.abort()
        self.assertNotIn("Scratch", self.code.symbolList())
        self.assertIsNone(self.code.classNamed("Tmp"))

    def test_addRefusesTakenName(self):
        for name in ("Banking", "AppName", "Object"):
            e = self.assertRaises(errors.SmalltalkError, self.code.addDictionary, name)
            self.assertIn("already defined", e.description)

    def test_removeAndAbort(self):
        self.code.removeDictionary("Banking")
        self.assertIsNone(self.code.classNamed("Account"))
        self.assertEqual(list(self.code.scanMethods("Banking")), [])
        self.abort()
        self.assertIn("Banking", self.code.symbolList())
        self.assertEqual(self.printed("Account new deposit: 3; balance"), "3")

    def test_removeAbsent(self):
        self.assertRaises(errors.SmalltalkError, self.code.removeDictionary, "Nowhere")


class ClassTests(CodeTestCase):

    def test_kernelClassesInGlobals(self):
        names = [info.name for info in self.code.allClasses() if info.dictionary == "Globals"]
        for name in ("Object", "String", "Symbol", "Array", "OrderedCollection",
                     "Dictionary", "SmallInteger", "TestCase"):
            self.assertIn(name, names)
        self.assertEqual(self.code.methods("Object"), {})

    def test_allClassesOrder(self):
        names = [info.name for info in self.code.allClasses()]
        self.assertEqual(names[:4], ["Greeter", "Account", "AccountTest", "SavingsAccount"])

    def test_subclasses(self):
        self.assertEqual(self.code.subclassesOf("Account"), ["SavingsAccount"])
        self.assertIn("AccountTest", self.code.subclassesOf("TestCase"))

    def test_redefineKeepingShape(self):
        info, changed = self.code.defineClass(
            "Account", "Object", ("balance", "owner"), category="Money")
        self.assertEqual((info.version, changed, info.category, info.dictionary),
                         (1, False, "Money", "Banking"))
        self.assertIn("deposit:", self.code.methods("Account"))

    def test_shapeChangeAndAbort(self):
        """
        A shape change makes a new version without methods; abort brings
        the old version back with its methods and history.
        """
        info, changed = self.code.defineClass("Account", "Object", ("balance", "owner", "limit"))
        self.assertEqual((info.version, changed), (2, True))
        self.assertEqual(self.code.methods("Account"), {})
        self.assertEqual(self.code.methods("Account", meta=True), {})
        self.assertEqual(len(self.code.classHistory("Account")), 2)
        self.assertTrue(self.session.transaction.needsCommit)
        self.abort()
        self.assertEqual(self.code.classNamed("Account").version, 1)
        self.assertEqual(len(self.code.classHistory("Account")), 1)
        self.assertIn("withdraw:", self.code.methods("Account"))
        self.assertIn("new", self.code.methods("Account", meta=True))

    def test_newClass(self):
        info, changed = self.code.defineClass("Point3", "Object", ("x", "y", "z"))
        self.assertEqual((info.version, changed, info.dictionary), (1, False, "UserGlobals"))
        self.assertEqual(self.printed("Point3 new"), "aPoint3")

    def test_refusals(self):
        for args in [("String", "Object"), ("Nope", "NoSuchClass"), ("lower", "Object"),
                     ("SavingsAccount", "Account", ("balance",)),
                     ("Account", "SavingsAccount", ("balance", "owner"))]:
            self.assertRaises(errors.SmalltalkError, self.code.defineClass, *args)
        self.assertRaises(errors.SmalltalkError, self.code.defineClass,
                          "Fine", "Object", dictionary="Nowhere")

    def test_removeClassAndComment(self):
        self.code.setComment("Greeter", "Says hello.")
        self.assertEqual(self.printed("Greeter comment"), "'Says hello.'")
        self.code.removeClass("Greeter")
        self.assertIsNone(self.code.classNamed("Greeter"))
        self.assertEqual(self.code.implementorsOf("greet"), [])
        self.abort()
        self.assertEqual(self.code.classNamed("Greeter").comment,
                         "I greet whoever runs the demo, by the application's name.")
        self.assertRaises(errors.SmalltalkError, self.code.removeClass, "Object")

    def test_definitionShape(self):
        self.assertEqual(self.code.definition("Account"),
                         "Object subclass: 'Account'\n"
                         "  instVarNames: #( balance owner)\n"
                         "  classVars: #()\n"
                         "  classInstVars: #()\n"
                         "  poolDictionaries: #()\n"
                         "  inDictionary: Banking\n"
                         "  options: #()")

    def test_fileOutShape(self):
        text = self.code.fileOut("Account")
        self.assertTrue(text.startswith(
            "! ------------------- Class definition for Account\n"
            "expectvalue /Class\ndoit\nObject subclass: 'Account'\n"))
        self.assertIn("Account comment: \n'I hold the balance of one owner''s money;", text)
        self.assertIn("Account category: 'Banking-Core'\n%\n", text)
        removal = text.index("removeallmethods Account\nremoveallclassmethods Account\n")
        classSide = text.index("category: 'instance creation'\nclassmethod: Account\nnew\n"
                               "\t^super new initialize\n%\n")
        instanceSide = text.index(
            "category: 'accessing'\nmethod: Account\nbalance\n\t^balance\n%\n")
        self.assertLess(removal, classSide)
        self.assertLess(classSide, instanceSide)

    def test_classDefinitionMessage(self):
        self.printed("Object subclass: 'Shape' instVarNames: #( sides) classVars: #() "
                     "classInstVars: #() poolDictionaries: #() inDictionary: UserGlobals "
                     "options: #()")
        self.assertEqual(self.code.classNamed("Shape").instVarNames, ("sides",))

    def test_categorySetter(self):
        """
        category: sets a class's category, as GemStone's file-out does
        after the definition: uncommitted until commit, gone on abort;
        a kernel class's is not changed.
        """
        self.assertEqual(self.printed("Account category: 'Ledgers'. Account category"),
                         "#Ledgers")
        self.assertIn("Account category: 'Ledgers'\n%\n", self.code.fileOut("Account"))
        self.assertEqual(self.other().classNamed("Account").category, "Banking-Core")
        self.abort()
        self.assertEqual(self.code.classNamed("Account").category, "Banking-Core")
        self.assertRaises(errors.SmalltalkError, self.evaluator.evaluate,
                          "Object category: 'Mine'")


class BindingTests(CodeTestCase):
    """
    A class is bound like any global: under its own name where it was
    defined, and under any names a user binds it to, in any dictionaries.
    """

    def test_aliasIsABinding(self):
        self.printed("UserGlobals at: #Acct put: Account")
        self.assertEqual(self.code.dictionaryEntries("UserGlobals")["Acct"].name, "Account")
        self.assertEqual(self.printed("Acct == Account"), "true")

    def test_dictionaryAndSymbolOfMatchesByValue(self):
        """
        As in GemStone, an alias in an earlier dictionary wins over the
        class's own name.
        """
        self.printed("UserGlobals at: #Acct put: Account")
        self.assertEqual(self.printed(
            "System myUserProfile dictionaryAndSymbolOf: Account"),
            "anArray( a SymbolDictionary named UserGlobals, #Acct)")

    def test_redefinitionBindsWhereItIsTold(self):
        """
        inDictionary: binds the new version there and leaves the other
        bindings holding the old one.
        """
        self.code.defineClass("Greeter", "Object", ("name",), dictionary="Banking")
        self.assertEqual(self.printed("(UserGlobals at: #Greeter) == (Banking at: #Greeter)"),
                         "false")
        self.assertEqual(self.code.classNamed("Greeter").version, 2)

    def test_removingTheLastBindingRemovesTheClass(self):
        self.printed("UserGlobals at: #Acct put: Account")
        self.printed("UserGlobals removeKey: #Acct")
        self.assertIsNotNone(self.code.classNamed("Account"))
        self.printed("Banking removeKey: #SavingsAccount")
        self.assertIsNone(self.code.classNamed("SavingsAccount"))
        self.assertEqual(self.code.methods("SavingsAccount"), {})

    def test_kernelBindingsCannotBeRemoved(self):
        self.assertRaises(errors.SmalltalkError, self.evaluator.evaluate,
                          "Globals removeKey: #Object")


class MethodTests(CodeTestCase):

    def test_compileAndRun(self):
        info = self.code.compileMethod("Account", "double\n\tbalance := balance * 2", "extras")
        self.assertEqual((info.selector, info.category, info.meta), ("double", "extras", False))
        self.assertEqual(self.printed("Account new deposit: 5; double; balance"), "10")
        self.assertEqual(self.code.method("Account", "double"), info)

    def test_inheritanceAndSuper(self):
        self.code.compileMethod("SavingsAccount", "deposit: amount\n\tsuper deposit: amount * 2")
        self.assertEqual(self.printed(
            "(SavingsAccount new rate: 10; deposit: 50; yourself) interest"), "10")
        self.assertEqual(self.printed("SavingsAccount new owner"), "nil")

    def test_classSideAndVariables(self):
        self.code.defineClass("Counter", "Object", ("count",), classVars=("Total",),
                              classInstVars=("made",))
        self.code.compileMethod("Counter", "new\n\tmade := (made ifNil: [0]) + 1.\n\t^super new",
                                meta=True)
        self.code.compileMethod("Counter", "made ^made", meta=True)
        self.code.compileMethod(
            "Counter", "bump\n\tcount := (count ifNil: [0]) + 1.\n"
                       "\tTotal := (Total ifNil: [0]) + 1.\n\t^Total")
        self.assertEqual(self.printed("Counter new bump; bump. Counter new bump"), "3")
        self.assertEqual(self.printed("Counter made"), "2")

    def test_nonLocalReturnFromBlock(self):
        self.code.compileMethod("Account", "sign\n\tbalance > 0 ifTrue: [^#positive].\n\t^#zero")
        self.assertEqual(self.printed("Account new deposit: 1; sign"), "#positive")
        self.assertEqual(self.printed("Account new sign"), "#zero")

    def test_doesNotUnderstand(self):
        e = self.assertRaises(errors.SmalltalkError, self.printed, "Account new frobnicate")
        self.assertEqual(e.number, errors.MESSAGE_NOT_UNDERSTOOD)
        self.assertIn("#'frobnicate'", e.description)

    def test_kernelReflection(self):
        self.assertEqual(self.printed(
            "{Account new isKindOf: Object. SavingsAccount new isKindOf: Account. "
            "Account new isKindOf: SavingsAccount. Account new respondsTo: #deposit:. "
            "SavingsAccount superclass. Account new class. Account == Account}"),
            "anArray( true, true, false, true, Account, Account, true)")

    def test_syntaxError(self):
        e = self.assertRaises(errors.SmalltalkError, self.code.compileMethod,
                              "Account", "broken\n\t^balance +\n")
        self.assertEqual((e.number, e.className), (errors.COMPILE_ERROR, "CompileError"))
        self.assertIn("expected an argument after '+'", e.description)
        self.assertIn("(line 3)", e.description)

    def test_undeclared(self):
        e = self.assertRaises(errors.SmalltalkError, self.code.compileMethod,
                              "Account", "leak\n\t| t |\n\tt := 1.\n\t^Foo + t")
        self.assertIn("undefined symbol  Foo", e.description)
        self.assertIn("(line 4)", e.description)
        self.assertIsNone(self.code.method("Account", "leak"))

    def test_instVarsAreScoped(self):
        """
        A class's instance variables are names in its methods only.
        """
        self.assertRaises(errors.SmalltalkError, self.code.compileMethod,
                          "Greeter", "peek ^balance")
        self.code.compileMethod("SavingsAccount", "peek ^balance + rate")

    def test_removeMethod(self):
        self.code.removeMethod("Account", "owner")
        self.assertIsNone(self.code.method("Account", "owner"))
        self.assertRaises(errors.SmalltalkError, self.code.removeMethod, "Account", "owner")

    def test_kernelExtension(self):
        self.code.compileMethod("Object", "isAccount ^false")
        self.code.compileMethod("Account", "isAccount ^true")
        self.assertEqual(self.printed("{3 isAccount. Account new isAccount}"),
                         "anArray( false, true)")


class TransactionTests(CodeTestCase):

    def test_uncommittedCodeIsPrivate(self):
        other = self.other()
        self.code.compileMethod("Account", "double\n\tbalance := balance * 2")
        self.code.defineClass("Ledger", "Object", ("entries",), dictionary="Banking")
        self.assertIsNone(other.method("Account", "double"))
        self.assertIsNone(other.classNamed("Ledger"))
        self.commit()
        self.assertIsNone(other.classNamed("Ledger"))
        self.assertTrue(other.session.transaction.continueTransaction())
        self.assertEqual(other.classNamed("Ledger").dictionary, "Banking")
        self.assertEqual(printString(Evaluator(other.session).evaluate(
            "Account new deposit: 4; double; balance")), "8")

    def test_sameMethodConflicts(self):
        other = self.other()
        self.code.compileMethod("Account", "owner ^'mine'")
        other.compileMethod("Account", "owner ^'theirs'")
        other.compileMethod("Account", "extra ^1")
        self.commit()
        transaction = other.session.transaction
        self.assertFalse(transaction.commit())
        self.assertEqual(transaction.conflicts, {"Write-Write": [
            ("methodDictionary", "Account", False), ("selectors", "Account")]})

    def test_differentMethodsOfOneClassConflict(self):
        """
        GemStone's grain is the class: compiling different selectors of one
        class changes its method dictionary and its SymbolSet in both
        sessions, so the second commit fails.
        """
        other = self.other()
        self.code.compileMethod("Account", "one ^1")
        other.compileMethod("Account", "two ^2")
        self.commit()
        self.assertFalse(other.session.transaction.commit())
        other.session.transaction.abort()
        self.assertEqual(set(other.methods("Account")) & {"one", "two"}, {"one"})

    def test_refreshOverAnotherMethodOfTheClass(self):
        """
        A view moved over another session's commit to the same class
        leaves this session's change unable to commit.
        """
        other = self.other()
        self.code.compileMethod("Account", "one ^1")
        other.compileMethod("Account", "two ^2")
        self.commit(other)
        transaction = self.code.session.transaction
        self.assertFalse(transaction.continueTransaction())
        self.assertFalse(transaction.commit())

    def test_eitherSideOfOneClassConflicts(self):
        """
        The class side has a method dictionary of its own, but the two
        sides share the SymbolSet (the stricter reading).
        """
        other = self.other()
        self.code.compileMethod("Account", "one ^1")
        other.compileMethod("Account", "two ^2", meta=True)
        self.commit()
        transaction = other.session.transaction
        self.assertFalse(transaction.commit())
        self.assertEqual(transaction.conflicts, {"Write-Write": [("selectors", "Account")]})

    def test_differentClassesMerge(self):
        other = self.other()
        self.code.compileMethod("Account", "one ^1")
        other.compileMethod("SavingsAccount", "two ^2")
        self.commit()
        self.commit(other)
        self.abort()
        self.assertIn("two", self.code.methods("SavingsAccount"))

    def test_commentAndDefinitionConflictOnTheClass(self):
        other = self.other()
        self.code.setComment("Account", "mine")
        other.defineClass("Account", "Object", ("balance", "owner"), category="Elsewhere")
        self.commit()
        transaction = other.session.transaction
        self.assertFalse(transaction.commit())
        self.assertEqual(transaction.conflicts, {"Write-Write": [("class", "Account")]})

    def test_newClassesInOneDictionaryConflict(self):
        """
        Adding a binding changes the symbol dictionary: two sessions that
        each define a class in Banking cannot both commit.
        """
        other = self.other()
        self.code.defineClass("Ledger", "Object", dictionary="Banking")
        other.defineClass("Journal", "Object", dictionary="Banking")
        self.commit()
        transaction = other.session.transaction
        self.assertFalse(transaction.commit())
        self.assertEqual(transaction.conflicts, {"Write-Write": [("dictionary", "Banking")]})

    def test_conflictReport(self):
        """
        The commit template names the classes whose method dictionaries
        conflict, a class side as such, and counts the SymbolSet it cannot
        name.
        """
        other = self.other()
        self.code.compileMethod("Account", "owner ^1", meta=True)
        self.code.compileMethod("Account", "one ^1")
        other.compileMethod("Account", "owner ^2", meta=True)
        other.compileMethod("Account", "two ^2")
        self.commit()
        answer = json.loads(gem.answer(other.session, Template.named("commit").render(
            {}, 1 << 20)))
        self.assertEqual(answer["result"], {"committed": False, "conflicts": {
            "Write-Write": {"count": 3, "names": ["Account class", "Account"]}}})


class SearchTests(CodeTestCase):

    def names(self, methods):
        return [f"{m.className}{' class' if m.meta else ''}>>{m.selector}" for m in methods]

    def test_implementors(self):
        self.code.compileMethod("SavingsAccount", "balance ^super balance + 0")
        self.assertEqual(self.names(self.code.implementorsOf("balance")),
                         ["Account>>balance", "SavingsAccount>>balance"])

    def test_senders(self):
        self.assertEqual(self.names(self.code.sendersOf("new")),
                         ["Account class>>new", "Account class>>owner:"])
        self.assertEqual(self.names(self.code.sendersOf("assert:equals:")),
                         ["AccountTest>>testDeposit", "AccountTest>>testWithdrawTooMuch"])
        self.assertEqual(self.code.sendersOf("withdraw"), [])

    def test_references(self):
        self.assertEqual(self.names(self.code.referencesTo("AppName")), ["Greeter>>greet"])
        self.assertEqual(self.names(self.code.referencesTo("Account")), ["AccountTest>>setUp"])
        self.code.compileMethod("SavingsAccount", "shadow | Account | Account := 1. ^Account")
        self.assertEqual(self.names(self.code.referencesTo("Account")), ["AccountTest>>setUp"])

    def test_scanOrder(self):
        self.assertEqual(self.names(self.code.scanMethods()), [
            "Greeter>>greet",
            "Account>>balance", "Account>>deposit:", "Account>>initialize", "Account>>owner",
            "Account>>setOwner:", "Account>>withdraw:",
            "Account class>>new", "Account class>>owner:",
            "AccountTest>>setUp", "AccountTest>>testBroken", "AccountTest>>testDeposit",
            "AccountTest>>testWithdrawTooMuch",
            "SavingsAccount>>interest", "SavingsAccount>>rate:"])
        self.assertEqual(self.names(self.code.scanMethods("UserGlobals")), ["Greeter>>greet"])


class SUnitTests(CodeTestCase):

    def runTest(self, className, selector):
        """
        The run_test_class template's entry for one test.
        """
        source = Template.named("run_test_class").render(
            {"classNames": [className], "selector": selector, "listOnly": False,
             "failingOnly": False}, 1 << 20)
        [entry] = json.loads(gem.answer(self.session, source))["result"]["tests"]
        return TestOutcome(entry["className"], entry["selector"], entry["status"],
                           entry.get("exceptionClass"), entry.get("description"))

    def test_seededTests(self):
        self.assertEqual(self.code.testClasses(), ["AccountTest"])
        self.assertEqual(self.code.testSelectors("AccountTest"),
                         ["testBroken", "testDeposit", "testWithdrawTooMuch"])
        outcomes = {s: self.runTest("AccountTest", s)
                    for s in self.code.testSelectors("AccountTest")}
        self.assertEqual(outcomes["testDeposit"],
                         TestOutcome("AccountTest", "testDeposit", "passed"))
        self.assertEqual(outcomes["testWithdrawTooMuch"], TestOutcome(
            "AccountTest", "testWithdrawTooMuch", "failed", "TestFailure",
            "Expected 10 but was -15."))
        broken = outcomes["testBroken"]
        self.assertEqual((broken.status, broken.exceptionClass), ("error", "ZeroDivide"))
        self.assertIn("(error 2026)", broken.description)

    def test_fixMakesItPass(self):
        self.code.compileMethod("Account", FIXED_WITHDRAW, "operations")
        self.assertEqual(self.runTest("AccountTest", "testWithdrawTooMuch").status, "passed")

    def test_inheritedTests(self):
        self.code.defineClass("SavingsAccountTest", "AccountTest", dictionary="Banking")
        self.code.compileMethod("SavingsAccountTest", "testInterest\n\t"
                                "self assert: (SavingsAccount new rate: 5; deposit: 200; "
                                "yourself) interest equals: 10")
        self.assertEqual(self.code.testClasses(), ["AccountTest", "SavingsAccountTest"])
        self.assertEqual(self.code.testSelectors("SavingsAccountTest"),
                         ["testBroken", "testDeposit", "testInterest", "testWithdrawTooMuch"])
        self.assertEqual(self.runTest("SavingsAccountTest", "testInterest").status, "passed")

    def test_assertions(self):
        self.code.defineClass("AssertionsTest", "TestCase")
        cases = {
            "testDeny": ("self deny: 3 > 4", "passed"),
            "testDenyTrue": ("self deny: 3 < 4", "failed"),
            "testRaise": ("self should: [1/0] raise: ZeroDivide", "passed"),
            "testRaiseOther": ("self should: [1/0] raise: MessageNotUnderstood", "error"),
            "testNoRaise": ("self should: [1] raise: Error", "failed"),
            "testShouldnt": ("self shouldnt: [1] raise: Error", "passed"),
            "testShouldntButDid": ("self shouldnt: [nil foo] raise: Error", "failed"),
            "testSignal": ("self signalFailure: 'nope'", "failed"),
            "testNotBoolean": ("self assert: 3", "error"),
            "testOnErrorMissesFailure": ("[self assert: false] on: Error do: [:e | 0]", "failed"),
        }
        for selector, (body, _) in cases.items():
            self.code.compileMethod("AssertionsTest", f"{selector}\n\t{body}")
        self.assertEqual({s: self.runTest("AssertionsTest", s).status for s in cases},
                         {s: status for s, (_, status) in cases.items()})
        self.assertEqual(self.runTest("AssertionsTest", "testSignal").description, "nope")

    def test_tearDownRunsAfterFailure(self):
        self.code.compileMethod("AccountTest", "tearDown\n\tUserGlobals at: #TornDown put: true")
        self.runTest("AccountTest", "testWithdrawTooMuch")
        self.assertEqual(self.printed("UserGlobals at: #TornDown"), "true")


class SessionHandlerTests(CodeTestCase):

    def test_executeCodeRunsCompiledMethods(self):
        self.code.compileMethod("Account", FIXED_WITHDRAW)
        source = Template.named("execute_code").render(
            {"code": "Account new deposit: 5; withdraw: 9; balance", "limit": 100}, 1 << 20)
        answer = gem.answer(self.session, source)
        self.assertIn(b'"text":"5"', answer)
        self.assertIn(b'"needsCommit":true', answer)

"""
Tests for L{gsmcpd.testing.simulator.renaming}: a class renamed as GemStone
renames one, a new version under the new name in the same class history.
"""

from twisted.internet.defer import inlineCallbacks

from tests.tools.test_tools_mutation import MutationTestCase

DEFINE = ("Account superclass subclass: '{name}' instVarNames: Account "
          "instVarNames classVars: #() classInstVars: #() poolDictionaries: "
          "Account sharedPools inDictionary: (System myUserProfile symbolList "
          "detect: [:each | each name == #Banking]) newVersionOf: {old} "
          "description: 'renamed' options: #()")


class RenameTests(MutationTestCase):

    @inlineCallbacks
    def test_newVersionUnderTheNewName(self):
        """
        The new version is bound under the new name beside the old one,
        with no methods, and the class history holds both.
        """
        yield self.succeed("execute_code", code=DEFINE.format(
            name="Ledger", old="Account"))
        code = self.code()
        self.assertEqual([each.name for each in code.classHistory("Ledger")],
                         ["Account", "Ledger"])
        self.assertEqual(code.classNamed("Ledger").comment, "renamed")
        self.assertEqual(code.methods("Ledger"), {})
        self.assertIsNotNone(code.classNamed("Account"))

    @inlineCallbacks
    def test_sameNameRedefines(self):
        yield self.succeed("execute_code", code=DEFINE.format(
            name="Account", old="Account"))
        self.assertEqual(len(self.code().classHistory("Account")), 1)

    @inlineCallbacks
    def test_takenNameRefused(self):
        result = yield self.harness.call(
            "execute_code", code=DEFINE.format(name="Greeter", old="Account"))
        self.assertTrue(result["isError"])
        self.assertIn("already defined", result["content"][0]["text"])

    def test_shapeChangeNotModelled(self):
        """
        A rename that also changes the shape is the simulator's own
        failure (the process answers it as C{simulatorBug}), never a
        GemStone answer.
        """
        return self.assertFailure(self.harness.call(
            "execute_code", code=DEFINE.format(
                name="Ledger", old="Account").replace(
                "instVarNames: Account instVarNames", "instVarNames: #()")),
            NotImplementedError)


BANKING = ("(System myUserProfile symbolList detect: [:each | each name == "
           "#Banking])")


class UnboundSuperclassTests(MutationTestCase):
    """
    A class holds its superclass by identity: removing the superclass's
    last binding leaves it the superclass (GemStone keeps the class object;
    a rename's new version does not re-parent the old one's subclasses:
    GemTalk/Jasper resources/refactoring/engine.gs, GsRenameClassRefactoring).
    The model keeps no unbound class, so it fails loudly there, never
    answering the subclass under Object.
    """

    def test_renamedUnderASubclassNotModelled(self):
        return self.assertFailure(self.harness.call(
            "execute_code", code=DEFINE.format(name="Ledger", old="Account")
            + f". {BANKING} removeKey: #Account. SavingsAccount superclass name"),
            NotImplementedError)

    def test_removedUnderASubclassNotModelled(self):
        return self.assertFailure(self.harness.call(
            "execute_code", code=f"{BANKING} removeKey: #Account. "
            "SavingsAccount superclass name"), NotImplementedError)

    @inlineCallbacks
    def test_dictionaryRemovedWithItsSubclasses(self):
        """
        A dictionary removed with a class and its subclasses removes them
        all: none is reachable by name any more.
        """
        yield self.succeed("execute_code", code=(
            "System myUserProfile removeDictionaryAt: 2. nil"))
        code = self.code()
        self.assertNotIn("Banking", code.symbolList())
        self.assertIsNone(code.classNamed("SavingsAccount"))


REDEFINE = ("{superclass} subclass: '{name}' instVarNames: {variables} "
            "classVars: #() classInstVars: #() poolDictionaries: #() "
            "inDictionary: (System myUserProfile symbolList detect: [:each | "
            "each name == #Banking]) newVersionOf: {name} description: 'new' "
            "options: #()")


class NewVersionTests(MutationTestCase):
    """
    A class redefined under its own name with a new shape: its subclasses
    stay under the old version until each is defined again under the new
    one, by the object, not the name.
    """

    @inlineCallbacks
    def test_subclassReparented(self):
        """
        A subclass defined again, same variables, under its superclass's
        new version is a new version of it (its superclass changed), with
        no methods, the old one in its class history.
        """
        yield self.succeed("execute_code", code=". ".join([
            REDEFINE.format(superclass="Object", name="Account",
                            variables="#(funds owner)"),
            REDEFINE.format(superclass="Account", name="SavingsAccount",
                            variables="#(rate)")]))
        code = self.code()
        savings = code.classInfo("SavingsAccount")
        self.assertEqual((savings.version, savings.superclassVersion),
                         (2, code.classInfo("Account").version))
        self.assertEqual(code.methods("SavingsAccount"), {})
        self.assertEqual(len(code.classHistory("SavingsAccount")), 2)

    def test_underAnOldVersionNotModelled(self):
        """
        A class defined under an older version of its superclass (held
        from before the new one was made) is the simulator's own failure,
        never a GemStone answer.
        """
        return self.assertFailure(self.harness.call(
            "execute_code", code="| old | old := Account. " + ". ".join([
                REDEFINE.format(superclass="Object", name="Account",
                                variables="#(funds owner)"),
                REDEFINE.format(superclass="old", name="SavingsAccount",
                                variables="#(rate)")])),
            NotImplementedError)

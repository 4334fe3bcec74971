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

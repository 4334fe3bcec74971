"""
Tests for L{gsmcpd.tools.renameivar}: C{rename_instance_variable}
previewed, then applied whole or not at all (templates
"refactoring_sources" and "rename_instance_variable").
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.templates.run import runTemplate
from tests.tools.test_tools_refactoring import RefactoringTestCase

TOOL = "rename_instance_variable"
SHADOWED = ("shadowed\n\t\"rate is kept\"\n\t^([:rate | rate + 1] value: "
            "rate) -> #rate -> 'rate'")


class RenameInstanceVariableTests(RefactoringTestCase):
    """
    C{SavingsAccount}'s C{rate}, read and written by its methods.
    """

    def setUp(self):
        super().setUp()
        result = self.harness.call("compile_method",
                                   className="SavingsAccount",
                                   source=SHADOWED, category="odd")
        self.assertFalse(self.successResultOf(result)["isError"])

    @inlineCallbacks
    def ask(self, **arguments):
        """The structured result of a successful call."""
        arguments.setdefault("className", "SavingsAccount")
        arguments.setdefault("name", "rate")
        result = yield self.harness.call(TOOL, **arguments)
        self.assertFalse(result.get("isError"), result["content"])
        return result["structuredContent"]

    @inlineCallbacks
    def refusedWith(self, **arguments):
        """The message of a refused call."""
        arguments.setdefault("className", "SavingsAccount")
        arguments.setdefault("name", "rate")
        kind, message = yield self.harness.error(TOOL, **arguments)
        self.assertEqual(kind, "refused", message)
        return message

    def rename(self, **arguments):
        return self.ask(**arguments)

    @inlineCallbacks
    def test_previewed(self):
        """
        The preview shows the class definition's change and each method
        naming the variable with its diff (no other);
        a block argument of the same name, the comment, the symbol and the
        string keep it, the symbol and the block argument listed as
        unchanged; nothing changes.
        """
        preview = yield self.rename(newName="percent")
        diffs = {c["selector"]: c["diff"] for c in preview["changes"]}
        self.assertEqual(sorted(diffs), ["", "interest", "rate:", "shadowed"])
        self.assertIn("-  instVarNames: #( rate)\n+  instVarNames: #( percent)",
                      diffs[""])
        self.assertIn("-\trate := aNumber\n+\tpercent := aNumber",
                      diffs["rate:"])
        self.assertIn("+\t^([:rate | rate + 1] value: percent) -> #rate -> "
                      "'rate'", diffs["shadowed"])
        self.assertEqual(preview["counts"]["classes"], 1)
        self.assertEqual(preview["counts"]["methods"], 3)
        self.assertEqual([u["reason"] for u in preview["unchanged"]], [
            "a literal symbol", "a parameter or temporary named rate hides "
            "the variable there"])
        self.assertEqual({u["selector"] for u in preview["unchanged"]},
                         {"shadowed"})
        self.assertEqual(self.code().classInfo("SavingsAccount").instVarNames,
                         ("rate",))

    @inlineCallbacks
    def test_applied(self):
        """
        Applied, the class is a new version with the variable renamed (its
        category and comment kept), its methods (categories kept) compile
        into it and run.
        """
        preview = yield self.rename(newName="percent")
        yield self.ask(newName="percent", apply=preview["previewId"])
        code = self.code()
        info = code.classInfo("SavingsAccount")
        self.assertEqual(info.instVarNames, ("percent",))
        self.assertEqual(info.category, "Banking-Core")
        self.assertEqual(code.comment("SavingsAccount"), "An Account that "
                         "earns interest at a rate in percent.")
        self.assertEqual(len(code.classHistory("SavingsAccount")), 2)
        self.assertEqual(code.method("SavingsAccount", "shadowed").category,
                         "odd")
        self.assertEqual(code.method("SavingsAccount", "rate:").source,
                         "rate: aNumber\n\tpercent := aNumber")
        ran = yield self.succeed(
            "execute_code", code="(SavingsAccount new rate: 4; shadowed) "
            "key printString")
        self.assertIn("5", ran["content"][0]["text"])

    @inlineCallbacks
    def test_newNameTaken(self):
        """
        A name the class already sees (an instance variable, a global), a
        parameter or temporary of one of its methods, is refused by the preview; nothing changes.
        """
        for taken in ("balance", "Account"):
            message = yield self.refusedWith(newName=taken)
            self.assertIn(f"{taken} is already an instance variable, class "
                          f"variable, pool variable or global", message)
        message = yield self.refusedWith(newName="aNumber")
        self.assertIn("rate: declares a parameter or temporary named "
                      "aNumber", message)
        self.assertEqual(self.code().classInfo("SavingsAccount").instVarNames,
                         ("rate",))

    @inlineCallbacks
    def test_notItsOwn(self):
        """
        Only a variable the class defines is renamed there: an inherited
        one is renamed where it is defined.
        """
        message = yield self.refusedWith(name="balance", newName="funds")
        self.assertIn("balance is not an instance variable SavingsAccount "
                      "defines; rename it in the superclass", message)
        message = yield self.refusedWith(name="nothing", newName="funds")
        self.assertIn("nothing is not an instance variable", message)

    @inlineCallbacks
    def test_subclassesRefused(self):
        """
        A class with subclasses is refused: a new version of it would
        leave them under the old one.
        """
        message = yield self.refusedWith(className="Account", name="owner",
                                         newName="holder")
        self.assertIn("Account has subclasses (SavingsAccount)", message)
        self.assertEqual(self.code().classInfo("Account").instVarNames,
                         ("balance", "owner"))

    @inlineCallbacks
    def test_stale(self):
        """
        A method changed after the preview: applying it is refused and
        nothing of it is applied.
        """
        preview = yield self.rename(newName="percent")
        # A preview is not a read: the agent reads the method first.
        yield self.succeed("get_method_source", className="SavingsAccount",
                           selector="rate:")
        yield self.succeed("compile_method", className="SavingsAccount",
                           source="rate: n\n\trate := n")
        message = yield self.refusedWith(newName="percent",
                                         apply=preview["previewId"])
        self.assertIn("changed since", message)
        self.assertEqual(self.code().classInfo("SavingsAccount").instVarNames,
                         ("rate",))

    @inlineCallbacks
    def test_staleInTheStone(self):
        """
        Another session's committed change to one of the class's methods,
        which this session's ledger did not see: the stone refuses the
        redefinition and nothing is applied.
        """
        yield self.succeed("commit")
        preview = yield self.rename(newName="percent")
        other = self.harness.newClient()
        yield self.succeed("get_method_source", harness=other,
                           className="SavingsAccount", selector="interest")
        yield self.succeed("compile_method", harness=other,
                           className="SavingsAccount",
                           source="interest\n\t^rate")
        yield self.succeed("commit", harness=other)
        self.moveViewBehindTheLedger()
        message = yield self.refusedWith(newName="percent",
                                         apply=preview["previewId"])
        self.assertIn("SavingsAccount's methods changed since the preview",
                      message)
        self.assertEqual(self.code().classInfo("SavingsAccount").instVarNames,
                         ("rate",))

    @inlineCallbacks
    def test_compileFailureChangesNothing(self):
        """
        When a method fails to compile into the new version, the class's
        name is bound to the old version again: the class, its variable
        and its methods are as they were.
        """
        answer = yield runTemplate(self.harness.gem,
                                   "rename_instance_variable", {
            "className": "SavingsAccount", "name": "rate",
            "newName": "percent", "kernelClasses": False,
            "methods": self.methodsOf("SavingsAccount", broken="rate:")})
        self.assertEqual([each["selector"] for each in
                          answer.value["failures"]], ["rate:"])
        code = self.code()
        self.assertEqual(code.classInfo("SavingsAccount").instVarNames,
                         ("rate",))
        self.assertEqual(code.method("SavingsAccount", "rate:").source,
                         "rate: aNumber\n\trate := aNumber")
        ran = yield self.succeed(
            "execute_code", code="(SavingsAccount new rate: 4; shadowed) "
            "key printString")
        self.assertIn("5", ran["content"][0]["text"])

    def methodsOf(self, className, broken):
        """The template's methods argument: each as it reads, one broken."""
        code = self.code()
        return [[False, selector, code.method(className, selector).category,
                 code.method(className, selector).source,
                 code.method(className, selector).source.replace(
                     "rate", "percent") + (" +" if selector == broken else "")]
                for selector in ("interest", "rate:", "shadowed")]

    @inlineCallbacks
    def test_classVariablesRefused(self):
        """
        A class with class variables is refused: the model does not say
        whether a new version carries their values.
        """
        yield self.succeed("execute_code", code=(
            "Object subclass: 'Tally' instVarNames: #(count) classVars: "
            "#(Total) classInstVars: #() poolDictionaries: #() inDictionary: "
            "UserGlobals options: #()"))
        message = yield self.refusedWith(className="Tally", name="count",
                                         newName="n")
        self.assertIn("Tally has class variables", message)
        self.assertEqual(self.code().classInfo("Tally").instVarNames,
                         ("count",))

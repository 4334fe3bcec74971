"""
Tests for L{gsmcpd.tools.renameivar}: C{rename_instance_variable}
previewed, then applied whole or not at all (template
"rename_instance_variable").
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.templates.run import runTemplate
from tests.tools.test_tools_refactoring import RefactoringTestCase

TOOL = "rename_instance_variable"
BONUS = "bonus\n\tbalance := balance + rate"
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
    def test_subclassesRedefined(self):
        """
        A class with a subclass: the subclass's methods naming the variable
        are renamed too, and applied, each class is a new version, the
        subclass's under the superclass's new one (its own variables,
        category, comment and methods kept), the old versions in the class
        history; the answer says instances are not migrated, and the code
        runs.
        """
        yield self.succeed("compile_method", className="SavingsAccount",
                           source=BONUS, category="operations")
        preview = yield self.rename(className="Account", name="balance",
                                    newName="funds")
        diffs = {(c["className"], c["selector"]): c["diff"]
                 for c in preview["changes"]}
        self.assertIn("-\tbalance := balance + rate\n"
                      "+\tfunds := funds + rate",
                      diffs["SavingsAccount", "bonus"])
        self.assertIn(("Account", "deposit:"), diffs)
        self.assertNotIn(("SavingsAccount", "interest"), diffs)
        self.assertEqual(preview["counts"]["classes"], 2)
        self.assertEqual(self.code().classInfo("Account").instVarNames,
                         ("balance", "owner"))
        result = yield self.harness.call(TOOL, className="Account",
                                         name="balance", newName="funds",
                                         apply=preview["previewId"])
        self.assertIn("instances stay on the old, not migrated",
                      result["content"][0]["text"])
        code = self.code()
        self.assertEqual(code.classInfo("Account").instVarNames,
                         ("funds", "owner"))
        savings = code.classInfo("SavingsAccount")
        self.assertEqual((savings.instVarNames, savings.category,
                          savings.superclassVersion),
                         (("rate",), "Banking-Core",
                          code.classInfo("Account").version))
        self.assertEqual([len(code.classHistory(name)) for name in
                          ("Account", "SavingsAccount")], [2, 2])
        self.assertEqual(code.method("SavingsAccount", "bonus").category,
                         "operations")
        self.assertEqual(code.method("SavingsAccount", "shadowed").category,
                         "odd")
        ran = yield self.succeed(
            "execute_code", code="(SavingsAccount new rate: 4; bonus; "
            "deposit: 3; interest) printString")
        self.assertIn("7/25", ran["content"][0]["text"])

    @inlineCallbacks
    def test_subclassNameTaken(self):
        """
        A new name a subclass already uses (its own instance variable) is
        refused: the subclass's new version could not declare it.
        """
        message = yield self.refusedWith(className="Account", name="owner",
                                         newName="rate")
        self.assertIn("rate is already an instance variable", message)
        self.assertEqual(self.code().classInfo("Account").instVarNames,
                         ("balance", "owner"))

    @inlineCallbacks
    def test_subclassFailureTakesAllBack(self):
        """
        A subclass's method failing to compile into its new version: the
        class and the subclass are defined again as they were, their
        methods as they read.
        """
        code = self.code()
        methods = [[name, False, selector, each.category, each.source,
                    each.source.replace("balance", "funds")
                    + (" +" if selector == "interest" else "")]
                   for name in ("Account", "SavingsAccount")
                   for selector, each in code.methods(name).items()]
        methods += [["Account", True, selector, each.category, each.source,
                     each.source]
                    for selector, each in code.methods("Account", True).items()]
        answer = yield runTemplate(self.harness.gem,
                                   "rename_instance_variable", {
            "className": "Account", "name": "balance", "newName": "funds",
            "kernelClasses": False, "methods": methods})
        self.assertEqual([(each["className"], each["selector"]) for each in
                          answer.value["failures"]],
                         [("SavingsAccount", "interest")])
        code = self.code()
        self.assertEqual(code.classInfo("Account").instVarNames,
                         ("balance", "owner"))
        self.assertEqual(code.classInfo("SavingsAccount").superclassVersion,
                         code.classInfo("Account").version)
        self.assertEqual(code.method("SavingsAccount", "interest").source,
                         "interest\n\t^self balance * (rate ifNil: [0]) / 100")
        ran = yield self.succeed(
            "execute_code", code="(SavingsAccount new rate: 4; deposit: 50; "
            "interest) printString")
        self.assertIn("2", ran["content"][0]["text"])

    @inlineCallbacks
    def test_subclassStale(self):
        """
        A subclass's method changed after the preview: applying it is
        refused and nothing of it is applied.
        """
        preview = yield self.rename(className="Account", name="owner",
                                    newName="holder")
        yield self.succeed("get_method_source", className="SavingsAccount",
                           selector="interest")
        yield self.succeed("compile_method", className="SavingsAccount",
                           source="interest\n\t^0")
        message = yield self.refusedWith(className="Account", name="owner",
                                         newName="holder",
                                         apply=preview["previewId"])
        self.assertIn("changed since", message)
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
        return [[className, False, selector,
                 code.method(className, selector).category,
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

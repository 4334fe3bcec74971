"""
Tests for L{gsmcpd.tools.refactoring}: refactorings previewed, then applied
whole or not at all, on a simulated stone seeded with the C{Banking} code,
through the dispatcher (templates "refactoring_sources" and
"rename_class").
"""

from twisted.internet.defer import fail, inlineCallbacks, succeed

from gsmcpd.testing.simulator import fileout
from gsmcpd.tools import confirm, refactoring, structure
from gsmcpd.tools.base import OWN_SESSION, ToolCall, ToolError
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.previews import MAX_PREVIEWS
from gsmcpd.tools.refactoring import RefactoringToolset
from tests.toolharness import ToolHarness
from tests.tools.test_tools_mutation import GUARDED_WITHDRAW, MutationTestCase

TOOLSETS = ("browsing", "mutation", "session", "execution", "refactoring")

BUMP = "bump: n\n\t\"bump: adds n\"\n\tbalance := balance + n"
TWICE = ("twice: n\n\tself bump: n.\n\tself perform: #bump: with: n.\n"
         "\t^'bump: done'")
TWICE_RENAMED = ("twice: n\n\tself add: n.\n\tself perform: #bump: with: n.\n"
                 "\t^'bump: done'")


class RefactoringTestCase(MutationTestCase):
    """
    A client served the refactoring toolset, whose C{Account} has
    C{bump:} (category C{operations}) and its sender C{twice:}, which also
    performs C{#bump:} and answers a string that mentions it.
    """

    def setUp(self):
        self.harness = ToolHarness(TOOLSETS)
        for source in (BUMP, TWICE):
            result = self.harness.call("compile_method", className="Account",
                                       source=source, category="operations")
            self.assertFalse(self.successResultOf(result)["isError"])
        self.assertTrue(self.harness.gem.session.transaction.commit())

    @inlineCallbacks
    def preview(self, name="rename_selector", **arguments):
        result = yield self.succeed(name, **arguments)
        return result["structuredContent"]


class DescriptorTests(RefactoringTestCase):

    def test_ownSessionAndClosed(self):
        """
        Every refactoring needs a session of one's own (its previews live
        there; a handle in the 2026 era); each takes apply.
        """
        for tool in RefactoringToolset().tools():
            self.assertIs(tool.inputSchema["additionalProperties"], False)
            if tool.name != "find_code":
                self.assertEqual(tool.runsOn, OWN_SESSION)
                self.assertIn("apply", tool.inputSchema["properties"])


class RenameSelectorTests(RefactoringTestCase):

    @inlineCallbacks
    def test_previewChangesNothing(self):
        """
        The preview lists the implementor and the sender with their diffs
        and counts, and the perform: as unchanged; the stone is as it was.
        """
        preview = yield self.preview(selector="bump:", newSelector="add:")
        self.assertFalse(preview["applied"])
        self.assertEqual(
            [(c["selector"], c["newSelector"]) for c in preview["changes"]],
            [("bump:", "add:"), ("twice:", "twice:")])
        self.assertIn("-bump: n\n+add: n", preview["changes"][0]["diff"])
        self.assertIn("-\tself bump: n.\n+\tself add: n.",
                      preview["changes"][1]["diff"])
        self.assertEqual(preview["counts"], {
            "implementors": 1, "senders": 1, "methods": 2, "classes": 1})
        self.assertEqual(preview["unchanged"], [{
            "className": "Account", "meta": False, "selector": "twice:",
            "reason": "perform: of the literal symbol"}])
        self.assertEqual(self.code().method("Account", "bump:").source, BUMP)
        self.assertIsNone(self.code().method("Account", "add:"))

    @inlineCallbacks
    def test_apply(self):
        """
        Applied, exactly those change: the implementor is renamed in its
        category, the sender sends the new selector, the string and the
        perform: are left, and the code runs; uncommitted.
        """
        preview = yield self.preview(selector="bump:", newSelector="add:")
        result = yield self.succeed("rename_selector", selector="bump:",
                                    newSelector="add:",
                                    apply=preview["previewId"])
        self.assertTrue(result["structuredContent"]["applied"])
        code = self.code()
        self.assertIsNone(code.method("Account", "bump:"))
        added = code.method("Account", "add:")
        self.assertEqual(added.source, BUMP.replace("bump: n\n", "add: n\n"))
        self.assertEqual(added.category, "operations")
        self.assertEqual(code.method("Account", "twice:").source,
                         TWICE_RENAMED)
        ran = yield self.succeed(
            "execute_code", code="(Account new initialize; yourself) add: 4; "
            "balance")
        self.assertIn("4", ran["content"][0]["text"])
        changes = [(c.what, c.subject) for c in self.harness.session.journal]
        self.assertIn(("deleted", "Account>>bump:"), changes)
        self.assertIn("[session] Uncommitted", result["content"][1]["text"])

    @inlineCallbacks
    def test_appliedOnce(self):
        preview = yield self.preview(selector="bump:", newSelector="add:")
        arguments = dict(selector="bump:", newSelector="add:",
                         apply=preview["previewId"])
        yield self.succeed("rename_selector", **arguments)
        message = yield self.refused("rename_selector", **arguments)
        self.assertIn("is kept in this session", message)

    @inlineCallbacks
    def test_otherArgumentsRefused(self):
        preview = yield self.preview(selector="bump:", newSelector="add:")
        message = yield self.refused("rename_selector", selector="bump:",
                                     newSelector="plus:",
                                     apply=preview["previewId"])
        self.assertIn("other arguments", message)
        self.assertEqual(self.code().method("Account", "bump:").source, BUMP)

    @inlineCallbacks
    def test_previewIsNoRead(self):
        """
        A preview shows diffs, not the methods: compile_method over one of
        them is still refused as an unread overwrite.
        """
        yield self.preview(selector="withdraw:", newSelector="take:")
        message = yield self.refused("compile_method", className="Account",
                                     source=GUARDED_WITHDRAW)
        self.assertIn("get_method_source", message)

    @inlineCallbacks
    def test_nestedTooDeeply(self):
        """
        A method too deeply nested for the parser refuses the preview, as
        one that does not parse does, rather than failing internally.
        """
        def deep(source):
            raise RecursionError()
        self.patch(refactoring, "parse_method", deep)
        message = yield self.refused("rename_selector", selector="bump:",
                                     newSelector="add:")
        self.assertIn("nest too deeply", message)

    @inlineCallbacks
    def test_confirmDestructive(self):
        """
        With --confirm-destructive, apply asks first, listing what it
        removes; declined, nothing changes and the preview is kept (a
        2026-era call asks, then comes back answered).
        """
        asked = []

        def declined(call, message, what):
            asked.append(message)
            return fail(ToolError("refused", f"{what}: nothing was changed"))
        self.patch(confirm, "confirmed", declined)
        self.harness = ToolHarness(TOOLSETS, self.harness.stone, ToolCatalog
                                   .named(TOOLSETS, {"refactoring": {
                                       "confirmDestructive": True}}))
        preview = yield self.preview(selector="bump:", newSelector="add:")
        yield self.refused("rename_selector", selector="bump:",
                           newSelector="add:", apply=preview["previewId"])
        self.assertEqual(asked, [
            f"Apply {preview['previewId']}, removing:\n- the method "
            "Account>>bump: (renamed add:)"])
        self.assertEqual(self.code().method("Account", "bump:").source, BUMP)
        self.patch(confirm, "confirmed", lambda *args: succeed(None))
        yield self.succeed("rename_selector", selector="bump:",
                           newSelector="add:", apply=preview["previewId"])
        self.assertIsNone(self.code().method("Account", "bump:"))

    @inlineCallbacks
    def test_sendersInWindows(self):
        """
        A preview reads the senders a window at a time (here one method),
        as find_code does: every one is rewritten, none read whole.
        """
        self.patch(structure, "SENDERS_READ", 1)
        limits = []
        runTemplate = ToolCall.runTemplate

        def spied(call, name, arguments, *rest, **options):
            limits.append(arguments.get("sendersLimit", 1))
            return runTemplate(call, name, arguments, *rest, **options)
        self.patch(ToolCall, "runTemplate", spied)
        for name in ("a", "b"):
            yield self.succeed("compile_method", className="Greeter",
                               source=f"{name}\n\tAccount new bump: 1")
        preview = yield self.preview(selector="bump:", newSelector="add:")
        self.assertEqual(
            [(c["className"], c["selector"]) for c in preview["changes"]],
            [("Account", "bump:"), ("Account", "twice:"), ("Greeter", "a"),
             ("Greeter", "b")])
        self.assertNotIn(None, limits)
        self.assertGreaterEqual(limits.count(1), 4)

    @inlineCallbacks
    def test_boundedPreviews(self):
        """
        A session keeps its last MAX_PREVIEWS previews: the oldest goes.
        """
        first = yield self.preview(selector="bump:", newSelector="add:")
        for _ in range(MAX_PREVIEWS):
            yield self.preview(selector="bump:", newSelector="add:")
        yield self.refused("rename_selector", selector="bump:",
                           newSelector="add:", apply=first["previewId"])

    @inlineCallbacks
    def test_performOnly(self):
        """
        A method that only performs the symbol is found and listed, though
        it sends no bump: at all.
        """
        yield self.succeed("compile_method", className="Greeter",
                           source="later\n\t^self perform: #bump: with: 1")
        preview = yield self.preview(selector="bump:", newSelector="add:")
        self.assertIn({"className": "Greeter", "meta": False,
                       "selector": "later",
                       "reason": "perform: of the literal symbol"},
                      preview["unchanged"])

    @inlineCallbacks
    def test_hierarchyScope(self):
        """
        A hierarchy's scope holds its subclasses: their sends to self are
        renamed; a class's scope leaves them, said so.
        """
        yield self.succeed("compile_method", className="SavingsAccount",
                           source="accrue\n\tself bump: self interest")
        preview = yield self.preview(selector="bump:", newSelector="add:",
                                     scope="hierarchy:Account")
        self.assertIn("accrue", [c["selector"] for c in preview["changes"]])
        preview = yield self.preview(selector="bump:", newSelector="add:",
                                     scope="class:Account")
        self.assertNotIn("accrue",
                         [c["selector"] for c in preview["changes"]])
        self.assertIn("accrue", [u["selector"] for u in preview["unchanged"]])

    @inlineCallbacks
    def test_newSelectorTaken(self):
        message = yield self.refused("rename_selector", selector="bump:",
                                     newSelector="deposit:")
        self.assertIn("already implements deposit:", message)

    @inlineCallbacks
    def test_overrideRefused(self):
        """
        newSelector implemented in a subclass, or a superclass, of an
        implementor: the rename would make or break an override, refused;
        on the other side it is no override.
        """
        yield self.succeed("compile_method", className="SavingsAccount",
                           source="add: n\n\t^n")
        message = yield self.refused("rename_selector", selector="bump:",
                                     newSelector="add:")
        self.assertIn("SavingsAccount implements add: above or below",
                      message)
        yield self.succeed("compile_method", className="SavingsAccount",
                           source="credit: n\n\t^n")
        message = yield self.refused("rename_selector", selector="credit:",
                                     newSelector="bump:")
        self.assertIn("Account implements bump:", message)
        yield self.succeed("compile_method", className="SavingsAccount",
                           meta=True, source="nudge: n\n\t^n")
        yield self.preview(selector="bump:", newSelector="nudge:")

    @inlineCallbacks
    def test_narrowScope(self):
        """
        With a scope narrower than the symbol list, a send whose receiver
        cannot be known is left, and said so; a send to self is renamed.
        """
        yield self.succeed("compile_method", className="AccountTest",
                           source="testBump\n\taccount bump: 1")
        preview = yield self.preview(selector="bump:", newSelector="add:",
                                     scope="class:Account")
        self.assertEqual([c["selector"] for c in preview["changes"]],
                         ["bump:", "twice:"])
        self.assertIn({"className": "AccountTest", "meta": False,
                       "selector": "testBump",
                       "reason": "a send whose receiver cannot be known: "
                       "the scope is narrower than the symbol list"},
                      preview["unchanged"])

    @inlineCallbacks
    def test_noImplementor(self):
        yield self.refused("rename_selector", "notFound", selector="nope:",
                           newSelector="add:")
        yield self.refused("rename_selector", "invalidParams",
                           selector="bump:", newSelector="add:",
                           scope="package:Banking")


class ParameterToolTests(RefactoringTestCase):

    @inlineCallbacks
    def apply(self, name, **arguments):
        preview = yield self.preview(name, **arguments)
        yield self.succeed(name, apply=preview["previewId"], **arguments)
        return preview

    @inlineCallbacks
    def test_addParameter(self):
        """
        The implementor takes the new parameter, every sender passes the
        default, and the code runs.
        """
        yield self.apply("add_parameter", selector="bump:",
                         newSelector="bump:times:", default="1")
        code = self.code()
        self.assertIsNone(code.method("Account", "bump:"))
        self.assertEqual(code.method("Account", "bump:times:").source,
                         BUMP.replace("bump: n\n", "bump: n times: times\n"))
        self.assertIn("self bump: n times: 1.",
                      code.method("Account", "twice:").source)
        ran = yield self.succeed(
            "execute_code", code="(Account new initialize; yourself) "
            "bump: 3 times: 1; balance")
        self.assertIn("3", ran["content"][0]["text"])

    @inlineCallbacks
    def test_removeParameter(self):
        yield self.succeed("compile_method", className="Account",
                           source="credit: n by: unused\n\t^self bump: n")
        yield self.succeed("compile_method", className="Account",
                           source="thrice\n\t^self credit: 1 by: 2")
        yield self.apply("remove_parameter", selector="credit:by:",
                         newSelector="credit:", index=2)
        self.assertEqual(self.code().method("Account", "credit:").source,
                         "credit: n\n\t^self bump: n")
        self.assertEqual(self.code().method("Account", "thrice").source,
                         "thrice\n\t^self credit: 1")

    @inlineCallbacks
    def test_argumentWithEffectRefused(self):
        """
        A sender whose removed argument is a send refuses the preview: the
        send would no longer happen.
        """
        yield self.succeed("compile_method", className="Account",
                           source="credit: n by: unused\n\t^self bump: n")
        yield self.succeed("compile_method", className="Account",
                           source="thrice\n\t^self credit: 1 by: self twice")
        message = yield self.refused("remove_parameter", selector="credit:by:",
                                     newSelector="credit:", index=2)
        self.assertIn("Account>>thrice: a send of credit:by: passes self "
                      "twice", message)

    @inlineCallbacks
    def test_usedParameterRefused(self):
        message = yield self.refused("remove_parameter", selector="bump:",
                                     newSelector="bump", index=1)
        self.assertIn("uses its parameter n", message)

    @inlineCallbacks
    def test_mismatchedSelector(self):
        yield self.refused("add_parameter", "invalidParams",
                           selector="bump:", newSelector="other:", default="1")
        yield self.refused("add_parameter", "invalidParams",
                           selector="bump:", newSelector="bump:x:",
                           default="1 +")


class RenameClassTests(RefactoringTestCase):

    @inlineCallbacks
    def setUp(self):
        super().setUp()
        yield self.succeed("compile_class_definition", className="Clerk",
                           dictionary="Banking")
        yield self.succeed("compile_method", className="Clerk",
                           source="greet\n\t^'hi from ' , self class name",
                           category="talk")
        yield self.succeed("compile_method", className="Clerk", meta=True,
                           source="make\n\t^Clerk new")
        yield self.succeed("compile_method", className="Greeter",
                           source="clerk\n\t\"a Clerk\"\n\t^Clerk make greet"
                           " -> #Clerk -> 'Clerk'")

    @inlineCallbacks
    def test_renamed(self):
        """
        The class answers under its new name, its own methods (both
        sides, categories kept) and the methods referring to it compile
        and run; the comment, the symbol and the string keep the old name;
        the class history holds both versions.
        """
        preview = yield self.preview("rename_class", className="Clerk",
                                     newName="Teller")
        self.assertEqual(
            [(c["className"], c["selector"]) for c in preview["changes"]],
            [("Clerk", "greet"), ("Clerk", "make"), ("Greeter", "clerk")])
        self.assertEqual(preview["unchanged"], [{
            "className": "Greeter", "meta": False, "selector": "clerk",
            "reason": "a literal symbol"}])
        self.assertIsNotNone(self.code().classNamed("Clerk"))
        yield self.succeed("rename_class", className="Clerk",
                           newName="Teller", apply=preview["previewId"])
        code = self.code()
        self.assertIsNone(code.classNamed("Clerk"))
        self.assertEqual(code.classNamed("Teller").dictionary, "Banking")
        self.assertEqual([each.name for each in code.classHistory("Teller")],
                         ["Clerk", "Teller"])
        self.assertEqual(code.method("Teller", "greet").category, "talk")
        self.assertEqual(code.method("Teller", "make", meta=True).source,
                         "make\n\t^Teller new")
        self.assertEqual(code.method("Greeter", "clerk").source,
                         "clerk\n\t\"a Clerk\"\n\t^Teller make greet"
                         " -> #Clerk -> 'Clerk'")
        ran = yield self.succeed("execute_code",
                                 code="Greeter new clerk key key")
        self.assertIn("hi from Teller", ran["content"][0]["text"])

    @inlineCallbacks
    def test_aliasReported(self):
        """
        Another binding of the class is listed in the preview, and the
        apply is refused with nothing changed.
        """
        yield self.succeed("execute_code",
                           code="UserGlobals at: #Helper put: Clerk")
        preview = yield self.preview("rename_class", className="Clerk",
                                     newName="Teller")
        self.assertIn("another binding of the class (UserGlobals at: "
                      "#Helper)", preview["unchanged"][-1]["reason"])
        message = yield self.refused("rename_class", className="Clerk",
                                     newName="Teller",
                                     apply=preview["previewId"])
        self.assertIn("bound under other names", message)
        self.assertIsNotNone(self.code().classNamed("Clerk"))
        self.assertIsNone(self.code().classNamed("Teller"))
        self.assertIn("Clerk make", self.code().method("Greeter",
                                                       "clerk").source)

    @inlineCallbacks
    def test_commentOfItsOwnOnly(self):
        """
        A class without a comment of its own gets none (not GemStone's
        generated one, which names the old class); one with a comment
        keeps it.
        """
        preview = yield self.preview("rename_class", className="Clerk",
                                     newName="Teller")
        yield self.succeed("rename_class", className="Clerk",
                           newName="Teller", apply=preview["previewId"])
        self.assertTrue(self.code().comment("Teller").startswith(
            "No class-specific documentation for Teller,"))
        yield self.succeed("execute_code", code="Teller comment: 'Serves'")
        preview = yield self.preview("rename_class", className="Teller",
                                     newName="Clerk")
        yield self.succeed("rename_class", className="Teller",
                           newName="Clerk", apply=preview["previewId"])
        self.assertEqual(self.code().comment("Clerk"), "Serves")

    @inlineCallbacks
    def test_shapeRefused(self):
        """
        A class with options or class-instance variables is listed in the
        preview and refused at apply: the new version would lose them.
        """
        for name, part in (("Vault", {"options": ["dbTransient"]}),
                           ("Safe", {"classInstVars": ["count"]})):
            yield self.succeed("compile_class_definition", className=name,
                               dictionary="Banking", **part)
            preview = yield self.preview("rename_class", className=name,
                                         newName=name + "2")
            self.assertIn("apply is refused",
                          preview["unchanged"][-1]["reason"])
            message = yield self.refused("rename_class", className=name,
                                         newName=name + "2",
                                         apply=preview["previewId"])
            self.assertIn("not a plain subclass:", message)
            self.assertIsNotNone(self.code().classNamed(name))
            self.assertIsNone(self.code().classNamed(name + "2"))

    @inlineCallbacks
    def test_byteClassRefused(self):
        """
        A byte class (the simulated stone has none: its definition is made
        to read as GemStone's for one) is refused at apply.
        """
        preview = yield self.preview("rename_class", className="Clerk",
                                     newName="Teller")
        plain = fileout.definition
        self.patch(fileout, "definition", lambda *given: plain(*given).replace(
            " subclass: ", " byteSubclass: "))
        message = yield self.refused("rename_class", className="Clerk",
                                     newName="Teller",
                                     apply=preview["previewId"])
        self.assertIn("not a plain subclass:", message)
        self.assertIsNone(self.code().classNamed("Teller"))

    @inlineCallbacks
    def test_staleInTheStone(self):
        """
        When another session committed a change to one of the class's
        methods after the preview, the stone refuses the rename and nothing
        of it is applied.
        """
        yield self.succeed("commit")
        preview = yield self.preview("rename_class", className="Clerk",
                                     newName="Teller")
        other = self.harness.newClient()
        yield self.succeed("get_method_source", harness=other,
                           className="Clerk", selector="greet")
        yield self.succeed("compile_method", harness=other,
                           className="Clerk", source="greet\n\t^'hello'")
        yield self.succeed("commit", harness=other)
        self.moveViewBehindTheLedger()
        message = yield self.refused("rename_class", className="Clerk",
                                     newName="Teller",
                                     apply=preview["previewId"])
        self.assertIn("Clerk's methods changed since the preview", message)
        self.assertIsNotNone(self.code().classNamed("Clerk"))
        self.assertIsNone(self.code().classNamed("Teller"))

    @inlineCallbacks
    def test_subclassesRefused(self):
        preview = yield self.preview("rename_class", className="Account",
                                     newName="Ledger")
        message = yield self.refused("rename_class", className="Account",
                                     newName="Ledger",
                                     apply=preview["previewId"])
        self.assertIn("SavingsAccount", message)
        self.assertIsNotNone(self.code().classNamed("Account"))

    @inlineCallbacks
    def test_takenNameRefused(self):
        preview = yield self.preview("rename_class", className="Clerk",
                                     newName="Greeter")
        message = yield self.refused("rename_class", className="Clerk",
                                     newName="Greeter",
                                     apply=preview["previewId"])
        self.assertIn("Greeter is already defined", message)

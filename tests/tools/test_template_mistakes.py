"""
Template mistakes a real stone would run without complaint, each caught by
what a tool answers on the simulated stone (issue 19: the mutants that
survived the other tests).  Each test states the behaviour; the mutant of
C{bin/mutate-templates} named in its docstring is the mistake it kills.
"""

import json

from twisted.internet.defer import inlineCallbacks

from gsmcpd.testing.simulator import gem
from gsmcpd.tools.templates.render import Template
from tests.toolharness import ToolHarness
from tests.tools.test_template_fixes import TemplateTestCase
from tests.tools.test_tools_listing import codeModel
from tests.tools.test_tools_mutation import MutationTestCase
from tests.tools.test_tools_search import SearchTestCase, checked

BALANCE_HITS_TOTAL = 8
"""How many seeded methods hold C{balance}
(L{tests.tools.test_tools_search})."""


class FindPageTests(SearchTestCase):
    """
    A page of a cross-reference search holds C{limit} rows, no more.
    """

    @inlineCallbacks
    def test_implementorsPageIsLimitLong(self):
        """
        Mutant C{find_implementors-page-one-long}.
        """
        model = codeModel(self.harness)
        model.compileMethod("SavingsAccount", "owner\n\t^'bank'", "accessing")
        model.compileMethod("Greeter", "owner\n\t^nil", "accessing")
        lines, structured = yield checked(
            self.harness, "find_implementors", selector="owner", limit=1)
        self.assertEqual(lines, [
            "(showing 1-1 of 3; pass offset: 1 for the next page)",
            "Account>>owner  [accessing]"])
        lines = yield self.lines("find_implementors", selector="owner",
                                 offset=1, limit=1)
        self.assertEqual(lines, [
            "(showing 2-2 of 3; pass offset: 2 for the next page)",
            "Greeter>>owner  [accessing]"])

    @inlineCallbacks
    def test_referencesPageIsLimitLong(self):
        """
        Mutant C{find_references_to-page-one-long}.
        """
        codeModel(self.harness).compileMethod(
            "SavingsAccount", "fresh\n\t^Account new", "instance creation")
        lines = yield self.lines("find_references_to", name="Account",
                                 limit=1)
        self.assertEqual(lines, [
            "(showing 1-1 of 2; pass offset: 1 for the next page)",
            "AccountTest>>setUp  [running]"])


class InstanceSideFirstTests(SearchTestCase):
    """
    The cross-reference searches sort by class, then instance side before
    class side, then selector; a class-side method is marked as such.
    """

    @inlineCallbacks
    def test_implementors(self):
        codeModel(self.harness).compileMethod(
            "Account", "owner\n\t^nil", "accessing", meta=True)
        lines = yield self.lines("find_implementors", selector="owner")
        self.assertEqual(lines[1:], ["Account>>owner  [accessing]",
                                     "Account class>>owner  [accessing]"])

    @inlineCallbacks
    def test_senders(self):
        """
        Mutant C{find_senders-class-side-first}: the class-side sender's
        selector sorts first, its side last.
        """
        model = codeModel(self.harness)
        model.compileMethod("Greeter", "zzz\n\t^self greet", "demo")
        model.compileMethod("Greeter", "aaa\n\t^self new greet", "demo",
                            meta=True)
        lines, structured = yield checked(self.harness, "find_senders",
                                          selector="greet")
        self.assertEqual(lines[1:], ["Greeter>>zzz  [demo]",
                                     "Greeter class>>aaa  [demo]"])
        self.assertEqual([m["meta"] for m in structured["methods"]],
                         [False, True])

    @inlineCallbacks
    def test_references(self):
        """
        Mutant C{find_references_to-all-instance-side}: a class-side
        reference is reported as class side.
        """
        codeModel(self.harness).compileMethod(
            "Greeter", "appName\n\t^AppName", "naming", meta=True)
        lines, structured = yield checked(self.harness, "find_references_to",
                                          name="AppName")
        self.assertEqual(lines, ["(showing 1-2 of 2)",
                                 "Greeter>>greet  [greeting]",
                                 "Greeter class>>appName  [naming]"])
        self.assertEqual([m["meta"] for m in structured["methods"]],
                         [False, True])


class AliasScanTests(SearchTestCase):
    """
    A class bound under a second name is scanned once, under its own.
    """

    def setUp(self):
        self.harness = ToolHarness(("search", "execution"))

    @inlineCallbacks
    def test_aliasScannedOnce(self):
        """
        Mutant C{search_method_source-aliases-scanned}.
        """
        for alias in ("UserGlobals at: #Acct put: Account",
                      "Banking at: #Savings put: SavingsAccount"):
            yield self.harness.text("execute_code", code=alias)
        lines, structured = yield checked(
            self.harness, "search_method_source", pattern="balance", limit=0)
        self.assertEqual(lines, [
            f"({BALANCE_HITS_TOTAL} in all; pass a limit to list them)"])
        lines = yield self.lines("search_method_source", pattern="balance")
        names = lines[1:]
        self.assertEqual(len(names), BALANCE_HITS_TOTAL)
        self.assertEqual(len(set(names)), BALANCE_HITS_TOTAL)


class DeleteClassCountTests(MutationTestCase):

    @inlineCallbacks
    def test_classSideMethodsCounted(self):
        """
        Mutant C{delete_class-instance-side-count}: the count of methods
        deleted with a class includes its class side.
        """
        yield self.succeed("compile_method", className="Greeter", meta=True,
                           category="instance creation",
                           source="make\n\t^self new")
        yield self.succeed("get_class_definition", className="Greeter")
        result = yield self.succeed("delete_class", className="Greeter")
        self.assertEqual(result["structuredContent"]["methods"], 2)


class RemoveDictionaryStaleTests(MutationTestCase):

    @inlineCallbacks
    def listedThenChanged(self, *changes):
        """
        Banking listed; then another client removes SavingsAccount from it,
        makes C{changes} (tool and arguments) and commits, and this
        session's view moves without its ledger knowing.
        """
        yield self.succeed("list_classes", dictionaryName="Banking")
        other = self.harness.newClient()
        yield self.succeed("get_class_definition", harness=other,
                           className="SavingsAccount")
        yield self.succeed("delete_class", harness=other,
                           className="SavingsAccount")
        for tool, arguments in changes:
            yield self.succeed(tool, harness=other, **arguments)
        yield self.succeed("commit", harness=other)
        self.moveViewBehindTheLedger()

    @inlineCallbacks
    def test_unlistedIsUnreadNotStale(self):
        """
        Mutant C{remove_dictionary-unread-allowed}: classes never listed
        are refused as unread (list them), not as changed.
        """
        message = yield self.refused("remove_dictionary",
                                     dictionaryName="Banking")
        self.assertIn("has not read it", message)
        self.assertNotIn("changed since", message)

    @inlineCallbacks
    def test_classSwappedSinceListingRefused(self):
        """
        Mutant C{remove_dictionary-listing-ignored}: as many classes as
        listed, but one of them new, makes the listing stale.
        """
        yield self.listedThenChanged(("compile_class_definition", {
            "className": "Ledger", "dictionary": "Banking"}))
        message = yield self.refused("remove_dictionary",
                                     dictionaryName="Banking")
        self.assertIn("changed since", message)

    @inlineCallbacks
    def test_classGoneSinceListingRefused(self):
        """
        Mutant C{remove_dictionary-stale-ignores-count}: a class removed
        since the listing (every class left is still in it) makes the
        listing stale.
        """
        yield self.listedThenChanged()
        message = yield self.refused("remove_dictionary",
                                     dictionaryName="Banking")
        self.assertIn("changed since", message)
        self.assertIn("Banking", self.code().symbolList())

    @inlineCallbacks
    def test_aliasedClassCountsOnce(self):
        """
        A class the dictionary also binds under a second name is one class
        of the listing, not two: the dictionary can still be removed once
        listed.
        """
        yield self.succeed("execute_code", code=(
            "(System myUserProfile symbolList detect: [:each | "
            "each name == #Banking]) at: #Acct put: Account"))
        yield self.succeed("list_classes", dictionaryName="Banking")
        yield self.succeed("remove_dictionary", dictionaryName="Banking")
        self.assertNotIn("Banking", self.code().symbolList())


class ClassInstanceVariableTests(MutationTestCase):

    @inlineCallbacks
    def test_droppedClassInstanceVariableNeedsReads(self):
        """
        Mutant C{compile_class_definition-class-instvar-not-shape}:
        dropping a class-instance variable may drop methods, so an unread
        one refuses the redefinition.
        """
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("compile_class_definition", className="Greeter",
                           classInstVars=["count"])
        history = len(self.code().classHistory("Greeter"))
        message = yield self.refused("compile_class_definition",
                                     className="Greeter")
        self.assertIn("greet", message)
        self.assertIn("get_method_source", message)
        self.assertEqual(len(self.code().classHistory("Greeter")), history)
        self.assertEqual(self.code().classNamed("Greeter").classInstVars,
                         ("count",))


    @inlineCallbacks
    def test_unreadClassSideMethodNeedsRead(self):
        """
        Mutant C{compile_class_definition-class-side-unread-allowed}: a
        redefinition that drops methods is refused while a class-side one
        is unread, the instance side read or not.
        """
        codeModel(self.harness).compileMethod(
            "Greeter", "make\n\t^self new", "instance creation", meta=True)
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("get_method_source", className="Greeter",
                           selector="greet")
        message = yield self.refused("compile_class_definition",
                                     className="Greeter",
                                     instVarNames=["name"],
                                     recompileMethods=False)
        self.assertIn("class>>make", message)
        self.assertIsNotNone(self.code().method("Greeter", "make", True))


class CommitConflictCountTests(MutationTestCase):

    @inlineCallbacks
    def test_everyConflictingObjectCounted(self):
        """
        Mutant C{commit-count-forced}: two globals in two dictionaries,
        written by both sessions, are two conflicting objects.
        """
        other = self.harness.newClient()
        code = "UserGlobals at: #ProbeA put: {n}. Banking at: #ProbeB put: {n}"
        for client, n in ((self.harness, 1), (other, 2)):
            yield client.text("execute_code", code=code.format(n=n))
        yield self.succeed("commit")
        result = yield other.call("commit")
        self.assertTrue(result["isError"])
        conflicts = result["structuredContent"]["error"]["conflicts"]
        self.assertGreaterEqual(
            sum(kind["count"] for kind in conflicts.values()), 2, conflicts)


class StatusTests(MutationTestCase):

    @inlineCallbacks
    def test_sessionsNumberedApart(self):
        """
        Mutant C{status-session-forced}: each client's status names its
        own session.
        """
        numbers = []
        for harness in (self.harness, self.harness.newClient()):
            result = yield self.succeed("status", harness=harness)
            numbers.append(result["structuredContent"]["session"])
        self.assertEqual(len(set(numbers)), 2, numbers)


class EnvelopeTests(TemplateTestCase):
    """
    The envelope's JSON and its cap, on what the template answers.
    """

    def answered(self, maxBytes, code):
        source = Template.named("execute_code").render(
            {"code": code, "limit": 1000}, maxBytes)
        return gem.answer(self.session, source)

    def test_capIsTheLimit(self):
        """
        Mutant C{envelope-cap-doubled}: a result one byte over the limit is
        refused; one at the limit is answered.
        """
        code = "'" + "x" * 200 + "'"
        size = len(self.answered(1 << 20, code))
        self.assertEqual(json.loads(self.answered(size, code))["result"]
                         ["total"], 202)
        refused = json.loads(self.answered(size - 1, code))
        self.assertIn("error", refused, "answered past the limit")
        self.assertIn(f"over the daemon's limit of {size - 1}",
                      refused["error"]["message"])

    def test_everyControlCharacterEscaped(self):
        """
        Mutant C{envelope-low-controls-raw}: the answer is JSON whatever
        control characters the text holds.
        """
        for codePoint in (1, 11, 27, 31):
            text = f"a{chr(codePoint)}b"
            answer = self.answered(1 << 20, f"'{text}'")
            self.assertIn(f"\\u{codePoint:04x}".encode(), answer)
            self.assertEqual(json.loads(answer)["result"]["text"],
                             f"'{text}'")


class CommitConflictNamesTests(MutationTestCase):

    @inlineCallbacks
    def test_eachSideNamedOnce(self):
        """
        Mutant C{commit-names-repeated}: a class that conflicts on several
        objects (itself, a method dictionary per side) is named once a
        side.
        """
        other = self.harness.newClient()
        for client, selector in ((self.harness, "first"), (other, "second")):
            yield self.succeed("set_class_comment", harness=client,
                               className="Greeter", comment=selector)
            for meta in (False, True):
                yield self.succeed("compile_method", harness=client,
                                   className="Greeter", meta=meta,
                                   source=f"{selector}\n\t^nil")
        yield self.succeed("commit")
        result = yield other.call("commit")
        self.assertTrue(result["isError"])
        conflicts = result["structuredContent"]["error"]["conflicts"]
        names = [name for kind in conflicts.values() for name in kind["names"]]
        self.assertEqual(sorted(names), ["Greeter", "Greeter class"],
                         conflicts)

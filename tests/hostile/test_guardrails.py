"""
The blind-write guardrail's smaller holes (issue 11, item 12), against the
simulated stone: removing a dictionary that holds classes needs them
listed, as they are now; a compiled selector must be the one guarded; an
identifier may not end in a newline.
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools import compiling
from tests.tools import test_tools_mutation


class DictionaryGuardrailTests(test_tools_mutation.MutationTestCase):

    @inlineCallbacks
    def test_unlistedClassesRefused(self):
        message = yield self.refused("remove_dictionary",
                                     dictionaryName="Banking")
        self.assertIn("list_classes", message)
        self.assertIn("Banking", self.code().symbolList())

    @inlineCallbacks
    def test_classAddedSinceListingRefused(self):
        yield self.succeed("list_classes", dictionaryName="Banking")
        yield self.succeed("compile_class_definition", className="Ledger",
                           dictionary="Banking")
        message = yield self.refused("remove_dictionary",
                                     dictionaryName="Banking")
        self.assertIn("changed since", message)
        yield self.succeed("list_classes", dictionaryName="Banking")
        yield self.succeed("remove_dictionary", dictionaryName="Banking")

    @inlineCallbacks
    def test_dictionaryWithoutClassesNeedsNoListing(self):
        yield self.succeed("add_dictionary", dictionaryName="Scratch")
        yield self.succeed("remove_dictionary", dictionaryName="Scratch")

    @inlineCallbacks
    def test_identifierWithTrailingNewlineRefused(self):
        yield self.refused("add_dictionary", "invalidParams",
                           dictionaryName="Scratch\n")


class CompiledSelectorTests(test_tools_mutation.MutationTestCase):

    @inlineCallbacks
    def test_selectorOtherThanGuardedRefused(self):
        """
        When the stone compiles a source as another selector than the one
        this server read from it (and guarded), the answer says so rather
        than reporting success.
        """
        misread = type("Misread", (), {"selector": "neverDefined"})()
        self.patch(compiling, "parse_method", lambda source: misread)
        message = yield self.refused(
            "compile_method", className="Account",
            source="freshSelector ^42")
        self.assertIn("freshSelector", message)
        self.assertIn("abort undoes it", message)


class ClassRedefinitionGuardrailTests(test_tools_mutation.MutationTestCase):

    @inlineCallbacks
    def test_droppingUnreadMethodsRefused(self):
        """
        A redefinition that would not recompile, or that drops an instance
        variable, is refused while a method it may drop is unread, and
        changes nothing.
        """
        for className, arguments, unread in (
                ("Greeter", {"instVarNames": ["name"],
                             "recompileMethods": False}, "greet"),
                ("AccountTest", {"superclassName": "TestCase",
                                 "instVarNames": ["other"],
                                 "dictionary": "Banking"}, "setUp")):
            yield self.succeed("get_class_definition", className=className)
            message = yield self.refused("compile_class_definition",
                                         className=className, **arguments)
            self.assertIn(unread, message)
            self.assertIn("get_method_source", message)
            self.assertEqual(len(self.code().classHistory(className)), 1)

    @inlineCallbacks
    def test_addingAnInstanceVariableNeedsNoReads(self):
        """
        A redefinition that keeps every instance variable and recompiles
        drops nothing a compile would not report: no method reads needed.
        """
        yield self.succeed("get_class_definition", className="Greeter")
        yield self.succeed("compile_class_definition", className="Greeter",
                           instVarNames=["name"])

"""
The blind-write guardrail's smaller holes (issue 11, item 12), against the
simulated stone: removing a dictionary that holds classes needs them
listed, as they are now; a compiled selector must be the one guarded; an
identifier may not end in a newline.
"""

from twisted.internet.defer import inlineCallbacks

from tests import test_tools_mutation


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

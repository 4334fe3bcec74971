"""
Tests for L{gsmcpd.testing.simulator.shapes} and
L{gsmcpd.testing.simulator.classkinds}: byte and indexable classes as
GemStone 3.7 defines them, and what it refuses.
"""

from twisted.internet.defer import inlineCallbacks

from tests.tools.test_tools_mutation import MutationTestCase

HOME = "(System myUserProfile symbolList detect: [:each | each name == #Banking])"
BYTES = ("{superclass} byteSubclass: '{name}' classVars: #() "
         "poolDictionaries: #() inDictionary: " + HOME + " options: #()")
INDEXABLE = ("{superclass} indexableSubclass: '{name}' instVarNames: {variables} "
             "classVars: #() classInstVars: #() poolDictionaries: #() "
             "inDictionary: " + HOME + " options: #()")
POINTER = INDEXABLE.replace("indexableSubclass:", "subclass:")


class ShapeTests(MutationTestCase):

    @inlineCallbacks
    def evaluate(self, code):
        result = yield self.succeed("execute_code", code=code)
        return result["content"][0]["text"]

    @inlineCallbacks
    def refusedCode(self, code, why):
        result = yield self.harness.call("execute_code", code=code)
        self.assertTrue(result["isError"])
        self.assertIn(why, result["content"][0]["text"])

    @inlineCallbacks
    def test_byteClass(self):
        """
        C{byteSubclass:} makes a byte class, indexable; its definition
        has no C{instVarNames:}.
        """
        yield self.evaluate(BYTES.format(superclass="Object", name="Blob"))
        self.assertEqual((yield self.evaluate("Blob isBytes")), "true")
        self.assertEqual((yield self.evaluate("Blob isIndexable")), "true")
        self.assertEqual((yield self.evaluate("Blob class isBytes")), "false")
        definition = self.code().definition("Blob")
        self.assertTrue(definition.startswith("Object byteSubclass: 'Blob'\n  classVars: #()\n  poolDictionaries:"),
                        definition)

    @inlineCallbacks
    def test_indexableClass(self):
        yield self.evaluate(INDEXABLE.format(superclass="Object", name="Slots",
                                        variables="#(label)"))
        self.assertEqual((yield self.evaluate("Slots isIndexable")), "true")
        self.assertEqual((yield self.evaluate("Slots isBytes")), "false")
        self.assertIn("Object indexableSubclass: 'Slots'\n  instVarNames: #( label)",
                      self.code().definition("Slots"))

    @inlineCallbacks
    def test_kindInherited(self):
        """C{subclass:} keeps the superclass's kind, and says C{subclass:}."""
        yield self.evaluate(BYTES.format(superclass="Object", name="Blob"))
        yield self.evaluate(POINTER.format(superclass="Blob", name="SubBlob", variables="#()"))
        self.assertEqual((yield self.evaluate("SubBlob isBytes")), "true")
        self.assertTrue(self.code().definition("SubBlob").startswith(
            "Blob subclass: 'SubBlob'"))
        self.assertEqual((yield self.evaluate("String isBytes")), "true")
        self.assertEqual((yield self.evaluate("Array isIndexable")), "true")
        self.assertEqual((yield self.evaluate("Account isIndexable")), "false")

    def test_byteClassUnderNamedVariables(self):
        """A byte class has no named instance variables: not under Account."""
        return self.refusedCode(BYTES.format(superclass="Account", name="Blob"),
                            "cannot have named instance variables")

    @inlineCallbacks
    def test_namedVariablesInByteClass(self):
        yield self.evaluate(BYTES.format(superclass="Object", name="Blob"))
        yield self.refusedCode(POINTER.format(superclass="Blob", name="SubBlob",
                                          variables="#(extra)"),
                           "cannot have named instance variables")

    @inlineCallbacks
    def test_mixedKindsRefused(self):
        yield self.evaluate(BYTES.format(superclass="Object", name="Blob"))
        yield self.refusedCode(INDEXABLE.format(superclass="Blob", name="Slots",
                                            variables="#()"),
                           "under a byte class")
        yield self.refusedCode(BYTES.format(superclass="Array", name="Blob2"),
                           "under an indexable class")

    def test_byteSubclassTakesNoInstVarNames(self):
        """GemStone has no C{byteSubclass:instVarNames:...}."""
        return self.refusedCode(INDEXABLE.format(superclass="Object", name="Blob",
                                             variables="#()").replace(
            "indexableSubclass:", "byteSubclass:"), "byteSubclass:instVarNames:")

    @inlineCallbacks
    def test_kindChangeIsNewVersion(self):
        yield self.evaluate(POINTER.format(superclass="Object", name="Box", variables="#()"))
        yield self.evaluate(INDEXABLE.format(superclass="Object", name="Box", variables="#()"))
        self.assertEqual(len(self.code().classHistory("Box")), 2)

"""
Tests for L{gsmcpd.tools.tonel} with byte and indexable classes: exported
with Rowan's C{#type}, loaded back as classes of the same kind.
"""

from twisted.internet.defer import inlineCallbacks

from tests.tools.test_tools_tonel import TonelTestCase

TEMPLATES = ("export_tonel", "compile_class_definition")
"""The templates these tests run (the mutation catalog finds them here)."""

HOME = "(System myUserProfile symbolList detect: [:each | each name == #Banking])"
DEFINE = (
    ("(Object byteSubclass: 'Blob' classVars: #(Width) poolDictionaries: #() "
    "inDictionary: " + HOME + " options: #()) category: 'Banking-Shapes'. "
    "(Object indexableSubclass: 'Slots' instVarNames: #(label) classVars: #() "
    "classInstVars: #(made) poolDictionaries: #() inDictionary: " + HOME +
    " options: #()) category: 'Banking-Shapes'"),
    ("(Blob subclass: 'SubBlob' instVarNames: #() classVars: #() classInstVars: #() "
    "poolDictionaries: #() inDictionary: " + HOME + " options: #()) "
    "category: 'Banking-Shapes'"))
CLASSES = ("SubBlob", "Slots", "Blob")

BLOB = """Class {
\t#name : 'Blob',
\t#superclass : 'Object',
\t#type : 'byteSubclass',
\t#classVars : [
\t\t'Width'
\t],
\t#category : 'Banking-Shapes'
}
"""

SLOTS = """Class {
\t#name : 'Slots',
\t#superclass : 'Object',
\t#type : 'variable',
\t#instVars : [
\t\t'label'
\t],
\t#classInstVars : [
\t\t'made'
\t],
\t#category : 'Banking-Shapes'
}
"""


class ShapeTests(TonelTestCase):

    @inlineCallbacks
    def shapes(self):
        """The Banking-Shapes package's export, by path."""
        for code in DEFINE:
            yield self.succeed("execute_code", code=code)
        found = yield self.exported(category="Banking-Shapes")
        return {each["path"]: each["content"] for each in found["files"]}

    @inlineCallbacks
    def test_exportedWithTheirType(self):
        """
        Rowan's C{#type}: C{byteSubclass} for a byte class (a subclass of
        one is one too), C{variable} for an indexable one.
        """
        files = yield self.shapes()
        self.assertEqual(files["Banking-Shapes/Blob.class.st"], BLOB)
        self.assertEqual(files["Banking-Shapes/Slots.class.st"], SLOTS)
        self.assertIn("\t#type : 'byteSubclass',\n",
                      files["Banking-Shapes/SubBlob.class.st"])

    @inlineCallbacks
    def test_roundTrip(self):
        """
        Export, load into a stone without the package, export again: the
        same files, and classes of the same kinds.
        """
        files = yield self.shapes()
        yield self.succeed("commit")
        for className in CLASSES:
            yield self.succeed("get_class_definition", className=className)
            yield self.succeed("delete_class", className=className)
        yield self.succeed("commit")
        yield self.succeed("load_tonel", files=[
            {"path": path, "content": content} for path, content in files.items()])
        again = yield self.exported(category="Banking-Shapes")
        self.assertEqual({each["path"]: each["content"] for each in again["files"]},
                         files)
        kinds = yield self.succeed("execute_code", code=(
            "Array with: Blob isBytes with: SubBlob isBytes with: Slots isIndexable "
            "with: Slots isBytes"))
        self.assertEqual(kinds["content"][0]["text"], "anArray( true, true, true, false)")

    @inlineCallbacks
    def test_kindChanged(self):
        """A file that makes a pointer class indexable redefines it so."""
        files = yield self.shapes()
        path = "Banking-Shapes/Slots.class.st"
        files[path] = files[path].replace("\t#type : 'variable',\n", "")
        yield self.succeed("load_tonel", files=[{"path": path, "content": files[path]}])
        kinds = yield self.succeed("execute_code", code="Slots isIndexable")
        self.assertEqual(kinds["content"][0]["text"], "false")

    @inlineCallbacks
    def test_byteClassWithVariablesRefused(self):
        """
        A byte class with instance or class-instance variables is refused
        (C{byteSubclass:} takes neither), told at the class's file.
        """
        path = "Banking-Shapes/Blob.class.st"
        for key in ("instVars", "classInstVars"):
            text = BLOB.replace("\t#category",
                                f"\t#{key} : [\n\t\t'size'\n\t],\n\t#category")
            result = yield self.load({path: text})
            self.assertTrue(result["isError"])
            self.assertIn("Blob is a byte class", result["content"][0]["text"])
            self.assertIsNone(self.code().classNamed("Blob"))

    @inlineCallbacks
    def test_otherTypeRefused(self):
        """A #type Rowan writes for a shape GemStone has no class-creation
        message for here is not Tonel this loads."""
        path = "Banking-Shapes/Blob.class.st"
        found, message = yield self.harness.error("load_tonel", files=[
            {"path": path, "content": BLOB.replace("'byteSubclass'", "'immediate'")}])
        self.assertEqual(found, "compileError", message)
        self.assertIn("#type 'immediate' is not loaded", message)

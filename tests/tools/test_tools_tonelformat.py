"""
Tests for L{gsmcpd.tools.tonelformat}: Tonel written as Rowan writes it for
GemStone, and read back with a real parser.
"""

from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.tonelformat import (
    TonelClass,
    TonelMethod,
    TonelSyntaxError,
    classFile,
    extensionFile,
    packageFile,
    parseFile,
    splitSource,
)


def writeFile(parsed):
    """The text of a parsed file, as the module writes it."""
    if parsed.kind == "package":
        return packageFile(parsed.name)
    if parsed.definition is not None:
        return classFile(parsed.definition, parsed.methods)
    return extensionFile(parsed.name, parsed.methods)


ACCOUNT = TonelClass("Account", "Object", ("balance", "owner"),
                     category="Banking-Core",
                     comment='A bank account; "balance" in cents.')

ACCOUNT_FILE = '''"
A bank account; ""balance"" in cents.
"
Class {
\t#name : 'Account',
\t#superclass : 'Object',
\t#instVars : [
\t\t'balance',
\t\t'owner'
\t],
\t#category : 'Banking-Core'
}

{ #category : 'instance creation' }
Account class >> new [
\t^super new initialize
]

{ #category : 'accessing' }
Account >> balance [
\t^balance
]

{ #category : 'operations' }
Account >> deposit: amount [
\t"a ] in a comment, and ']' in a string"
\tbalance := balance + amount.
\t^#(1 $] #[1 2]) size
]
'''

METHODS = [
    TonelMethod("Account", False, "deposit:", "operations",
                "deposit: amount\n\t\"a ] in a comment, and ']' in a "
                "string\"\n\tbalance := balance + amount.\n"
                "\t^#(1 $] #[1 2]) size"),
    TonelMethod("Account", False, "balance", "accessing",
                "balance\n\t^balance"),
    TonelMethod("Account", True, "new", "instance creation",
                "new\n\t^super new initialize"),
]


class WriteTests(SynchronousTestCase):

    def test_classFile(self):
        """
        A class file as Rowan writes one for GemStone: the comment above,
        string values, empty lists left out, class side first, then each
        side by selector, a blank line before each method.
        """
        self.assertEqual(classFile(ACCOUNT, METHODS), ACCOUNT_FILE)

    def test_everyHeaderKey(self):
        """
        Rowan's keys in Rowan's order, GemStone's options among them.
        """
        text = classFile(TonelClass(
            "Cache", "Object", ("a",), ("B",), ("Pool",), ("c",),
            ("dbTransient",), "Kernel"), ())
        keys = [line.split(" :")[0].strip() for line in text.splitlines()
                if line.startswith("\t#")]
        self.assertEqual(keys, ["#name", "#superclass", "#instVars",
                                "#classVars", "#pools", "#classInstVars",
                                "#gs_options", "#category"])

    def test_classType(self):
        """
        A byte or indexable class's C{#type}, right after C{#superclass}
        as Rowan writes it for GemStone; a pointer class has none.
        """
        for classType in ("byteSubclass", "variable"):
            text = classFile(TonelClass("Blob", "Object", classVars=("B",),
                                        category="Kernel",
                                        classType=classType), ())
            self.assertEqual(text, "Class {\n\t#name : 'Blob',\n"
                             "\t#superclass : 'Object',\n"
                             f"\t#type : '{classType}',\n"
                             "\t#classVars : [\n\t\t'B'\n\t],\n"
                             "\t#category : 'Kernel'\n}\n")
            self.assertEqual(parseFile("p", text).definition.classType, classType)
        self.assertNotIn("#type", ACCOUNT_FILE)

    def test_packageAndExtension(self):
        self.assertEqual(packageFile("Banking-Core"),
                         "Package {\n\t#name : 'Banking-Core'\n}\n")
        self.assertEqual(
            extensionFile("Object", [TonelMethod(
                "Object", False, "isAccount", "*banking-core",
                "isAccount\n\t^false")]),
            "Extension {\n\t#name : 'Object'\n}\n\n"
            "{ #category : '*banking-core' }\n"
            "Object >> isAccount [\n\t^false\n]\n")

    def test_patternOnOneLine(self):
        """
        A keyword pattern split over lines is written on one; the rest of
        the source is kept as it is.
        """
        self.assertEqual(splitSource("at: i\n   put: v\n\t^v"),
                         ("at: i put: v", "\n\t^v"))
        self.assertEqual(splitSource("+ other\n\t^3"), ("+ other", "\n\t^3"))


class ParseTests(SynchronousTestCase):

    def test_classFile(self):
        """
        Brackets inside comments, strings, character and literal arrays
        do not end a method's body.
        """
        parsed = parseFile("Banking-Core/Account.class.st", ACCOUNT_FILE)
        self.assertEqual((parsed.kind, parsed.name, parsed.definition),
                         ("class", "Account", ACCOUNT))
        self.assertEqual(sorted(parsed.methods, key=lambda m: m.selector),
                         sorted(METHODS, key=lambda m: m.selector))
        self.assertEqual([m.line for m in parsed.methods], [14, 19, 24])

    def test_symbolsAsPharoWritesThem(self):
        """Pharo's symbol values read as names too."""
        parsed = parseFile("P/A.class.st", "Class {\n\t#name : #A,\n\t"
                           "#superclass : #'Object',\n\t#category : #P\n}\n")
        self.assertEqual(parsed.definition, TonelClass("A", "Object",
                                                       category="P"))

    def test_errorsWhere(self):
        """A file that is not Tonel is refused at its line and column."""
        cases = [
            ("Class {\n\t#name 'A'\n}\n", 2, 8, "expected ':'"),
            ("Klass {}\n", 1, 1, "expected Package, Class or Extension"),
            ("Class { #name : 'A' }\n\nA >> foo [\n\t^1\n", 3, 1,
             "expected '{'"),
            ("Class { #name : 'A' }\n{ #category : 'x' }\nA >> foo [\n"
             "\t^'1]\n", 4, 3, "unterminated string"),
            ("Class { #name : 'A' }\n{ #category : 'x' }\nB >> foo [\n]\n",
             3, 3, "a method of B in A's file"),
            ("Class { #name : 'A', #type : 'words' }\n", 1, 1,
             "a class of #type 'words' is not loaded (only byteSubclass, "
             "variable or none)"),
        ]
        for text, line, column, message in cases:
            with self.subTest(text=text):
                e = self.assertRaises(TonelSyntaxError, parseFile, "p", text)
                self.assertEqual((e.line, e.column, e.message),
                                 (line, column, message))


_names = st.from_regex(r"\A[A-Z][A-Za-z0-9]{0,8}\Z")
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@st.composite
def _methods(draw: st.DrawFn, className: str) -> TonelMethod:
    meta = draw(st.booleans())
    unary = draw(st.from_regex(r"\A[a-z][A-Za-z0-9]{0,8}\Z"))
    literal = draw(_text).replace("'", "''")
    comment = draw(_text).replace('"', '""')
    body = draw(st.sampled_from([
        f"\n\t^'{literal}'", f"\n\t\"{comment}\"\n\t^#(a $] #[1]) [:x | x]",
        "", "\n\n\t^self\n"]))
    return TonelMethod(className, meta, unary, draw(_text), unary + body)


@st.composite
def _classes(draw: st.DrawFn) -> tuple[TonelClass, list[TonelMethod]]:
    name = draw(_names)
    names = st.lists(_names, max_size=3).map(tuple)
    definition = TonelClass(
        name, draw(st.none() | _names), draw(names), draw(names),
        draw(names), draw(names), draw(names), draw(st.none() | _text),
        draw(_text.map(str.strip)),
        draw(st.sampled_from([None, "byteSubclass", "variable"])))
    methods = draw(st.lists(_methods(name), max_size=5,
                            unique_by=lambda m: (m.meta, m.selector)))
    return definition, methods


class RoundTripTests(SynchronousTestCase):

    @settings(max_examples=200, deadline=None)
    @given(_classes())
    def test_writeParseWrite(self, drawn):
        """
        What is written parses to the same class and methods, and is
        written again byte for byte.
        """
        definition, methods = drawn
        text = classFile(definition, methods)
        parsed = parseFile("P/X.class.st", text)
        self.assertEqual(parsed.definition, definition)
        self.assertEqual(set(parsed.methods), set(methods))
        self.assertEqual(writeFile(parsed), text)

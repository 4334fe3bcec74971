"""
Tests for L{gsmcpd.smalltalk.rewrite}: renames and parameter changes made
at the parser's token positions, never by text search.
"""

from hypothesis import given
from hypothesis import strategies as st
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.smalltalk import parse_method
from gsmcpd.smalltalk.rewrite import (
    Edit,
    RewriteError,
    addParameterEdits,
    applyEdits,
    arity,
    keywords,
    removeParameterEdits,
    renameSelectorEdits,
    symbolMentions,
    variableEdits,
)

TWICE = ("twice: n\n\t\"bump: twice\"\n\tself bump: n; bump: n.\n"
         "\tself perform: #bump: with: n.\n\t^#(bump: 1) -> 'bump: done'")


def renamed(source, old, new, **keywords):
    return applyEdits(source, renameSelectorEdits(
        parse_method(source), old, new, **keywords))


class SelectorTests(SynchronousTestCase):

    def test_keywordsAndArity(self):
        self.assertEqual(keywords("at:put:"), ["at:", "put:"])
        self.assertEqual(keywords("size"), ["size"])
        self.assertEqual([arity(s) for s in ("size", "+", "at:put:")],
                         [0, 1, 2])

    def test_sendsAndPatternRenamed(self):
        """
        Every send, a cascade's included, and the pattern are renamed; the
        comment, the string, the performed symbol and the one in a literal
        array are not.
        """
        self.assertEqual(
            renamed(TWICE, "bump:", "add:"),
            "twice: n\n\t\"bump: twice\"\n\tself add: n; add: n.\n"
            "\tself perform: #bump: with: n.\n\t^#(bump: 1) -> 'bump: done'")
        self.assertEqual(renamed("bump: n\n\t^n", "bump:", "add:"),
                         "add: n\n\t^n")

    def test_keywordByKeyword(self):
        """
        The text between the keywords (arguments, blanks, a comment) stays.
        """
        self.assertEqual(
            renamed("at: i put: v\n\t^self at: i \"x\"\n\t\tput: (v at: 1 put: 2)",
                    "at:put:", "store:into:"),
            "store: i into: v\n\t^self store: i \"x\"\n\t\tinto: (v store: 1 into: 2)")

    def test_onlyChosenSends(self):
        """
        A rename can be told which sends to change, and to leave the pattern.
        """
        source = "bump: n\n\tself bump: n. other bump: n"
        self.assertEqual(
            renamed(source, "bump:", "add:", pattern=False,
                    renames=lambda node: node.receiver.name == "self"),
            "bump: n\n\tself add: n. other bump: n")

    def test_arityMustMatch(self):
        self.assertRaises(RewriteError, renameSelectorEdits,
                          parse_method("x ^1"), "bump:", "add")
        self.assertRaises(RewriteError, renameSelectorEdits,
                          parse_method("x ^1"), "+", "add:")

    def test_mentions(self):
        """
        The symbols naming the selector, with why each is left alone.
        """
        self.assertEqual(
            [each.reason for each in symbolMentions(parse_method(
                TWICE + ". ^#bump:"), "bump:")],
            ["perform: of the literal symbol", "a symbol in a literal array",
             "a literal symbol"])

    def test_overlapRefused(self):
        self.assertRaises(RewriteError, applyEdits, "abc",
                          [Edit(0, 2, "x"), Edit(1, 3, "y")])


class ParameterTests(SynchronousTestCase):

    def test_addParameter(self):
        source = "deposit: n\n\tself deposit: n + 1. ^other deposit: 2 ; yourself"
        self.assertEqual(
            applyEdits(source, addParameterEdits(
                source, parse_method(source), "deposit:", "deposit:memo:",
                "'none' , 'x'", "memo")),
            "deposit: n memo: memo\n\tself deposit: n + 1 memo: ('none' , 'x')."
            " ^other deposit: 2 memo: ('none' , 'x') ; yourself")

    def test_addParameterToUnary(self):
        """
        A unary send become a keyword one is parenthesised where what
        follows would otherwise become its argument.
        """
        source = "total\n\t^self total printString , self total"
        self.assertEqual(
            applyEdits(source, addParameterEdits(
                source, parse_method(source), "total", "total:", "nil",
                "which")),
            "total: which\n\t^(self total: nil) printString , (self total: nil)")

    def test_removeParameter(self):
        source = "a: x b: y c: z\n\t^self a: 1 b: 2 c: 3"
        for index, new, expected in [
                (1, "b:c:", "b: y c: z\n\t^self b: 2 c: 3"),
                (2, "a:c:", "a: x c: z\n\t^self a: 1 c: 3"),
                (3, "a:b:", "a: x b: y\n\t^self a: 1 b: 2")]:
            edits = removeParameterEdits(source, parse_method(source),
                                         "a:b:c:", new, index)
            self.assertEqual(applyEdits(source, edits), expected)
        edits = removeParameterEdits(source, parse_method(source),
                                     "a:b:c:", "x:y:", 2)
        self.assertEqual(applyEdits(source, edits),
                         "x: x y: z\n\t^self x: 1 y: 3")

    def test_removedArgumentWithoutEffects(self):
        """
        A sender's removed argument may be a literal, a variable or a
        block; an assignment or a send could have an effect, refused.
        """
        for argument in ("#(1 $a)", "n", "[:x | x foo]", "self", "'s'"):
            source = f"b: n\n\t^self a: {argument}"
            self.assertEqual(applyEdits(source, removeParameterEdits(
                source, parse_method(source), "a:", "a", 1)),
                "b: n\n\t^self a")
        for argument in ("(n := self next)", "self next", "{self next}",
                         "(n foo; bar)"):
            source = f"b: n\n\t^self a: {argument}"
            error = self.assertRaises(
                RewriteError, removeParameterEdits, source,
                parse_method(source), "a:", "a", 1)
            self.assertIn("could drop a side effect", str(error))

    def test_removeTheOnlyParameter(self):
        source = "bump: n\n\t^1 + 2 bump: 3"
        self.assertEqual(
            applyEdits(source, removeParameterEdits(
                source, parse_method(source), "bump:", "bump", 1)),
            "bump\n\t^(1 + 2) bump")

    def test_usedParameterRefused(self):
        source = "a: x b: y\n\t^y"
        self.assertRaises(RewriteError, removeParameterEdits, source,
                          parse_method(source), "a:b:", "a:", 2)


class VariableTests(SynchronousTestCase):

    def test_references(self):
        source = "reset\n\t\"Account\" balance := Account new. ^'Account' , #Account"
        self.assertEqual(
            applyEdits(source, variableEdits(parse_method(source), "Account",
                                             "Ledger")),
            "reset\n\t\"Account\" balance := Ledger new. ^'Account' , #Account")
        self.assertEqual(
            applyEdits(source, variableEdits(parse_method(source), "balance",
                                             "total")),
            "reset\n\t\"Account\" total := Account new. ^'Account' , #Account")

    def test_hiddenRefused(self):
        self.assertRaises(RewriteError, variableEdits,
                          parse_method("x: balance\n\t^balance"), "balance",
                          "total")


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


class PropertyTests(SynchronousTestCase):

    @given(_TEXT, _TEXT)
    def test_stringsCommentsSymbolsUntouched(self, text, comment):
        """
        Whatever a string, a comment or a quoted symbol holds (the selector
        itself included), a rename changes only the sends.
        """
        string = "'" + ("bump: " + text).replace("'", "''") + "'"
        remark = '"' + ("bump: " + comment).replace('"', '""') + '"'
        symbol = "#'" + text.replace("'", "''") + "bump:'"
        source = (f"run\n\t{remark}\n\tself bump: {string}.\n"
                  f"\t^{symbol} -> #bump:")
        self.assertEqual(
            renamed(source, "bump:", "add:"),
            f"run\n\t{remark}\n\tself add: {string}.\n\t^{symbol} -> #bump:")

    @given(st.lists(st.sampled_from(
        ["self bump: 1", "x bump: (y bump: 2)", "'bump:' size", "#bump:",
         "\"bump:\" 3", "z bump: 4; bump: 5"]), max_size=6))
    def test_renameBackIsTheSource(self, statements):
        """
        Renaming there and back gives the source again, byte for byte.
        """
        source = "run\n\t" + ".\n\t".join(statements)
        self.assertEqual(
            renamed(renamed(source, "bump:", "zzzz:"), "zzzz:", "bump:"),
            source)

"""
Tests for L{gsmcpd.smalltalk}.
"""

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.smalltalk import (
    Assignment,
    Block,
    BraceArray,
    Cascade,
    Literal,
    Message,
    Method,
    Return,
    Sequence,
    SmalltalkSyntaxError,
    Variable,
    closing_bracket,
    iter_nodes,
    parse_expression,
    parse_method,
    sent_selectors,
)


def expression(source):
    """
    Parse a doit holding a single statement and return that statement.
    """
    sequence = parse_expression(source)
    assert len(sequence.statements) == 1, sequence
    return sequence.statements[0]


def literal(source):
    node = expression(source)
    assert isinstance(node, Literal), node
    return node


def integer(value):
    return Literal(value, "integer")


def symbol(name):
    return Literal(name, "symbol")


a, b, c = Variable("a"), Variable("b"), Variable("c")


class PrecedenceTests(SynchronousTestCase):
    def test_unaryBeforeBinary(self):
        self.assertEqual(
            expression("a foo + b bar"),
            Message(Message(a, "foo", ()), "+", (Message(b, "bar", ()),)),
        )

    def test_binaryLeftToRight(self):
        self.assertEqual(
            expression("1 + 2 * 3"),
            Message(Message(integer(1), "+", (integer(2),)), "*", (integer(3),)),
        )

    def test_binaryBeforeKeyword(self):
        self.assertEqual(
            expression("a at: b + 1 put: c foo"),
            Message(
                a,
                "at:put:",
                (Message(b, "+", (integer(1),)), Message(c, "foo", ())),
            ),
        )

    def test_parentheses(self):
        self.assertEqual(
            expression("(a at: 1) + (b max: 2)"),
            Message(
                Message(a, "at:", (integer(1),)),
                "+",
                (Message(b, "max:", (integer(2),)),),
            ),
        )

    def test_binarySelectorRuns(self):
        for selector in ["->", "<=", "~=", "~~", "==", "//", "\\\\", "==>", ","]:
            self.assertEqual(expression(f"a {selector} b"), Message(a, selector, (b,)))

    def test_chainedAssignment(self):
        self.assertEqual(
            expression("a := b := 3 + 4"),
            Assignment("a", Assignment("b", Message(integer(3), "+", (integer(4),)))),
        )

    def test_pseudoVariables(self):
        self.assertEqual(
            expression("thisContext foo: self bar: super"),
            Message(
                Variable("thisContext"),
                "foo:bar:",
                (Variable("self"), Variable("super")),
            ),
        )

    def test_return(self):
        self.assertEqual(expression("^ a foo"), Return(Message(a, "foo", ())))

    def test_offsets(self):
        """
        Every node records where it starts.
        """
        node = expression("x := (a foo: 'b') bar")
        self.assertEqual(node.offset, 0)
        self.assertEqual(node.value.offset, 6)
        self.assertEqual(node.value.receiver.args[0].offset, 13)


class SequenceTests(SynchronousTestCase):
    def test_temporariesAndStatements(self):
        self.assertEqual(
            parse_expression("| a b | a := 1. ^ a"),
            Sequence(("a", "b"), (Assignment("a", integer(1)), Return(a))),
        )

    def test_trailingPeriod(self):
        self.assertEqual(parse_expression("a. b."), Sequence((), (a, b)))

    def test_empty(self):
        self.assertEqual(parse_expression('  "nothing" '), Sequence((), ()))
        self.assertEqual(parse_expression("||"), Sequence((), ()))


class CascadeTests(SynchronousTestCase):
    def test_cascade(self):
        s = Variable("s")
        self.assertEqual(
            expression("s nextPutAll: 'a'; nextPutAll: 'b'; yourself"),
            Cascade(
                s,
                (
                    ("nextPutAll:", (Literal("a", "string"),)),
                    ("nextPutAll:", (Literal("b", "string"),)),
                    ("yourself", ()),
                ),
            ),
        )

    def test_receiverIsBeforeLastMessage(self):
        """
        The cascade goes to the receiver of the message before the first
        C{;}, which may itself be the result of other messages.
        """
        self.assertEqual(
            expression("OrderedCollection new add: 1 + 2; add: 3; yourself"),
            Cascade(
                Message(Variable("OrderedCollection"), "new", ()),
                (
                    ("add:", (Message(integer(1), "+", (integer(2),)),)),
                    ("add:", (integer(3),)),
                    ("yourself", ()),
                ),
            ),
        )

    def test_binaryParts(self):
        self.assertEqual(
            expression("a + 1; - b foo"),
            Cascade(a, (("+", (integer(1),)), ("-", (Message(b, "foo", ()),)))),
        )

    def test_commentsInCascade(self):
        self.assertEqual(
            expression('a "one" foo "two"; "three" bar: "four" 1 "five"; baz'),
            Cascade(a, (("foo", ()), ("bar:", (integer(1),)), ("baz", ()))),
        )

    def test_cascadeInKeywordArgumentNeedsParentheses(self):
        self.assertEqual(
            expression("a foo: (b bar; baz)"),
            Message(a, "foo:", (Cascade(b, (("bar", ()), ("baz", ()))),)),
        )

    def test_noMessageBeforeSemicolon(self):
        error = self.assertRaises(SmalltalkSyntaxError, parse_expression, "a; foo")
        self.assertEqual(
            (error.message, error.offset), ("expected a message before ';'", 1)
        )


class BlockTests(SynchronousTestCase):
    def test_parametersAndTemporaries(self):
        self.assertEqual(
            expression("[:a :b | | t | t := a. t + b]"),
            Block(
                ("a", "b"),
                ("t",),
                (Assignment("t", a), Message(Variable("t"), "+", (b,))),
            ),
        )

    def test_doubleBar(self):
        self.assertEqual(
            expression("[:a || t | t]"), Block(("a",), ("t",), (Variable("t"),))
        )

    def test_empty(self):
        self.assertEqual(expression("[]"), Block((), (), ()))
        self.assertEqual(expression("[:x | ]"), Block(("x",), (), ()))
        self.assertEqual(expression("[:x]"), Block(("x",), (), ()))

    def test_returnAndPeriod(self):
        self.assertEqual(expression("[^ a.]"), Block((), (), (Return(a),)))

    def test_nested(self):
        self.assertEqual(
            expression("a do: [:x | x ifTrue: [b]]"),
            Message(
                a,
                "do:",
                (
                    Block(
                        ("x",),
                        (),
                        (Message(Variable("x"), "ifTrue:", (Block((), (), (b,)),)),),
                    ),
                ),
            ),
        )


class BraceArrayTests(SynchronousTestCase):
    def test_elements(self):
        self.assertEqual(
            expression("{1. a foo. b}"),
            BraceArray((integer(1), Message(a, "foo", ()), b)),
        )

    def test_emptyAndTrailingPeriod(self):
        self.assertEqual(expression("{}"), BraceArray(()))
        self.assertEqual(expression("{a.}"), BraceArray((a,)))


class LiteralTests(SynchronousTestCase):
    def assertLiteral(self, source, value, kind):
        node = literal(source)
        self.assertEqual((node.value, node.kind), (value, kind))
        self.assertIs(type(node.value), type(value))

    def test_integers(self):
        self.assertLiteral("42", 42, "integer")
        self.assertLiteral("-5", -5, "integer")
        self.assertLiteral("16r1F", 31, "integer")
        self.assertLiteral("2r1010", 10, "integer")
        self.assertLiteral("-16rFF", -255, "integer")
        self.assertLiteral("1e3", 1000, "integer")
        self.assertLiteral(
            "123456789012345678901234567890", 123456789012345678901234567890, "integer"
        )

    def test_floats(self):
        self.assertLiteral("1.5", 1.5, "float")
        self.assertLiteral("1.5e-3", 0.0015, "float")
        self.assertLiteral("-2.0", -2.0, "float")
        self.assertLiteral("1.5d0", 1.5, "float")
        self.assertLiteral("1.5q2", 150.0, "float")
        self.assertLiteral("1.5f", 1.5, "float")
        self.assertLiteral("1e-3", 0.001, "float")

    def test_scaled(self):
        self.assertLiteral("1.5s2", Decimal("1.5"), "scaled")
        self.assertLiteral("3s", Decimal("3"), "scaled")
        self.assertLiteral("-0.25s", Decimal("-0.25"), "scaled")

    def test_strings(self):
        self.assertLiteral("'it''s'", "it's", "string")
        self.assertLiteral("''", "", "string")
        self.assertLiteral(
            "'two\nlines \"not a comment\"'", 'two\nlines "not a comment"', "string"
        )

    def test_symbols(self):
        self.assertLiteral("#foo", "foo", "symbol")
        self.assertLiteral("#at:put:", "at:put:", "symbol")
        self.assertLiteral("#+", "+", "symbol")
        self.assertLiteral("#->", "->", "symbol")
        self.assertLiteral("#'hello world'", "hello world", "symbol")

    def test_characters(self):
        self.assertLiteral("$a", "a", "character")
        self.assertLiteral("$'", "'", "character")
        self.assertLiteral("$ ", " ", "character")
        self.assertLiteral('$"', '"', "character")

    def test_constants(self):
        self.assertLiteral("nil", None, "nil")
        self.assertLiteral("true", True, "true")
        self.assertLiteral("false", False, "false")

    def test_byteArray(self):
        self.assertLiteral("#[1 2 255]", b"\x01\x02\xff", "bytearray")
        self.assertLiteral("#[]", b"", "bytearray")

    def test_byteOutOfRange(self):
        error = self.assertRaises(SmalltalkSyntaxError, parse_expression, "#[1 256]")
        self.assertEqual(error.offset, 4)

    def test_literalArray(self):
        self.assertEqual(
            literal(
                "#(1 $a 'x' #sym sym at:put: #(nested) (nested too) true false nil #[1 2])"
            ),
            Literal(
                (
                    integer(1),
                    Literal("a", "character"),
                    Literal("x", "string"),
                    symbol("sym"),
                    symbol("sym"),
                    symbol("at:put:"),
                    Literal((symbol("nested"),), "array"),
                    Literal((symbol("nested"), symbol("too")), "array"),
                    Literal(True, "true"),
                    Literal(False, "false"),
                    Literal(None, "nil"),
                    Literal(b"\x01\x02", "bytearray"),
                ),
                "array",
            ),
        )

    def test_literalArraySelectorsAndSigns(self):
        self.assertEqual(
            literal("#(foo: bar: + - -1 - 2 #-)").value,
            (
                symbol("foo:"),
                symbol("bar:"),
                symbol("+"),
                symbol("-"),
                integer(-1),
                symbol("-"),
                integer(2),
                symbol("-"),
            ),
        )


class NegativeNumberTests(SynchronousTestCase):
    """
    A C{-} attached to a digit is a sign only where an operand is expected.
    """

    def test_subtraction(self):
        expected = Message(integer(3), "-", (integer(4),))
        for source in ["3-4", "3 - 4", "3 -4", "3- 4"]:
            self.assertEqual(expression(source), expected, source)

    def test_negativeOperand(self):
        self.assertEqual(expression("3 - -4"), Message(integer(3), "-", (integer(-4),)))
        self.assertEqual(expression("3--4"), Message(integer(3), "-", (integer(-4),)))
        self.assertEqual(expression("a@-1"), Message(a, "@", (integer(-1),)))
        self.assertEqual(expression("a max: -1"), Message(a, "max:", (integer(-1),)))

    def test_variableMinusNumber(self):
        self.assertEqual(expression("a-1"), Message(a, "-", (integer(1),)))

    def test_negativeReceiver(self):
        self.assertEqual(expression("-3 abs"), Message(integer(-3), "abs", ()))
        self.assertEqual(expression("-3 abs").offset, 0)

    def test_detachedMinusIsNotASign(self):
        error = self.assertRaises(SmalltalkSyntaxError, parse_expression, "- 3")
        self.assertEqual(error.offset, 0)


class CommentTests(SynchronousTestCase):
    def test_commentsEverywhere(self):
        self.assertEqual(
            parse_expression(
                '"a" | "b" t "c" | "d" t "e" := "f" #( "g" 1 "h" ) "i" . "j"'
                ' [ "k" : "l" x "m" | "n" x "o" ] "p"'
            ),
            Sequence(
                ("t",),
                (
                    Assignment("t", Literal((integer(1),), "array")),
                    Block(("x",), (), (Variable("x"),)),
                ),
            ),
        )

    def test_doubledQuote(self):
        self.assertEqual(expression('"say ""hi"" " a'), a)

    def test_unterminatedComment(self):
        error = self.assertRaises(SmalltalkSyntaxError, parse_expression, 'a.\n "oops')
        self.assertEqual(
            (error.message, error.line, error.offset), ("unterminated comment", 2, 4)
        )


class SyntaxErrorTests(SynchronousTestCase):
    def assertSyntaxError(self, source, message, line, offset):
        error = self.assertRaises(SmalltalkSyntaxError, parse_expression, source)
        self.assertEqual(
            (error.message, error.line, error.offset), (message, line, offset)
        )
        self.assertEqual(str(error), f"line {line}: {message} (offset {offset})")

    def test_unterminatedString(self):
        self.assertSyntaxError(
            "a := 1.\nb := 'abc\n\ndef", "unterminated string", 2, 13
        )

    def test_unclosedBracket(self):
        self.assertSyntaxError("a do: [:x |\n  x foo.\n", "expected ']'", 3, 21)

    def test_unclosedParenthesis(self):
        self.assertSyntaxError("(a foo\n", "expected ')'", 2, 7)

    def test_extraClosingBracket(self):
        self.assertSyntaxError("a.\n[b]]", "unexpected ']'", 2, 6)

    def test_unclosedLiteralArray(self):
        self.assertSyntaxError("#(1 2", "expected ')'", 1, 5)

    def test_unclosedBrace(self):
        self.assertSyntaxError("{1. 2", "expected '}'", 1, 5)

    def test_missingKeywordArgument(self):
        self.assertSyntaxError(
            "a at: 1 put: .", "expected an argument after 'put:'", 1, 13
        )
        self.assertSyntaxError("a at:", "expected an argument after 'at:'", 1, 5)

    def test_missingBinaryArgument(self):
        self.assertSyntaxError("a + ]", "expected an argument after '+'", 1, 4)

    def test_assignmentWithoutValue(self):
        self.assertSyntaxError("a := .", "expected an expression", 1, 5)
        self.assertSyntaxError("x.\na :=", "expected an expression", 2, 7)

    def test_assignmentToPseudoVariable(self):
        self.assertSyntaxError("self := 3", "cannot assign to self", 1, 0)

    def test_missingPeriod(self):
        self.assertSyntaxError("a foo 3", "unexpected '3'", 1, 6)

    def test_unclosedTemporaries(self):
        self.assertSyntaxError("| a b", "expected '|'", 1, 5)

    def test_badCharacters(self):
        self.assertSyntaxError("a `", "unexpected character '`'", 1, 2)
        self.assertSyntaxError("a $", "expected a character after '$'", 1, 2)
        self.assertSyntaxError("# foo", "expected a literal after '#'", 1, 0)

    def test_badRadix(self):
        self.assertSyntaxError("2r102", "invalid radix 2 number", 1, 0)


class MethodTests(SynchronousTestCase):
    def test_unary(self):
        self.assertEqual(
            parse_method("size\n\t^ 0"),
            Method("size", (), (), (), (Return(integer(0)),)),
        )

    def test_binary(self):
        self.assertEqual(
            parse_method("+ other ^ self add: other"),
            Method(
                "+",
                ("other",),
                (),
                (),
                (Return(Message(Variable("self"), "add:", (Variable("other"),))),),
            ),
        )

    def test_keywordWithPragmaAndTemporaries(self):
        method = parse_method(
            "at: i put: v\n  <primitive: 60>\n  | t |\n  t := v.\n  ^ t"
        )
        self.assertEqual(method.selector, "at:put:")
        self.assertEqual(method.params, ("i", "v"))
        self.assertEqual(method.pragmas, (("primitive:", (integer(60),)),))
        self.assertEqual(method.temps, ("t",))
        self.assertEqual(len(method.statements), 2)

    def test_pragmasAfterTemporaries(self):
        method = parse_method("foo | t | <protected> <primitive: 'x' module: -1> ^ t")
        self.assertEqual(
            method.pragmas,
            (
                ("protected", ()),
                ("primitive:module:", (Literal("x", "string"), integer(-1))),
            ),
        )
        self.assertEqual(method.temps, ("t",))

    def test_protectedPrimitive(self):
        self.assertEqual(
            parse_method("foo <protected primitive: 19> ^ nil").pragmas,
            (("protected", ()), ("primitive:", (integer(19),))),
        )

    def test_badPattern(self):
        error = self.assertRaises(SmalltalkSyntaxError, parse_method, "at: ^ 3")
        self.assertEqual(
            (error.message, error.offset), ("expected an argument name", 4)
        )

    def test_nonLiteralPragmaArgument(self):
        error = self.assertRaises(
            SmalltalkSyntaxError, parse_method, "foo <bar: baz> ^ 1"
        )
        self.assertEqual(
            (error.message, error.offset), ("pragma arguments must be literals", 10)
        )

    def test_unclosedPragma(self):
        error = self.assertRaises(SmalltalkSyntaxError, parse_method, "foo <bar: 1 ^ 1")
        self.assertEqual((error.message, error.offset), ("expected '>'", 12))


EXAMPLE = """\
"gsmcp:example"
| up result |
up := System myUserProfile.
result := WriteStream on: String new.
up symbolList do: [:dict | result nextPutAll: dict name; nextPut: $ ].
(Delay forSeconds: 2) wait.
^ result contents encodeAsUTF8
"""


class WalkTests(SynchronousTestCase):
    def test_sentSelectors(self):
        self.assertEqual(
            sent_selectors(parse_expression(EXAMPLE)),
            {
                "myUserProfile",
                "on:",
                "new",
                "symbolList",
                "do:",
                "nextPutAll:",
                "name",
                "nextPut:",
                "forSeconds:",
                "wait",
                "contents",
                "encodeAsUTF8",
            },
        )

    def test_sentSelectorsEverywhere(self):
        """
        Sends inside brace arrays, cascade arguments, returns and methods
        count; symbols in literal arrays do not.
        """
        self.assertEqual(
            sent_selectors(
                parse_expression("{a one} two; three: (b four). #(five six:) size")
            ),
            {"one", "two", "three:", "four", "size"},
        )
        self.assertEqual(
            sent_selectors(
                parse_method(
                    "foo: x <primitive: 1> ^ [x bar] on: Error do: [:e | e baz]"
                )
            ),
            {"bar", "on:do:", "baz"},
        )

    def test_iterNodes(self):
        tree = parse_expression("a := #(1) , {b}")
        self.assertEqual(
            [type(node).__name__ for node in iter_nodes(tree)],
            [
                "Sequence",
                "Assignment",
                "Message",
                "Literal",
                "Literal",
                "BraceArray",
                "Variable",
            ],
        )


class StringLiteralPropertyTests(SynchronousTestCase):
    @given(st.text())
    def test_stringRoundTrip(self, text):
        """
        Doubling quotes makes a Smalltalk string literal of any text.
        """
        source = "'" + text.replace("'", "''") + "'"
        self.assertEqual(literal(source), Literal(text, "string"))

    @given(st.text())
    def test_commentRoundTrip(self, text):
        """
        Doubling quotes makes a comment of any text, which the parser skips.
        """
        source = ' "' + text.replace('"', '""') + '" 1'
        self.assertEqual(literal(source), integer(1))


class ClosingBracketTests(SynchronousTestCase):
    """
    L{closing_bracket}: where a C{[} opened before a position closes, as
    Tonel's method bodies end.
    """

    def test_pastLiterals(self):
        """Brackets in strings, comments, characters, symbols and byte
        arrays do not count; blocks nest."""
        body = "[ ^'a]' \"b]\" , $] printString , #']' , #[1 2] [:x | [x]] ]"
        self.assertEqual(closing_bracket(body, 1), len(body) - 1)

    def test_unclosed(self):
        error = self.assertRaises(SmalltalkSyntaxError, closing_bracket,
                                  "[ ^[1", 1)
        self.assertEqual((error.message, error.offset),
                         ("expected ']' to end the method", 1))

"""
Tests for L{gsmcpd.tools.templates.render}: rendering, and the one escaping function.
"""

from hypothesis import given
from hypothesis import strategies as st
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.smalltalk import Assignment, Literal, parse_expression
from gsmcpd.tools.templates.render import Template, literal, stringLiteral
from tests.fakes import templateTag


class StringLiteralTests(SynchronousTestCase):

    def test_quoteDoubled(self):
        self.assertEqual(stringLiteral("it's"), "'it''s'")

    def test_refusesNonText(self):
        self.assertRaises(TypeError, stringLiteral, b"bytes")

    @given(st.text())
    def test_noInputEndsTheLiteral(self, text):
        """
        Whatever the text, the rendered source parses to one assignment of
        exactly that text: nothing in it is read as Smalltalk.
        """
        source = f"x := {stringLiteral(text)}. y := 1"
        statements = parse_expression(source).statements
        self.assertEqual(
            statements,
            (Assignment("x", Literal(text, "string")),
             Assignment("y", Literal(1, "integer"))))


class LiteralTests(SynchronousTestCase):

    def test_kinds(self):
        self.assertEqual(
            [literal(v) for v in (None, True, False, 42, "a", ["a", "b'c"])],
            ["nil", "true", "false", "42", "'a'", "#('a' 'b''c')"])

    def test_unsupported(self):
        self.assertRaises(TypeError, literal, 1.5)


class RenderTests(SynchronousTestCase):

    def test_tagAndArguments(self):
        """
        The first line names the template; each argument is a temporary
        assigned from a literal before the body.
        """
        source = Template.named("execute_code").render(
            {"code": "3 + 4", "limit": 10}, 4096)
        self.assertEqual(templateTag(source), "execute_code")
        parsed = parse_expression(source)
        self.assertIn("code", parsed.temps)
        self.assertEqual(parsed.statements[0],
                         Assignment("code", Literal("3 + 4", "string")))
        self.assertEqual(parsed.statements[1],
                         Assignment("limit", Literal(10, "integer")))

    def test_badArgumentName(self):
        template = Template.named("status")
        self.assertRaises(ValueError, template.render, {"a b": 1}, 10)
        self.assertRaises(ValueError, template.render, {"gsmcpOut": 1}, 10)

    def test_headKeptForEachSetOfNames(self):
        """
        The tag and temporaries made once for a set of argument names
        serve only that set, in its order, and a refused name is refused
        however often it is given.
        """
        template = Template.named("status")
        for _ in range(2):
            self.assertRaises(ValueError, template.render, {"a b": 1}, 10)
            first = template.render({"a": 1, "b": 2}, 10)
            second = template.render({"b": 3, "a": 4}, 10)
            self.assertEqual(parse_expression(first).temps[:2], ("a", "b"))
            self.assertEqual(parse_expression(second).temps[:2], ("b", "a"))
            self.assertEqual(parse_expression(second).statements[:2], (
                Assignment("b", Literal(3, "integer")),
                Assignment("a", Literal(4, "integer"))))

    @given(st.dictionaries(
        st.sampled_from(["className", "selector", "source", "comment"]),
        st.text()))
    def test_argumentsStayLiterals(self, arguments):
        """
        Arbitrary text passed as any argument changes nothing of the source
        but that argument's literal.
        """
        template = Template.named("execute_code")
        source = template.render(arguments, 100)
        blank = template.render({k: "" for k in arguments}, 100)
        parsed, expected = parse_expression(source), parse_expression(blank)
        self.assertEqual(len(parsed.statements), len(expected.statements))
        for got, want in zip(parsed.statements, expected.statements,
                             strict=True):
            if isinstance(want, Assignment) and want.name in arguments:
                self.assertEqual(got, Assignment(
                    want.name, Literal(arguments[want.name], "string")))
            else:
                self.assertEqual(got, want)

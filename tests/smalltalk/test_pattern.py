"""
Tests for L{gsmcpd.smalltalk.pattern}: Refactoring Browser patterns matched
against parse trees.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.smalltalk import SmalltalkSyntaxError, parse_method
from gsmcpd.smalltalk.pattern import compilePattern, matches, selectorsOf

SOURCE = ("run: a\n\ta perform: #bump: with: 3.\n"
          "\tself x; perform: #y with: a + 1.\n"
          "\t^a perform: a with: 2")


def found(pattern, source=SOURCE):
    return [source[m.offset:m.end] for m in
            matches(compilePattern(pattern), parse_method(source))]


class PatternTests(SynchronousTestCase):

    def test_anyReceiverLiteralArgument(self):
        """
        C{`@r} matches any expression, C{`#s} only a literal: a perform: of
        a variable is not matched; one in a cascade is.
        """
        self.assertEqual(found("`@receiver perform: `#sym with: `@arg"),
                         ["a perform: #bump: with: 3",
                          "self x; perform: #y with: a + 1"])

    def test_variableOnly(self):
        """C{`x} matches a variable, not an expression."""
        self.assertEqual(found("`x perform: `@s with: 2"),
                         ["a perform: a with: 2"])

    def test_sameNameSameCode(self):
        self.assertEqual(found("`@x perform: `@x with: `@y"),
                         ["a perform: a with: 2"])

    def test_literalsAndSelectors(self):
        self.assertEqual(found("`@x with: 3"), [])
        self.assertEqual(found("`@any + 1"), ["a + 1"])
        self.assertEqual(selectorsOf(compilePattern("(`@a foo: 1) bar")),
                         ["bar", "foo:"])

    def test_oneExpression(self):
        self.assertRaises(SmalltalkSyntaxError, compilePattern, "a. b")
        self.assertRaises(SmalltalkSyntaxError, compilePattern, "a foo:")

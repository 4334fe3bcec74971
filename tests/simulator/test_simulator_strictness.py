"""
Tests that the simulated stone (a test double, not GemStone) is no kinder
than GemStone: a bug of the model fails loudly instead of passing as a
Smalltalk error, and inlined conditionals and loops refuse a receiver that
is not a Boolean.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, evaluator
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.kernel import CLASSES
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.stone import Stone


class StrictTestCase(SynchronousTestCase):

    def setUp(self):
        self.session = Stone().login("DataCurator", "swordfish")

    def printed(self, source):
        return printString(Evaluator(self.session).evaluate(source))

    def refusal(self, source):
        """
        The Smalltalk error C{source} signals.
        """
        return self.assertRaises(errors.SmalltalkError, self.printed, source)


class ModelBugTests(StrictTestCase):

    def test_primitiveBugIsNotASmalltalkError(self):
        """
        A Python error inside a primitive is the model's bug: it passes
        every Smalltalk handler and reaches the test as itself.
        """
        methods = CLASSES["Object"].methods

        def broken(ev, receiver):
            return 1 + "a"
        self.patch(evaluator, "_KERNEL_LOOKUPS", {})
        methods["yourself"], saved = broken, methods["yourself"]
        self.addCleanup(methods.__setitem__, "yourself", saved)
        self.assertRaises(TypeError, self.printed,
                          "[3 yourself] on: Error do: [:e | e return: #caught]")

    def test_declaredChecksAreErrors(self):
        """
        What a primitive refuses on purpose is a GemStone error a handler
        takes.
        """
        for source, className in [
                ("3 + 'a'", "MessageNotUnderstood"),
                ("1.0e308 raisedTo: 2.0", "OutOfRange"),
                ("-8.0 raisedTo: 0.5", "OutOfRange"),
                ("0 raisedTo: -1", "ZeroDivide"),
                ("-1 factorial", "OutOfRange"),
                ("-1 asCharacter", "OutOfRange"),
                ("(1.0e308 * 10) truncated", "OutOfRange"),
                ("'abc' copyFrom: 1 to: 'x'", "MessageNotUnderstood"),
                ("Array new: 'x'", "MessageNotUnderstood"),
                ("String with: 3", "MessageNotUnderstood"),
                ("#(1) , 3", "MessageNotUnderstood"),
                ("1 to: 'x' do: [:i | i]", "MessageNotUnderstood")]:
            self.assertEqual(self.refusal(source).className, className, source)
        self.assertEqual(self.printed("[3 + 'a'] on: Error do: [:e | e return: #caught]"),
                         "#caught")


class NotBooleanTests(StrictTestCase):

    def assertNotBoolean(self, source, selector, className="SmallInteger"):
        e = self.refusal(source)
        self.assertEqual((e.className, e.number), ("ArgumentTypeError", errors.ARGUMENT_TYPE_ERROR))
        self.assertIn(f"a {className} is not a Boolean", e.description)
        self.assertIn(f"#'{selector}'", e.description)

    def test_inlinedConditionals(self):
        """
        An inlined conditional on a non-Boolean is an error, not a send of
        the conditional to it (which an Object could otherwise answer).
        """
        self.assertNotBoolean("3 ifTrue: [1]", "ifTrue:")
        self.assertNotBoolean("3 ifFalse: [1]", "ifFalse:")
        self.assertNotBoolean("nil ifTrue: [1] ifFalse: [2]", "ifTrue:ifFalse:", "UndefinedObject")
        self.assertNotBoolean("3 and: [true]", "and:")
        self.assertNotBoolean("'x' or: [true]", "or:", "String")
        self.assertEqual(self.printed("true and: [3]"), "3")

    def test_inlinedLoops(self):
        self.assertNotBoolean("[3] whileTrue: [nil]", "whileTrue:")
        self.assertNotBoolean("[nil] whileFalse", "whileFalse", "UndefinedObject")
        self.assertEqual(self.printed("| n | n := 0. [n < 3] whileTrue: [n := n + 1]. n"), "3")
        self.assertEqual(self.printed("| n | n := 0. [n := n + 1. n >= 3] whileFalse. n"), "3")

    def test_blocksDecidingABranch(self):
        """
        A block whose answer decides (select:, detect:, a sort block)
        answers a Boolean or fails.
        """
        self.assertNotBoolean("#(1 2) select: [:each | each]", "ifTrue:")
        self.assertNotBoolean("#(1 2) reject: [:each | nil]", "ifFalse:", "UndefinedObject")
        self.assertNotBoolean("#(1 2) detect: [:each | 0] ifNone: [nil]", "ifTrue:")
        self.assertNotBoolean("#(2 1) asSortedCollection: [:a :b | 0]", "ifTrue:")
        self.assertNotBoolean("(TestCase selector: #foo) assert: 3", "ifFalse:")


class CollationTests(StrictTestCase):

    def test_lessThanIgnoresCase(self):
        """
        String C{<} collates as an image may, ignoring case, while C{=}
        stays exact: two names that differ only in case are neither before
        nor after each other, and are not equal.
        """
        self.assertEqual(self.printed("{'Abc' < 'abc'. 'abc' < 'Abc'. 'abc' <= 'ABC'. "
                                      "'abc' = 'Abc'. 'abc' < 'abd'. 'ABC' < 'abd'}"),
                         "anArray( false, false, true, false, true, true)")

    def test_unorderedElementsChangePlaces(self):
        """
        What a sort block leaves unordered comes out one way at one sort
        and the other way at the next, as GemStone does not say which.
        """
        sort = "(#('b' 'B' 'a') asSortedCollection: [:x :y | x <= y]) asArray"
        self.assertEqual([self.printed(sort) for _ in range(2)],
                         ["anArray( 'a', 'b', 'B')", "anArray( 'a', 'B', 'b')"])

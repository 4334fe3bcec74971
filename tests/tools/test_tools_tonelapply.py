"""
Tests for L{gsmcpd.tools.tonelapply}: the order a load's steps run in,
and its errors located in the files (the load itself runs on the
simulated stone in C{tests.tools.test_tools_tonel}).
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.tonelapply import superclassesFirst, syntaxErrors
from gsmcpd.tools.tonelformat import TonelClass, TonelMethod
from gsmcpd.tools.tonelplan import Change


def _definition(name: str, superclass: str) -> Change:
    return Change(name, "added", f"P/{name}.class.st", None,
                  TonelClass(name, superclass))


class OrderTests(SynchronousTestCase):

    def test_superclassesFirst(self):
        """A superclass is defined before its subclasses, whatever the
        files' order; methods come after every definition."""
        method = Change("C", "added", "P/C.class.st", None, TonelMethod(
            "C", False, "x", "a", "x"))
        found = superclassesFirst([
            method, _definition("C", "B"), _definition("B", "A"),
            _definition("A", "Object"), _definition("D", "Object")])
        self.assertEqual([c.className for c in found],
                         ["A", "B", "C", "D", "C"])
        self.assertIs(found[-1], method)


class SyntaxErrorTests(SynchronousTestCase):

    def test_located(self):
        """
        A method that does not parse is told at its file's line and
        column: its pattern on the line after its metadata, shifted by
        what precedes the pattern there.
        """
        broken = TonelMethod("A", True, "x", "a", "x\n\t^ := 1",
                             "P/A.class.st", 10)
        first = TonelMethod("A", False, "y:", "a", "y: := 1",
                            "P/A.class.st", 20)
        found = syntaxErrors([
            Change("A", "changed", "P/A.class.st", None, broken),
            Change("A", "changed", "P/A.class.st", None, first)])
        self.assertEqual([(e["line"], e["column"]) for e in found],
                         [(12, 4), (21, 9)])

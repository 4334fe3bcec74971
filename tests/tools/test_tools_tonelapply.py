"""
Tests for L{gsmcpd.tools.tonelapply}: the order a load's steps run in,
and its errors located in the files (the load itself runs on the
simulated stone in C{tests.tools.test_tools_tonel}).
"""

from twisted.internet.defer import fail, succeed
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.base import ToolError
from gsmcpd.tools.tonelapply import Loader, superclassesFirst, syntaxErrors
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


class RollBackTests(SynchronousTestCase):

    def test_everyUndoRuns(self):
        """
        A step taken back that fails does not stop the others: each runs,
        last first, and the load's errors are told with what stays.
        """
        ran = []

        def undo(name, fails=False):
            def run():
                ran.append(name)
                return fail(ToolError("refused", f"{name} stays")) \
                    if fails else succeed(None)
            return run

        class Refusing(Loader):
            def step(self, change):
                if change.className == "B":
                    return fail(ToolError("compileError", "no B"))
                self.undo.append(undo(change.className,
                                      change.className == "A"))
                return succeed(None)

        loader = Refusing(None, None, {})
        error = self.failureResultOf(loader.load([
            _definition("A", "Object"), _definition("C", "Object"),
            _definition("B", "Object")]), ToolError).value
        self.assertEqual(ran, ["C", "A"])
        self.assertEqual(error.details, {
            "errors": [{"path": "P/B.class.st", "line": 1, "column": 1,
                        "message": "no B"}],
            "notUndone": ["A stays"]})
        self.assertIn("some of the changes stay", error.message)
        self.assertNotIn("nothing was changed", error.message)

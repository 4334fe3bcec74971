"""
Tests for L{gsmcpd.tools.templates.outcomes}: the closed set of things
running a template can come to.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.templates.outcomes import (
    ERROR_KINDS,
    FAILURES,
    STILL,
    CallBroken,
    GemGone,
    ResultOverLimit,
    ToolError,
    ViewMove,
    errorKindOf,
    stackText,
)


class ToolErrorTests(SynchronousTestCase):

    def test_kindIsClosed(self):
        """
        A client branches on the kind, so no new one appears by accident.
        """
        for kind in ERROR_KINDS:
            self.assertEqual(ToolError(kind, "m").kind, kind)
        self.assertRaises(ValueError, ToolError, "oops", "m")

    def test_overLimitIsAToolError(self):
        """
        Callers that handle tool errors handle an over-limit result too.
        """
        self.assertIsInstance(ResultOverLimit("other", "big"), ToolError)


class ViewMoveTests(SynchronousTestCase):

    def test_ofADocument(self):
        """
        A document that says nothing of the view: it stayed; C{committed}
        counts only as C{true}.
        """
        self.assertIs(ViewMove.of({"needsCommit": False}), STILL)
        self.assertEqual(ViewMove.of({"viewMoved": True, "committed": True}),
                         ViewMove(True, True))
        self.assertEqual(ViewMove.of({"viewMoved": True, "committed": 1}),
                         ViewMove(True, False))

    def test_ofAnUnsaidCommit(self):
        """
        A move whose document leaves C{committed} out, or null, may have
        committed: its commit is unknown, neither one nor none.
        """
        unknown = ViewMove(True, None)
        self.assertEqual(ViewMove.of({"viewMoved": True}), unknown)
        self.assertEqual(ViewMove.of({"viewMoved": True, "committed": None}),
                         unknown)

    def test_then(self):
        """
        One call's moves as one: a commit among them is kept.
        """
        committed, moved = ViewMove(True, True), ViewMove(True, False)
        self.assertEqual(committed.then(moved), committed)
        self.assertEqual(STILL.then(moved), moved)
        self.assertEqual(STILL.then(STILL), STILL)

    def test_thenUnknown(self):
        """
        A move that may have committed makes the call's unknown, unless
        another certainly committed.
        """
        unknown, moved = ViewMove(True, None), ViewMove(True, False)
        self.assertEqual(moved.then(unknown), unknown)
        self.assertEqual(unknown.then(STILL), unknown)
        self.assertEqual(unknown.then(ViewMove(True, True)),
                         ViewMove(True, True))


class ErrorKindOfTests(SynchronousTestCase):

    def test_compileErrorsAreTheThousands(self):
        self.assertEqual([errorKindOf(n) for n in (999, 1000, 1999, 2000, 0)],
                         ["other", "compileError", "compileError", "other",
                          "other"])


class MessageTests(SynchronousTestCase):

    def test_brokenSaysTheSessionIsIntact(self):
        text = str(CallBroken(6003))
        self.assertIn("6003", text)
        self.assertIn("uncommitted changes are intact", text)

    def test_goneLeavesTheReasonOut(self):
        """
        The reason may name hosts: only the number reaches the text.
        """
        text = str(GemGone(4100, "host db.internal"))
        self.assertEqual(text, "the gem died (GemStone error 4100)")


class FailuresTests(SynchronousTestCase):

    def test_everyFailureIsListed(self):
        for error in (ToolError("other", "m"), ResultOverLimit("other", "m"),
                      CallBroken(6003), GemGone(4100)):
            self.assertIsInstance(error, FAILURES)


def frame(method, receiverClass, line=1, source="x", variables=()):
    return {"method": method, "line": line, "source": source,
            "receiverClass": receiverClass,
            "variables": [{"name": n, "value": v} for n, v in variables]}


class StackTextTests(SynchronousTestCase):

    def test_asGemStoneReadsIt(self):
        """
        A frame a line, innermost first, with its line and source line and
        then its variables; self's class first where the method is
        inherited, in a block too; executed code as itself.
        """
        self.assertEqual(stackText({"frames": [
            frame("Number>>/", "SmallInteger", 1, "/ arg1", [("arg1", "0")]),
            frame("[] in Account>>total", "SavingsAccount", 3, "^sum / n"),
            frame("Account>>total", "Account", 2, "^[...] value"),
            frame("Account class>>new", "Account class"),
            frame("Executed Code", "UndefinedObject")], "omitted": 0}).splitlines(), [
            "Stack (innermost first):",
            "  SmallInteger (Number)>>/ (line 1): / arg1",
            "      arg1 = 0",
            "  [] in SavingsAccount (Account)>>total (line 3): ^sum / n",
            "  Account>>total (line 2): ^[...] value",
            "  Account class>>new (line 1): x",
            "  Executed Code (line 1): x"])

    def test_omitted(self):
        self.assertEqual(stackText({"frames": [], "omitted": 3}).splitlines()[-1],
                         "  ...and 3 more frames")

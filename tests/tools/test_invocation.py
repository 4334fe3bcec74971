"""
Tests for L{gsmcpd.tools.invocation}: a tool run for the sessions layer,
its end kept in the journal and handed back as one L{ToolRan}, its answer
rendered.
"""

from twisted.internet.defer import fail, succeed
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.base import (
    Tool,
    ToolError,
    ToolResult,
    annotations,
    closedSchema,
)
from gsmcpd.tools.context import NULL_CONTEXT
from gsmcpd.tools.invocation import NOT_AN_OBJECT, invoke, objectArguments
from gsmcpd.tools.journal import ChangeJournal
from gsmcpd.tools.templates.outcomes import CallBroken


def tool(run, readOnly=True):
    return Tool("t", "T", "d", closedSchema({"n": {"type": "integer"}}),
                annotations(readOnly=readOnly), run)


def ran(run, arguments=None, journal=None, readOnly=True):
    return invoke(tool(run, readOnly), arguments, None, None, NULL_CONTEXT,
                  journal, None, Tool.descriptor)


def needing(needsCommit, warnings=()):
    """A tool run whose call leaves C{needsCommit}, with C{warnings}."""
    def run(call, arguments):
        call.needsCommit = needsCommit
        call.warnings.extend(warnings)
        return ToolResult("done")
    return run


class InvokeTests(SynchronousTestCase):

    def test_answered(self):
        """
        A tool's answer, now or later, comes back with the call it ran in.
        """
        done = ToolResult("done", {"n": 1})
        now = ran(lambda call, arguments: done, {"n": 1})
        self.assertEqual(now.result, done.asResult())
        self.assertIsNone(now.call.gem)
        later = self.successResultOf(ran(
            lambda call, arguments: succeed(done)))
        self.assertEqual((later.result, later.broken, later.grew),
                         (done.asResult(), False, False))

    def test_warningsAfterTheAnswer(self):
        """
        The Warnings its templates resumed are notes after its answer.
        """
        result = ran(needing(None, ["careful"])).result
        self.assertEqual(result["content"], [
            {"type": "text", "text": "done"},
            {"type": "text", "text": "[warning] careful"}])

    def test_toolErrorIsItsAnswer(self):
        result = self.successResultOf(ran(lambda call, arguments: fail(
            ToolError("refused", "no")))).result
        self.assertEqual((result["isError"], result["structuredContent"][
            "error"]["kind"]), (True, "refused"))

    def test_endKeptInTheJournal(self):
        """
        Its end is kept in the journal it was given: a tool not declared
        read-only that left a change it cannot list is named there, and
        the run says the session grew a change to commit only when it held
        none before.
        """
        journal = ChangeJournal()
        first = ran(needing(True), journal=journal, readOnly=False)
        self.assertEqual((first.grew, journal.needsCommit, journal.unlisted),
                         (True, True, ["t"]))
        again = ran(needing(True), journal=journal, readOnly=False)
        self.assertFalse(again.grew)
        ran(needing(False), journal=journal)
        self.assertFalse(journal.needsCommit)

    def test_argumentsChecked(self):
        """
        Arguments that are not an object, or that the schema refuses, are
        the tool's error, and it does not run.
        """
        for arguments in ([1], {"n": "x"}):
            result = ran(lambda call, arguments: self.fail("ran"),
                         arguments).result
            self.assertEqual(result["structuredContent"]["error"]["kind"],
                             "invalidParams")

    def test_brokenCall(self):
        """
        A broken GemStone call is answered as a tool error naming its
        number, and said to be broken.
        """
        def broken(call, arguments):
            raise CallBroken(6004)
        for end in (ran(broken), self.successResultOf(ran(
                lambda call, arguments: fail(CallBroken(6004))))):
            self.assertTrue(end.broken)
            self.assertEqual(
                end.result["structuredContent"]["error"]["number"], 6004)

    def test_brokenCallInTheJournal(self):
        """
        A broken call of a tool not declared read-only may have changed
        what the journal cannot list: the journal names it.
        """
        def broken(call, arguments):
            raise CallBroken(6004)
        journal = ChangeJournal()
        ran(broken, journal=journal, readOnly=False)
        self.assertEqual(journal.unlisted, ["t"])

    def test_bugFails(self):
        """Any other failure is a bug: it fails the run."""
        self.failureResultOf(ran(lambda call, arguments: fail(
            RuntimeError("bug"))), RuntimeError)


class ObjectArgumentsTests(SynchronousTestCase):

    def test_objectArguments(self):
        self.assertEqual(objectArguments(None), {})
        self.assertEqual(objectArguments({"a": 1}), {"a": 1})
        error = self.assertRaises(ToolError, objectArguments, "a")
        self.assertEqual((error.kind, error.message),
                         ("invalidParams", NOT_AN_OBJECT))

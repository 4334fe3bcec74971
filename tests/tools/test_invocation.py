"""
Tests for L{gsmcpd.tools.invocation}: a tool run for the sessions layer,
its end handed back as one L{ToolRan}.
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
from gsmcpd.tools.invocation import invoke, objectArguments
from gsmcpd.tools.templates.outcomes import CallBroken


def tool(run):
    return Tool("t", "T", "d", closedSchema({"n": {"type": "integer"}}),
                annotations(readOnly=True), run)


def ran(run, arguments=None):
    return invoke(tool(run), arguments, None, None, NULL_CONTEXT, None,
                  None, Tool.descriptor)


class InvokeTests(SynchronousTestCase):

    def test_answered(self):
        """
        A tool's answer, now or later, comes back with the call it ran in.
        """
        done = ToolResult("done")
        now = ran(lambda call, arguments: done, {"n": 1})
        self.assertIs(now.answer, done)
        self.assertIsNone(now.call.gem)
        later = self.successResultOf(ran(
            lambda call, arguments: succeed(done)))
        self.assertEqual((later.answer, later.broken), (done, False))

    def test_toolErrorIsItsAnswer(self):
        answer = self.successResultOf(ran(lambda call, arguments: fail(
            ToolError("refused", "no")))).answer
        self.assertEqual((answer.isError, answer.structured["error"][
            "kind"]), (True, "refused"))

    def test_argumentsChecked(self):
        """
        Arguments that are not an object, or that the schema refuses, are
        the tool's error, and it does not run.
        """
        for arguments in ([1], {"n": "x"}):
            answer = ran(lambda call, arguments: self.fail("ran"),
                         arguments).answer
            self.assertEqual(answer.structured["error"]["kind"],
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
            self.assertEqual(end.answer.structured["error"]["number"], 6004)

    def test_bugFails(self):
        """Any other failure is a bug: it fails the run."""
        self.failureResultOf(ran(lambda call, arguments: fail(
            RuntimeError("bug"))), RuntimeError)


class ObjectArgumentsTests(SynchronousTestCase):

    def test_objectArguments(self):
        self.assertEqual(objectArguments(None), {})
        self.assertEqual(objectArguments({"a": 1}), {"a": 1})
        self.assertRaises(ToolError, objectArguments, "a")

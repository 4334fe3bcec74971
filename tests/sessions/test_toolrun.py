"""
Tests for L{gsmcpd.sessions.toolrun}: a tool run in whatever work session
its era chose, or none, its end kept in that session's journal.
"""

from twisted.internet.defer import Deferred, fail
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.sessions.notes import SESSION_NOTE, THROWAWAY_NOTE
from gsmcpd.sessions.toolrun import runTool
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.base import (
    Tool,
    ToolError,
    annotations,
    closedSchema,
)
from gsmcpd.tools.context import NULL_CONTEXT
from gsmcpd.tools.templates.outcomes import CallBroken
from tests.fakes import FakeGem
from tests.tooldoubles import ASIDE, CHANGING


class RunToolTests(SynchronousTestCase):

    def ran(self, tool, work, arguments=None):
        return runTool(work, tool, arguments, NULL_CONTEXT, Tool.descriptor)

    def test_inItsWorkSession(self):
        gem = FakeGem()
        gem.needsCommit = True
        work = WorkSession("h" * 32, gem)
        work.view.notices.append("[view] refreshed")
        result = self.successResultOf(self.ran(CHANGING, work))
        self.assertEqual([block["text"] for block in result["content"]],
                         ["done", SESSION_NOTE, "[view] refreshed"])
        self.assertEqual(gem.calls[0][0], "execute_code")

    def test_journalHearsHowItEnded(self):
        """
        The session's journal hears whether each call left the session
        needing a commit, or was broken off, to say what it cannot list.
        """
        gem = FakeGem()
        gem.needsCommit = True
        work = WorkSession("h" * 32, gem)
        self.successResultOf(self.ran(CHANGING, work))
        self.assertEqual(work.journal.unlisted, ["change"])

        def broken(call, arguments):
            raise CallBroken(6004)
        for run in (broken, lambda call, arguments: fail(CallBroken(6004))):
            tool = Tool("broken", "Broken", "d", closedSchema(),
                        annotations(readOnly=False), run)
            work.journal.ended()
            result = self.ran(tool, work)
            if isinstance(result, Deferred):
                result = self.successResultOf(result)
            self.assertTrue(result["isError"])
            self.assertEqual(work.journal.unlisted, ["broken"])

    def test_inAThrowawaySession(self):
        work = WorkSession("h" * 32, FakeGem(), throwaway=True)
        result = self.successResultOf(self.ran(CHANGING, work))
        self.assertEqual(result["content"][-1]["text"], THROWAWAY_NOTE)

    def test_inNone(self):
        """
        A tool that never touches the stone runs with no gem, and its
        result carries no note of a session.
        """
        result = self.ran(ASIDE, None)
        self.assertEqual(result["content"], [{"type": "text",
                                              "text": "gem None"}])

    def test_argumentsNotAnObject(self):
        for arguments in (["x"], "x", 3):
            result = self.ran(ASIDE, None, arguments)
            self.assertTrue(result["isError"])
            self.assertEqual(result["structuredContent"]["error"]["kind"],
                             "invalidParams")

    def test_refusalIsAToolResult(self):
        def refusing(call, arguments):
            raise ToolError("refused", "no")
        tool = Tool("no", "No", "d", closedSchema(),
                    annotations(readOnly=True), refusing)
        result = self.ran(tool, None)
        self.assertTrue(result["isError"])

"""
Tests for L{gsmcpd.protocol.toolcall}: C{tools/call} once for both eras,
in whatever work session its era chose, or none.
"""

from twisted.internet.defer import Deferred, fail
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS
from gsmcpd.protocol.notes import SESSION_NOTE, THROWAWAY_NOTE
from gsmcpd.protocol.toolcall import answersAsStream, callTool, unknownTool
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.base import (
    NO_SESSION,
    Tool,
    ToolError,
    ToolResult,
    annotations,
    closedSchema,
)
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.templates.outcomes import CallBroken
from tests.builders import legacyEra
from tests.fakes import FakeGem


def changing(call, arguments):
    return call.runTemplate("execute_code", {"code": "x"}).addCallback(
        lambda _: ToolResult("done"))


CHANGING = Tool("change", "Change", "d", closedSchema(),
                annotations(readOnly=False), changing)
ASIDE = Tool("aside", "Aside", "d", closedSchema(),
             annotations(readOnly=False),
             lambda call, arguments: ToolResult(f"gem {call.gem}"),
             runsOn=NO_SESSION)


class CallToolTests(SynchronousTestCase):

    def setUp(self):
        self.era = legacyEra(ToolCatalog.named(["execution"]))

    def request(self, tool, work, arguments=None):
        return RequestFacts("tools/call", {"name": tool.name}, 1,
                            self.era.dialect, "2025-11-25", {}, work=work,
                            tool=tool, arguments=arguments)

    def test_inItsWorkSession(self):
        gem = FakeGem()
        gem.needsCommit = True
        work = WorkSession("h" * 32, gem)
        work.view.notices.append("[view] refreshed")
        result = self.successResultOf(callTool(
            self.request(CHANGING, work), CHANGING))
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
        self.successResultOf(callTool(self.request(CHANGING, work), CHANGING))
        self.assertEqual(work.journal.unlisted, ["change"])

        def broken(call, arguments):
            raise CallBroken(6004)
        for run in (broken, lambda call, arguments: fail(CallBroken(6004))):
            tool = Tool("broken", "Broken", "d", closedSchema(),
                        annotations(readOnly=False), run)
            work.journal.ended()
            result = callTool(self.request(tool, work), tool)
            if isinstance(result, Deferred):
                result = self.successResultOf(result)
            self.assertTrue(result["isError"])
            self.assertEqual(work.journal.unlisted, ["broken"])

    def test_inAThrowawaySession(self):
        work = WorkSession("h" * 32, FakeGem(), throwaway=True)
        result = self.successResultOf(callTool(
            self.request(CHANGING, work), CHANGING))
        self.assertEqual(result["content"][-1]["text"], THROWAWAY_NOTE)

    def test_inNone(self):
        """
        A tool that never touches the stone runs with no gem, and its
        result carries no note of a session.
        """
        result = callTool(self.request(ASIDE, None), ASIDE)
        self.assertEqual(result["content"], [{"type": "text",
                                              "text": "gem None"}])

    def test_argumentsNotAnObject(self):
        for arguments in (["x"], "x", 3):
            result = callTool(self.request(ASIDE, None, arguments), ASIDE)
            self.assertTrue(result["isError"])
            self.assertEqual(result["structuredContent"]["error"]["kind"],
                             "invalidParams")

    def test_refusalIsAToolResult(self):
        def refusing(call, arguments):
            raise ToolError("refused", "no")
        tool = Tool("no", "No", "d", closedSchema(),
                    annotations(readOnly=True), refusing)
        result = callTool(self.request(tool, None), tool)
        self.assertTrue(result["isError"])


class NamingTests(SynchronousTestCase):

    def test_unknownTool(self):
        self.assertEqual(unknownTool({"name": "nope"}).code, INVALID_PARAMS)
        self.assertIn("unknown tool 'nope'",
                      unknownTool({"name": "nope"}).message)
        for params in ({}, {"name": 3}, {"name": None}):
            self.assertIn("needs a tool name", unknownTool(params).message)

    def test_answersAsStream(self):
        self.assertFalse(answersAsStream({}, CHANGING))
        self.assertFalse(answersAsStream({}, None))
        self.assertTrue(answersAsStream({"_meta": {"progressToken": 1}},
                                        None))
        self.assertTrue(answersAsStream(
            {}, Tool("s", "S", "d", closedSchema(),
                     annotations(readOnly=True), None, streams=True)))

"""
Tests for L{gsmcpd.protocol.toolcall}: C{tools/call} once for both eras,
the tool its request names handed to the sessions layer to run.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS
from gsmcpd.protocol.toolcall import answersAsStream, callTool, unknownTool
from gsmcpd.sessions.notes import SESSION_NOTE
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.base import (
    Tool,
    annotations,
    closedSchema,
)
from gsmcpd.tools.catalog import ToolCatalog
from tests.builders import legacyEra
from tests.fakes import FakeGem
from tests.tooldoubles import CHANGING


class CallToolTests(SynchronousTestCase):

    def test_inItsWorkSession(self):
        """
        The tool runs in the work session its era placed the call in, with
        the arguments its era resolved.
        """
        era = legacyEra(ToolCatalog.named(["execution"]))
        gem = FakeGem()
        gem.needsCommit = True
        work = WorkSession("h" * 32, gem)
        work.view.notices.append("[view] refreshed")
        request = RequestFacts("tools/call", {"name": "change"}, 1,
                               era.dialect, "2025-11-25", {}, work=work,
                               tool=CHANGING, arguments={})
        result = self.successResultOf(callTool(request, CHANGING))
        self.assertEqual([block["text"] for block in result["content"]],
                         ["done", SESSION_NOTE, "[view] refreshed"])
        self.assertEqual(gem.calls[0][0], "execute_code")


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

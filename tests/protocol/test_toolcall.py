"""
Tests for L{gsmcpd.protocol.toolcall}: what a C{tools/call}'s request
says of the tool it names.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.jsonrpc import INVALID_PARAMS
from gsmcpd.protocol.toolcall import answersAsStream, unknownTool
from gsmcpd.tools.base import (
    Tool,
    annotations,
    closedSchema,
)
from tests.tooldoubles import CHANGING


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

"""
Tests for L{gsmcpd.tools.execution}: a value's printString, capped with a
marker that names the cut, and its structured twin.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.tools.execution import (
    MAX_VALUE_CHARACTERS, ExecutionToolset, capped)
from tests.toolharness import ToolHarness, checkStructured


class CappedTests(SynchronousTestCase):

    def test_withinTheLimit(self):
        self.assertEqual(capped("abc", 3, limit=3), "abc")

    def test_overTheLimitSaysSo(self):
        self.assertEqual(capped("abc", 10, limit=3),
                         "abc...[truncated: showing 3 of 10 characters]")


class ExecuteCodeTests(TestCase):

    def setUp(self):
        self.harness = ToolHarness(("execution",))
        self.tool = ExecutionToolset().tools()[0]

    @inlineCallbacks
    def test_printString(self):
        result = yield self.harness.call("execute_code", code="3 + 4")
        self.assertEqual(result["content"][0]["text"], "7")
        self.assertEqual(result["structuredContent"], {
            "printString": "7", "totalCharacters": 1, "truncated": False})
        checkStructured(self.tool, result["structuredContent"])

    @inlineCallbacks
    def test_largeValueIsCapped(self):
        """
        The cut happens in the stone, so a huge printString never crosses
        the wire, and the model is told how much it is not seeing.
        """
        total = MAX_VALUE_CHARACTERS + 10
        result = yield self.harness.call(
            "execute_code", code="'" + "x" * total + "'")
        structured = result["structuredContent"]
        self.assertEqual((structured["totalCharacters"],
                          structured["truncated"]), (total + 2, True))
        self.assertEqual(len(structured["printString"]), MAX_VALUE_CHARACTERS)
        self.assertTrue(result["content"][0]["text"].endswith(
            f"...[truncated: showing {MAX_VALUE_CHARACTERS} of {total + 2} "
            "characters]"))
        checkStructured(self.tool, structured)

    @inlineCallbacks
    def test_warningIsANote(self):
        """
        A Warning the code signals is resumed; the client reads it after
        the result.
        """
        result = yield self.harness.call(
            "execute_code", code="(Warning signal: 'deprecated') isNil")
        self.assertEqual([each["text"] for each in result["content"]],
                         ["true", "[warning] deprecated"])

    @inlineCallbacks
    def test_compileError(self):
        kind, message = yield self.harness.error("execute_code", code="3 +")
        self.assertEqual(kind, "compileError")

"""
Tests for L{gsmcpd.tools.base}: closed schemas that name what is wrong,
a tool call that keeps track of uncommitted changes, the blind-write
guardrail's refusal, and toolset options as an allow-list.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.gci.errors import GciError
from gsmcpd.tools.base import (
    Tool,
    ToolCall,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
)
from gsmcpd.tools.ledger import methodKey
from gsmcpd.tools.questions import sampling
from gsmcpd.tools.templates.outcomes import ToolError, ViewMove
from tests.fakes import FakeGem, SmalltalkRaised
from tests.toolharness import effectiveHints

SCHEMA = closedSchema({"name": {"type": "string"},
                       "limit": {"type": "integer", "minimum": 0}},
                      required=["name"])


def tool(**fields):
    return Tool(**dict(dict(name="probe", title="Probe", description="d",
                            inputSchema=SCHEMA,
                            annotations=annotations(readOnly=True),
                            run=None), **fields))


class ToolTests(SynchronousTestCase):

    def test_valid(self):
        tool().validate({"name": "x", "limit": 3})

    def test_closedSchemaRefusesUnknownAndMissing(self):
        for arguments in ({"name": "x", "extra": 1}, {}):
            error = self.assertRaises(ToolError, tool().validate, arguments)
            self.assertEqual(error.kind, "invalidParams")
            self.assertIn("invalid arguments for probe", error.message)

    def test_errorNamesWhere(self):
        """
        A model fixes its call from the message, so it says which argument.
        """
        error = self.assertRaises(ToolError, tool().validate,
                                  {"name": "x", "limit": -1})
        self.assertIn("(at $.limit)", error.message)

    def test_descriptor(self):
        described = tool().descriptor()
        self.assertEqual(described["title"], "Probe")
        self.assertFalse(
            effectiveHints(described["annotations"])["openWorldHint"])
        self.assertNotIn("outputSchema", described)
        self.assertIn("outputSchema",
                      tool(outputSchema=closedSchema()).descriptor())


    def test_annotationsLeaveOutDefaults(self):
        """
        Only hints that differ from MCP's defaults are sent; a client
        reading them with the defaults gets every hint back.
        """
        self.assertEqual(annotations(False, destructive=True),
                         {"openWorldHint": False})
        self.assertEqual(annotations(False, idempotent=True),
                         {"destructiveHint": False, "idempotentHint": True,
                          "openWorldHint": False})
        self.assertEqual(
            effectiveHints(annotations(False, destructive=True)),
            {"readOnlyHint": False, "destructiveHint": True,
             "idempotentHint": False, "openWorldHint": False})

    def test_readOnlyLeavesOutMeaninglessHints(self):
        """
        MCP gives C{destructiveHint} and C{idempotentHint} meaning only when
        C{readOnlyHint} is false, so a read-only tool sends neither, and
        what a client reads of it holds neither.
        """
        for extra in ({}, {"idempotent": True}, {"destructive": True}):
            sent = annotations(True, **extra)
            self.assertEqual(sent, {"readOnlyHint": True,
                                    "openWorldHint": False})
            self.assertEqual(effectiveHints(sent), sent)


class ToolResultTests(SynchronousTestCase):

    def test_fromError(self):
        result = ToolResult.fromError(
            ToolError("notFound", "no such class", {"className": "X"}))
        self.assertTrue(result.isError)
        self.assertEqual(result.text, "no such class")
        self.assertEqual(result.structured, {"error": {
            "className": "X", "kind": "notFound",
            "message": "no such class"}})


    def test_asResult(self):
        self.assertEqual(ToolResult("ok", {"a": 1}).asResult(), {
            "content": [{"type": "text", "text": "ok"}], "isError": False,
            "structuredContent": {"a": 1}})
        self.assertEqual(ToolResult("ok").asResult(["[session] note"]), {
            "content": [{"type": "text", "text": "ok"},
                        {"type": "text", "text": "[session] note"}],
            "isError": False})


class ToolCallTests(SynchronousTestCase):

    def setUp(self):
        self.gem = FakeGem()
        self.call = ToolCall(self.gem)

    def test_noSessionRunsNoTemplate(self):
        """
        A call without a GemStone session (its tool runs on none) running
        a template is a mistake of the tool's, said as one.
        """
        error = self.assertRaises(RuntimeError, ToolCall(None).runTemplate,
                                  "status", {})
        self.assertIn("status run without a GemStone session", str(error))

    def test_valueAndNeedsCommit(self):
        self.assertIsNone(self.call.needsCommit)
        self.gem.needsCommit = True
        value = self.successResultOf(
            self.call.runTemplate("execute_code", {"code": "x"}))
        self.assertEqual(value, {"total": 1, "text": "7"})
        self.assertTrue(self.call.needsCommit)

    def test_failureStillTellsWhetherChangesAreUncommitted(self):
        """
        A tool that fails after changing something must still carry the
        session note.
        """
        def raising(arguments):
            raise SmalltalkRaised(2010, "MessageNotUnderstood", "dnu")
        self.gem.results["execute_code"] = raising
        self.gem.needsCommit = True
        self.failureResultOf(
            self.call.runTemplate("execute_code", {"code": "x"}), ToolError)
        self.assertTrue(self.call.needsCommit)

    def test_lostViewClearsWhatTheSessionHeld(self):
        """
        A call the stone ended by revoking the session's view (3031) says
        its changes are lost: the reads the ledger held and the changes
        the journal listed go with them.
        """
        def raising(arguments):
            raise GciError(3031, "view lost")
        key = methodKey("Account", "deposit:")
        self.call.ledger.recordRead(key, "deposit: n")
        self.call.journal.record("compiled", "Account>>deposit:", "Account")
        self.gem.results["execute_code"] = raising
        self.gem.needsCommit = True
        self.failureResultOf(
            self.call.runTemplate("execute_code", {"code": "x"}), ToolError)
        self.assertEqual((self.call.moved, self.call.needsCommit),
                         (ViewMove(True, False), False))
        self.assertIsNone(self.call.ledger.lastRead(key))
        self.assertEqual(len(self.call.journal), 0)

    def test_requireReadRefusesABlindWrite(self):
        key = methodKey("Account", "deposit:")
        error = self.assertRaises(ToolError, self.call.requireRead, key,
                                  "get_method_source")
        self.assertEqual(error.kind, "refused")
        self.assertIn("Account>>deposit:", error.message)
        self.assertIn("call get_method_source first", error.message)
        self.call.ledger.recordRead(key, "deposit: n")
        self.assertEqual(self.call.requireRead(key, "get_method_source"),
                         "deposit: n")

    def test_withoutAClientNothingIsAsked(self):
        self.assertFalse(self.call.wantsProgress)
        self.assertFalse(self.call.canAsk("sampling"))
        self.assertRaises(ToolError, self.call.ask,
                          {"sample": sampling("Say hello", 20)})


class Configurable(Toolset):
    name = "configurable"
    declaredOptionNames = ("limit",)


class ToolsetTests(SynchronousTestCase):

    def test_optionsWithDefaults(self):
        toolset = Configurable({"limit": 3})
        self.assertEqual(toolset.optionNamed("limit", 10), 3)
        self.assertEqual(Configurable().optionNamed("limit", 10), 10)

    def test_undeclaredOptionRefusesToStart(self):
        """
        A mistyped option is an error at startup, not silently ignored.
        """
        error = self.assertRaises(ValueError, Configurable, {"limt": 3})
        self.assertIn("'limt'", str(error))
        self.assertIn("it accepts: limit", str(error))

    def test_nothingBeyondTools(self):
        toolset = Configurable()
        self.assertEqual((toolset.resources(), toolset.resourceTemplates(),
                          toolset.prompts()), ([], [], []))
        self.assertRaises(NotImplementedError, toolset.tools)

"""
Tests for L{gsmcpd.protocol.instructions}: the stock text names only the
toolsets served, and an operator's file is checked where it can be fixed.
"""

import os

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.instructions import (
    DETACHED_PREAMBLE,
    MAX_INSTRUCTIONS,
    MODERN_PREAMBLE,
    PREAMBLE,
    UNSERVED,
    readInstructions,
    stockInstructions,
)
from gsmcpd.tools.base import ANY_SESSION, NO_SESSION, Tool, annotations, closedSchema
from gsmcpd.tools.catalog import CORE_TOOLSETS, OTHER_TOOLSETS

NONE_SERVED = UNSERVED.format(", ".join([*CORE_TOOLSETS, *OTHER_TOOLSETS]))
"""The last line when none of the toolsets served is a shipped one."""


class Toolset:

    def __init__(self, instructions, runsOn=ANY_SESSION, name="mine"):
        self.instructions = instructions
        self.runsOn = runsOn
        self.name = name

    def tools(self):
        return [Tool("t", "t", "d", closedSchema(), annotations(True), None,
                     runsOn=self.runsOn)]


class StockInstructionsTests(SynchronousTestCase):

    def test_preambleThenServedToolsetsInOrder(self):
        text = stockInstructions([Toolset("Browse."), Toolset("Run.")])
        self.assertEqual(text,
                         f"{PREAMBLE}\n\nBrowse.\n\nRun.\n\n{NONE_SERVED}")

    def test_toolsetWithoutParagraphAddsNothing(self):
        """
        A toolset with no instructions leaves no empty paragraph behind.
        """
        self.assertEqual(stockInstructions([Toolset(""), Toolset("Run.")]),
                         f"{PREAMBLE}\n\nRun.\n\n{NONE_SERVED}")

    def test_noToolsetsIsThePreamble(self):
        self.assertEqual(stockInstructions([]),
                         f"{PREAMBLE}\n\n{NONE_SERVED}")

    def test_unservedNamed(self):
        """
        The last line names each shipped toolset not served, in the
        catalog's order, with the option that serves it; with all of them
        served there is none.
        """
        text = stockInstructions([Toolset("Browse.", name="browsing"),
                                  Toolset("Debug.", name="debugging")])
        self.assertTrue(text.endswith(
            "\n\nNot served here: execution, listing, mutation, search, "
            "session, testing, admin, changes, debugger, refactoring, tonel (an "
            "operator adds one to --toolsets)."), text)
        everything = [Toolset("", name=name)
                      for name in [*CORE_TOOLSETS, *OTHER_TOOLSETS]]
        self.assertEqual(stockInstructions(everything), PREAMBLE)


class ModernInstructionsTests(SynchronousTestCase):
    """
    The 2026-07-28 text: no MCP session holds a GemStone session there, so
    it starts with open_session and the handle.
    """

    def test_startsWithOpenSession(self):
        text = stockInstructions([Toolset("Run.")], modern=True)
        self.assertEqual(text, f"{MODERN_PREAMBLE}\n\nRun.\n\n{NONE_SERVED}")
        self.assertTrue(text.startswith("Call open_session first"))
        self.assertIn("'session' argument", text)
        self.assertNotIn("MCP session", text)

    def test_noGemStoneToolNoHandle(self):
        """
        With no tool that runs on GemStone, no open_session is offered, so
        the text does not name it.
        """
        text = stockInstructions([Toolset("", NO_SESSION)], modern=True)
        self.assertEqual(text, f"{DETACHED_PREAMBLE}\n\n{NONE_SERVED}")


class ReadInstructionsTests(SynchronousTestCase):

    def write(self, content, mode="w"):
        path = self.mktemp()
        with open(path, mode) as f:
            f.write(content)
        return path

    def test_text(self):
        self.assertEqual(readInstructions(self.write("Use tests.\n")),
                         "Use tests.\n")

    def test_emptyFileSendsNone(self):
        self.assertIsNone(readInstructions(self.write("")))

    def test_atTheLimit(self):
        text = "x" * MAX_INSTRUCTIONS
        self.assertEqual(readInstructions(self.write(text)), text)

    def test_overTheLimitIsRefused(self):
        path = self.write("x" * (MAX_INSTRUCTIONS + 1))
        error = self.assertRaises(ValueError, readInstructions, path)
        self.assertIn(str(MAX_INSTRUCTIONS), str(error))

    def test_missingFileIsRefused(self):
        path = os.path.join(self.mktemp(), "absent")
        error = self.assertRaises(ValueError, readInstructions, path)
        self.assertIn("absent", str(error))

    def test_notUtf8IsRefused(self):
        path = self.write(b"\xff\xfe bad", "wb")
        self.assertRaises(ValueError, readInstructions, path)

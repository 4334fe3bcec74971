"""
Tests for L{gsmcpd.tools.instructions}: the stock text names only the
toolsets served.
"""


from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.base import ANY_SESSION, NO_SESSION, Tool, annotations, closedSchema
from gsmcpd.tools.catalog import CORE_TOOLSETS, OTHER_TOOLSETS
from gsmcpd.tools.instructions import (
    DETACHED_PREAMBLE,
    MODERN_PREAMBLE,
    PREAMBLE,
    UNSERVED,
    stockInstructions,
)

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

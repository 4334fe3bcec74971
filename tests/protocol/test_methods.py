"""
Tests for L{gsmcpd.protocol.methods}: the one method table, and which eras
serve each method.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.facts import LEGACY, MODERN
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.protocol.methods import TASK_METHODS, MethodTable
from gsmcpd.testing.conformance import TOOLSET
from gsmcpd.tools.catalog import ToolCatalog


def served(table, era):
    return {name for name in table if table.find(name, era) is not None}


def handlers(*toolsets):
    return Handlers(ToolCatalog.named(toolsets), ServerIdentity())


def tasks(request):
    return {}


class MethodTableTests(SynchronousTestCase):

    def test_toolsOnly(self):
        table = MethodTable(handlers("execution"))
        self.assertEqual(served(table, LEGACY), {
            "ping", "initialize", "server/discover", "tools/list",
            "tools/call"})
        self.assertEqual(served(table, MODERN), {
            "server/discover", "tools/list", "tools/call"})

    def test_resources(self):
        """
        Subscribing is the 2025 era's; the 2026 era listens instead.
        """
        table = MethodTable(handlers("browsing"))
        resources = {"resources/list", "resources/read",
                     "resources/templates/list"}
        self.assertTrue(resources <= served(table, LEGACY))
        self.assertTrue(resources <= served(table, MODERN))
        subscribing = {"resources/subscribe", "resources/unsubscribe"}
        self.assertTrue(subscribing <= served(table, LEGACY))
        self.assertFalse(subscribing & served(table, MODERN))

    def test_skillsAreTheModernErasOwn(self):
        """
        Skill files are resources in the 2026 era only: with skills and no
        resources, only that era reads resources.
        """
        skills = {"skills/list": tasks, "skills/get": tasks}
        table = MethodTable(handlers("execution"), skills)
        self.assertEqual(served(table, MODERN) - served(table, LEGACY),
                         {"resources/list", "resources/read",
                          "skills/list", "skills/get"})
        self.assertNotIn("resources/templates/list", served(table, MODERN))

    def test_tasksAreTheModernErasOwn(self):
        table = MethodTable(handlers("execution"), tasks=tasks)
        for name in TASK_METHODS:
            self.assertIs(table.find(name, MODERN).handler, tasks)
            self.assertIsNone(table.find(name, LEGACY))

    def test_whatEachServedToolsetOffers(self):
        table = MethodTable(handlers(TOOLSET))
        self.assertTrue({"prompts/list", "prompts/get", "completion/complete",
                         "logging/setLevel"} <= served(table, LEGACY))
        self.assertIn("completion/complete", served(table, MODERN))
        self.assertNotIn("logging/setLevel", served(table, MODERN))

    def test_calls(self):
        """
        Only C{tools/call} and C{resources/read} run as calls.
        """
        table = MethodTable(handlers("browsing", TOOLSET))
        self.assertEqual({name for name in table
                          if table.find(name, LEGACY).call},
                         {"tools/call", "resources/read"})

    def test_unknown(self):
        table = MethodTable(handlers("execution"))
        self.assertIsNone(table.find("tools/destroy", LEGACY))
        self.assertIsNone(table.find(None, MODERN))

"""
Tests for L{gsmcpd.tools.templates.capabilities}: which optional messages a
stone lacks, asked on the simulated stone (a test double, not GemStone),
which can be told to lack some.
"""

import json

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, evaluator, gem
from gsmcpd.testing.simulator.kernel import CLASSES
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.templates.capabilities import (
    OPTIONAL,
    describeLacking,
    lackingCapabilities,
)
from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.templates.render import Template, loadTemplateText, templateNames
from tests.fakes import FakeGem
from tests.toolharness import InProcessGem


class LackingTests(SynchronousTestCase):

    def lacking(self, *names):
        gem = InProcessGem(Stone(lacking=frozenset(names)))
        return self.successResultOf(lackingCapabilities(gem))

    def test_none(self):
        self.assertEqual(self.lacking(), [])

    def test_named(self):
        """
        Asked with respondsTo:, so a stone that lacks a message says so.
        """
        lacking = self.lacking("System class>>descriptionOfSession:",
                               "System class>>stoneConfigurationAt:")
        self.assertEqual([each.selector for each in lacking],
                         ["descriptionOfSession:", "stoneConfigurationAt:"])

    def test_answerNotAListIsAnError(self):
        """
        An answer that is not a list of the messages asked about (a stone
        answering something else entirely) is a tool error the daemon logs,
        never a crash of its start-up.
        """
        gem = FakeGem()
        gem.results["lacking_capabilities"] = lambda arguments: {"text": "7"}
        failure = self.failureResultOf(lackingCapabilities(gem), ToolError)
        self.assertIn("not a list of the messages", failure.value.message)

    def test_everyOptionalMessageIsSentByATemplate(self):
        sources = "".join(loadTemplateText(name) for name in templateNames())
        self.assertEqual([each.selector for each in OPTIONAL
                          if f"respondsTo: #{each.selector}" not in sources], [])


class DescribeTests(SynchronousTestCase):

    def test_sentence(self):
        self.assertEqual(describeLacking([]),
                         "this stone has every optional message the templates send")
        self.assertEqual(describeLacking(OPTIONAL[3:4]), (
            "this stone lacks System cacheStatisticsForSessionId: (a gem's name in the "
            "shared cache is not read back); gsmcpd serves without it"))


class AskFirstTests(SynchronousTestCase):
    """
    The templates that send an optional message ask for it first: a stone
    that lacks it answers nil for what it would read, and one whose message
    fails answers the error, never a nil that hides it.
    """

    def answer(self, stone, templateName, **arguments):
        session = stone.login("DataCurator", "swordfish")
        source = Template.named(templateName).render(arguments, 1 << 20)
        return json.loads(gem.answer(session, source))

    def failing(self, selector):
        """
        Make C{System selector} signal an Error until the returned function
        is called (the test's own lookup cache forgets it then).
        """
        methods = CLASSES["System"].metaclass.methods
        saved = methods[selector]

        def broken(ev, receiver, *args):
            raise errors.refused(f"System {selector} is broken on this stone")
        methods[selector] = broken

        def restore():
            methods[selector] = saved
            evaluator._KERNEL_LOOKUPS.clear()
        return restore

    def test_lacking(self):
        stone = Stone(lacking=frozenset(f"System class>>{each.selector}" for each in OPTIONAL))
        self.assertEqual(self.answer(stone, "backlog_state")["result"],
                         {"backlog": None, "oldestPinnedBy": None})
        self.assertIsNone(self.answer(stone, "session_state")["result"]["commitsBehind"])
        opened = self.answer(stone, "open_session", name="n")["result"]
        self.assertEqual((opened["name"], opened["signalAbortBacklog"]), (None, None))

    def test_pinnedReadFromDescriptions(self):
        """
        Without sessionsReferencingOldestCr the sessions holding the oldest
        commit record are read from their descriptions.
        """
        stone = Stone(lacking=frozenset({"System class>>sessionsReferencingOldestCr"}))
        self.assertEqual(self.answer(stone, "backlog_state")["result"],
                         {"backlog": 1, "oldestPinnedBy": [1]})

    def test_failingIsAnError(self):
        self.patch(evaluator, "_KERNEL_LOOKUPS", {})
        for selector, templateName, arguments in [
                ("descriptionOfSession:", "session_state", {}),
                ("stoneCacheStatisticWithName:", "backlog_state", {}),
                ("sessionsReferencingOldestCr", "backlog_state", {}),
                ("cacheStatisticsForSessionId:", "open_session", {"name": "n"}),
                ("stoneConfigurationAt:", "open_session", {"name": "n"})]:
            restore = self.failing(selector)
            try:
                error = self.answer(Stone(), templateName, **arguments)["error"]
            finally:
                restore()
            self.assertIn(f"System {selector} is broken", error["message"], selector)

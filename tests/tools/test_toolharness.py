"""
The tool harness itself, on the two core toolsets it can already serve.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from tests.toolharness import ToolHarness


class HarnessTests(TestCase):

    @inlineCallbacks
    def test_executeAndIsolation(self):
        first = ToolHarness(("execution", "session"))
        second = first.newClient()
        text = yield first.text("execute_code", code="3 + 4")
        self.assertEqual(text, "7")
        yield first.text("execute_code", code="UserGlobals at: #H put: 1")
        text = yield second.text("execute_code",
                                 code="UserGlobals at: #H ifAbsent: [0]")
        self.assertEqual(text, "0")

    @inlineCallbacks
    def test_error(self):
        harness = ToolHarness(("execution",))
        kind, message = yield harness.error("execute_code", code="1/0")
        self.assertEqual(kind, "other")
        self.assertIn("ZeroDivide", message)

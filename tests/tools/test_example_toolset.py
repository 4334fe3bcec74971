"""
The worked example of a toolset of one's own (docs/toolsets.rst), tested
the way its author would: through the real dispatcher, over a fake gem
that answers its template.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.protocol.jsonrpc import Message
from gsmcpd.tools.catalog import ToolCatalog, buildToolsets
from gsmcpd.tools.templates.render import Template
from tests.builders import clientSession, legacyEra
from tests.fakes import FakeGem
from tests.knownnames import loadKnownNames, unknownNames
from tests.tools.test_template_selectors import KNOWN_NAMES

NAME = "tests.example_toolset:GreetingToolset"


class GreetingToolsetTests(TestCase):

    def setUp(self):
        self.gem = FakeGem()
        self.gem.results["greet"] = lambda args: (
            f"{args['greeting']}, {args['name']} (from DataCurator)")

    @inlineCallbacks
    def greet(self, options=None):
        registry = ToolCatalog(buildToolsets([NAME], {NAME: options or {}}))
        response = yield legacyEra(registry).answer(
            clientSession(self.gem, "x", "2025-11-25"), Message(
            "request", "tools/call", 1,
            {"name": "greet", "arguments": {"name": "Ada"}}, {}))
        return response["result"]

    def test_onlyItsToolsServed(self):
        registry = ToolCatalog.named([NAME])
        self.assertEqual([tool.name for tool in registry], ["greet"])

    @inlineCallbacks
    def test_greetWithDefault(self):
        result = yield self.greet()
        self.assertEqual(result["structuredContent"],
                         {"greeting": "Hello, Ada (from DataCurator)"})

    @inlineCallbacks
    def test_greetWithOption(self):
        result = yield self.greet({"greeting": "Hi"})
        self.assertEqual(result["content"][0]["text"],
                         "Hi, Ada (from DataCurator)")

    def test_templateUsesOnlyKnownNames(self):
        source = Template.named("greet", "tests.example_templates").render(
            {"greeting": "", "name": ""}, 1000)
        self.assertEqual(unknownNames(source, *loadKnownNames(*KNOWN_NAMES)),
                         (set(), set()))

    def test_composesWithCoreToolsets(self):
        registry = ToolCatalog.named(["execution", NAME])
        self.assertEqual([tool.name for tool in registry],
                         ["execute_code", "greet"])

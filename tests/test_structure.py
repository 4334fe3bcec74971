"""
Tests for L{gsmcpd.tools.structure}: C{find_code} on the simulated stone.
"""

from twisted.internet.defer import inlineCallbacks

from tests.test_tools_refactoring import RefactoringTestCase


class FindCodeTests(RefactoringTestCase):

    @inlineCallbacks
    def test_perform(self):
        """
        A perform: of a literal selector, any receiver and argument, is
        found with its class, selector, line and text.
        """
        result = yield self.succeed(
            "find_code", pattern="`@receiver perform: `#sym with: `@arg")
        self.assertEqual(result["structuredContent"]["matches"], [{
            "className": "Account", "meta": False, "selector": "twice:",
            "line": 3, "text": "self perform: #bump: with: n"}])

    @inlineCallbacks
    def test_pagedAndScoped(self):
        result = yield self.succeed("find_code", pattern="`@r bump: `@a",
                                    limit=1, scope="dictionary:Banking")
        self.assertEqual(result["structuredContent"]["page"]["total"], 1)
        result = yield self.succeed("find_code", pattern="`@r bump: `@a",
                                    scope="dictionary:UserGlobals")
        self.assertEqual(result["structuredContent"]["matches"], [])

    @inlineCallbacks
    def test_refused(self):
        yield self.refused("find_code", "invalidParams", pattern="`@x")
        yield self.refused("find_code", "invalidParams", pattern="a foo:")

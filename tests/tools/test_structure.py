"""
Tests for L{gsmcpd.tools.structure}: C{find_code} on the simulated stone.
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools import structure
from tests.tools.test_tools_refactoring import RefactoringTestCase

TEMPLATES = ("refactoring_sources",)
"""The templates these tests run (for bin/mutate-templates)."""



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

    @inlineCallbacks
    def test_nestedTooDeeply(self):
        """
        A pattern, or a method, too deeply nested for the parser is an
        invalid pattern, or a method without matches, not an internal error.
        """
        def deep(source):
            raise RecursionError()
        self.patch(structure, "compilePattern", deep)
        yield self.refused("find_code", "invalidParams", pattern="a foo")

    def test_methodNestedTooDeeply(self):
        """
        A method the parser cannot follow has no matches.
        """
        def deep(source):
            raise RecursionError()
        self.patch(structure, "parse_method", deep)
        self.assertEqual(structure.matchedIn(None, ["A", False, "a", "", "a"]),
                         [])

    @inlineCallbacks
    def test_hierarchy(self):
        yield self.succeed("compile_method", className="SavingsAccount",
                           source="accrue\n\tself bump: self interest")
        found = yield self.succeed("find_code", pattern="self bump: `@a",
                                   scope="hierarchy:Account")
        self.assertEqual(
            [m["selector"] for m in found["structuredContent"]["matches"]],
            ["twice:", "accrue"])
        found = yield self.succeed("find_code", pattern="self bump: `@a",
                                   scope="class:Account")
        self.assertEqual(
            [m["selector"] for m in found["structuredContent"]["matches"]],
            ["twice:"])

    @inlineCallbacks
    def test_windows(self):
        """
        The senders are read a window at a time (here one method), in
        class then selector order, until the page is full: a full page
        says its total is not known, the last one knows it.
        """
        self.patch(structure, "SENDERS_READ", 1)
        for name in ("a", "b", "c"):
            yield self.succeed("compile_method", className="Greeter",
                               source=f"{name}\n\tAccount new bump: 1")
        found = yield self.succeed("find_code", pattern="`@r bump: `@a",
                                   limit=2)
        structured = found["structuredContent"]
        self.assertEqual([(m["className"], m["selector"])
                          for m in structured["matches"]],
                         [("Account", "twice:"), ("Greeter", "a")])
        self.assertIsNone(structured["page"]["total"])
        found = yield self.succeed("find_code", pattern="`@r bump: `@a",
                                   offset=2, limit=5)
        structured = found["structuredContent"]
        self.assertEqual([m["selector"] for m in structured["matches"]],
                         ["b", "c"])
        self.assertEqual(structured["page"]["total"], 4)

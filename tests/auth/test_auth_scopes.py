"""
Which toolsets a token's scopes open.
"""

import json

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.scopes import ScopeMapError, ScopeToolsets


class ScopeToolsetsTests(SynchronousTestCase):
    SERVED = ("browsing", "listing", "search", "session", "mutation")

    def test_union(self):
        mapping = ScopeToolsets.parse(json.dumps({
            "gemstone:read": ["browsing", "listing"],
            "gemstone:write": ["listing", "mutation"]}), self.SERVED)
        self.assertEqual(
            mapping.toolsetsFor({"gemstone:read", "gemstone:write", "x"}),
            {"browsing", "listing", "mutation"})
        self.assertEqual(mapping.toolsetsFor({"x"}), frozenset())
        self.assertEqual(mapping.scopes, {"gemstone:read",
                                          "gemstone:write"})

    def test_notJson(self):
        self.assertRaises(ScopeMapError, ScopeToolsets.parse, "{",
                          self.SERVED)

    def test_wrongShape(self):
        self.assertRaises(ScopeMapError, ScopeToolsets.parse,
                          '{"a": "browsing"}', self.SERVED)

    def test_toolsetNotServed(self):
        error = self.assertRaises(ScopeMapError, ScopeToolsets.parse,
                                  '{"a": ["execution"]}', self.SERVED)
        self.assertIn("execution", str(error))

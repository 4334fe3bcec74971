"""
How a 2026-era result is dressed: resultType and cache hints.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern.results import CACHE_HINTS, complete


class CompleteTests(SynchronousTestCase):

    def test_everyResultSaysItIsComplete(self):
        self.assertEqual(complete("tools/call", {"content": []}),
                         {"content": [], "resultType": "complete"})

    def test_cacheableResultsCarryHints(self):
        """
        Every list and read the 2026 revision makes cacheable carries a
        hint; lists fixed at startup are public for an hour, a read (which
        depends on the reader's view) is private and not reused.
        """
        for method in ("tools/list", "prompts/list", "resources/list",
                       "resources/templates/list", "resources/read",
                       "server/discover"):
            dressed = complete(method, {})
            self.assertIsInstance(dressed["ttlMs"], int, method)
            self.assertIn(dressed["cacheScope"], ("public", "private"))
        self.assertEqual(CACHE_HINTS["tools/list"],
                         {"ttlMs": 3_600_000, "cacheScope": "public"})
        self.assertEqual(complete("resources/read", {"contents": []}),
                         {"contents": [], "resultType": "complete",
                          "ttlMs": 0, "cacheScope": "private"})

    def test_valueUntouched(self):
        value = {"tools": []}
        complete("tools/list", value)
        self.assertEqual(value, {"tools": []})


"""
2026-era result shapes: resultType, cache hints, server/discover, and
input-required results.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError
from gsmcpd.protocol import inputrequired
from gsmcpd.protocol.discover import discoverResult
from gsmcpd.protocol.eras import MODERN_VERSION, Envelope
from gsmcpd.protocol.results import CACHE_HINTS, CacheHint, complete
from gsmcpd.tools import questions

SERVER = {"name": "gsmcpd", "version": "1.0"}
CAPABILITIES = {"tools": {"listChanged": False}, "prompts": {}}


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
                         CacheHint(3_600_000, "public"))
        self.assertEqual(complete("resources/read", {"contents": []}),
                         {"contents": [], "resultType": "complete",
                          "ttlMs": 0, "cacheScope": "private"})

    def test_valueUntouched(self):
        value = {"tools": []}
        complete("tools/list", value)
        self.assertEqual(value, {"tools": []})

    def test_hintValidated(self):
        self.assertRaises(ValueError, CacheHint, -1, "public")
        self.assertRaises(ValueError, CacheHint, 0, "shared")


class DiscoverTests(SynchronousTestCase):

    def test_modern(self):
        """
        The 2026 shape: all three revisions, capabilities, instructions,
        the server named in C{_meta}, and the dress of a cacheable result.
        """
        self.assertEqual(
            discoverResult(SERVER, CAPABILITIES, "Browse before you edit."),
            {"supportedVersions": ["2025-06-18", "2025-11-25", "2026-07-28"],
             "capabilities": CAPABILITIES,
             "instructions": "Browse before you edit.",
             "_meta": {"io.modelcontextprotocol/serverInfo": SERVER},
             "resultType": "complete", "ttlMs": 3_600_000,
             "cacheScope": "public"})

    def test_legacy(self):
        """
        Inside a 2025 session: the same facts, the server named in the body
        as C{initialize} names it.
        """
        self.assertEqual(
            discoverResult(SERVER, CAPABILITIES, modern=False),
            {"supportedVersions": ["2025-06-18", "2025-11-25", "2026-07-28"],
             "capabilities": CAPABILITIES, "serverInfo": SERVER})


class InputRequiredTests(SynchronousTestCase):

    def test_result(self):
        confirm = questions.elicitation(
            "Delete class Foo and its 14 methods?",
            {"confirm": {"type": "boolean"}}, required=["confirm"])
        self.assertEqual(
            inputrequired.inputRequired("tools/call", {"confirm": confirm},
                                        "sealed"),
            {"resultType": "input_required",
             "inputRequests": {"confirm": {
                 "method": "elicitation/create",
                 "params": {"mode": "form",
                            "message": "Delete class Foo and its 14 methods?",
                            "requestedSchema": {
                                "type": "object",
                                "properties": {"confirm": {"type": "boolean"}},
                                "required": ["confirm"]}}}},
             "requestState": "sealed"})

    def test_onlyOnSomeMethods(self):
        """
        Lists never answer input_required.
        """
        for method in ("tools/call", "prompts/get", "resources/read",
                       "tasks/result"):
            inputrequired.inputRequired(method, {})
        self.assertRaises(ValueError, inputrequired.inputRequired,
                          "tools/list", {})

    def test_askable(self):
        """
        Only questions the request's client declared it can answer.
        """
        asked = {"user": questions.elicitation("Name?", {}),
                 "model": questions.sampling("Summarize", 100),
                 "roots": questions.roots()}
        envelope = Envelope(MODERN_VERSION, {"sampling": {}})
        self.assertEqual(list(inputrequired.askable(envelope, asked)),
                         ["model"])

    def test_inputResponses(self):
        self.assertEqual(inputrequired.inputResponses({}), {})
        answers = {"confirm": {"action": "accept", "content": {"ok": True}},
                   "extra": {"action": "accept"}}
        self.assertEqual(
            inputrequired.inputResponses({"inputResponses": answers}),
            answers)

    def test_malformedInputResponses(self):
        for bad in (None, [], {"confirm": 12345}, {"confirm": "yes"}):
            error = self.assertRaises(JsonRpcError,
                                      inputrequired.inputResponses,
                                      {"inputResponses": bad})
            self.assertEqual(error.code, INVALID_PARAMS)

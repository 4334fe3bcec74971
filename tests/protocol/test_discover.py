"""
server/discover in both eras' shapes.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.discover import discoverAnswer, namedInBody
from gsmcpd.protocol.eras.modern.dialect import namedInMeta
from gsmcpd.protocol.eras.modern.results import complete

SERVER = {"name": "gsmcpd", "version": "1.0"}
CAPABILITIES = {"tools": {"listChanged": False}, "prompts": {}}


class DiscoverTests(SynchronousTestCase):

    def test_modern(self):
        """
        The 2026 shape: all three revisions, capabilities, instructions,
        the server named in C{_meta}, and the dress of a cacheable result.
        """
        self.assertEqual(
            complete("server/discover", namedInMeta(discoverAnswer(
                CAPABILITIES, "Browse before you edit."), SERVER)),
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
            namedInBody(discoverAnswer(CAPABILITIES), SERVER),
            {"supportedVersions": ["2025-06-18", "2025-11-25", "2026-07-28"],
             "capabilities": CAPABILITIES, "serverInfo": SERVER})

"""
Tests for L{gsmcpd.protocol.versions}: the revisions' order, and the only
way one revision is compared with another.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.versions import (
    HANDSHAKE_ERA_VERSIONS,
    KNOWN,
    LATEST_LEGACY_VERSION,
    LEGACY_VERSIONS,
    MODERN_VERSION,
    PRIMED_STREAMS_SINCE,
    SUPPORTED_VERSIONS,
    atLeast,
    negotiateVersion,
)


class VersionsTests(SynchronousTestCase):

    def test_eras(self):
        self.assertEqual(SUPPORTED_VERSIONS,
                         ("2025-06-18", "2025-11-25", "2026-07-28"))
        self.assertEqual(MODERN_VERSION, KNOWN[-1])
        self.assertNotIn(MODERN_VERSION, HANDSHAKE_ERA_VERSIONS)
        self.assertEqual(LATEST_LEGACY_VERSION, "2025-11-25")

    def test_atLeastByOrderNotSpelling(self):
        self.assertTrue(atLeast("2025-11-25", PRIMED_STREAMS_SINCE))
        self.assertTrue(atLeast(MODERN_VERSION, PRIMED_STREAMS_SINCE))
        self.assertFalse(atLeast("2025-06-18", PRIMED_STREAMS_SINCE))
        # A string later in the alphabet is not a later revision.
        self.assertFalse(atLeast("2099-99-99", PRIMED_STREAMS_SINCE))
        self.assertFalse(atLeast("zzz", "2024-11-05"))

    def test_negotiate(self):
        for version in LEGACY_VERSIONS:
            self.assertEqual(negotiateVersion(version), version)
        for asked in ("2024-11-05", MODERN_VERSION, None):
            self.assertEqual(negotiateVersion(asked), LATEST_LEGACY_VERSION)

"""
Tests for L{gsmcpd.protocol.eras.modern.dialect}: what the 2026-07-28 era
says differently.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol import kinds
from gsmcpd.protocol.eras.modern.dialect import ModernDialect
from gsmcpd.protocol.eras.modern.envelope import SERVER_INFO_KEY
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS
from gsmcpd.sessions.work import WorkSession
from tests.fakes import FakeGem


class ModernDialectTests(SynchronousTestCase):

    def setUp(self):
        self.described = []
        self.dialect = ModernDialect(
            None, {}, lambda tool: (self.described.append(tool),
                                    {"name": tool})[1], (), {"s://k": "k"})

    def test_saysSo(self):
        self.assertEqual(
            (self.dialect.resourceNotFound, self.dialect.skills),
            (INVALID_PARAMS, {"s://k": "k"}))

    def test_toolsAsItsSchemasDescribeThem(self):
        self.assertEqual(self.dialect.describe("t"), {"name": "t"})
        self.assertEqual(self.described, ["t"])

    def test_serverNamedInMeta(self):
        self.assertEqual(
            self.dialect.discovered({"a": 1}, {"name": "s"}),
            {"a": 1, "_meta": {SERVER_INFO_KEY: {"name": "s"}}})

    def test_deadGemEndsTheHandle(self):
        work = WorkSession("0" * 32, FakeGem())
        error = self.dialect.sessionGoneError(work, 4100)
        self.assertEqual((error.data["kind"], error.data["session"]),
                         (kinds.SESSION_GONE, work.handle))

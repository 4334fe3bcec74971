"""
Tests for L{gsmcpd.protocol.eras.legacy.dialect}: what the 2025 revisions
say differently.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol import kinds
from gsmcpd.protocol.eras.legacy.dialect import LegacyDialect
from gsmcpd.protocol.handlers import RESOURCE_NOT_FOUND
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.catalog import ToolCatalog
from tests.fakes import FakeGem


class LegacyDialectTests(SynchronousTestCase):

    def setUp(self):
        self.dialect = LegacyDialect("be kind", {"tools": {}})

    def test_saysSo(self):
        self.assertEqual(
            (self.dialect.instructions, self.dialect.capabilities,
             self.dialect.handleTools, self.dialect.skills,
             self.dialect.resourceNotFound),
            ("be kind", {"tools": {}}, (), {}, RESOURCE_NOT_FOUND))

    def test_toolsAsTheCatalogDescribesThem(self):
        [tool] = [each for each in ToolCatalog.named(["execution"])
                  if each.name == "execute_code"]
        self.assertEqual(self.dialect.describe(tool), tool.descriptor())

    def test_serverNamedInTheBody(self):
        self.assertEqual(self.dialect.discovered({"a": 1}, {"name": "s"}),
                         {"a": 1, "serverInfo": {"name": "s"}})

    def test_deadGemEndsTheMcpSession(self):
        error = self.dialect.sessionGoneError(
            WorkSession("0" * 32, FakeGem()), 4100)
        self.assertEqual(error.data["kind"], kinds.SESSION_GONE)
        self.assertNotIn("0" * 32, error.message)

"""
Tests for L{gsmcpd.tools.admin}: C{stone_status} on the in-process
simulated stone (its template run by the model), what a user without
SessionAccess is shown, stones lacking optional messages, both protocol
eras, and the scope that opens the toolset where auth is on.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import SynchronousTestCase, TestCase

from gsmcpd.daemon.options import ConfigError
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.testing.simulator import errors as simulated
from gsmcpd.testing.simulator import evaluator
from gsmcpd.testing.simulator.kernel import CLASSES
from gsmcpd.testing.simulator.sessiontable import CACHE_FRAMES
from gsmcpd.testing.simulator.stone import RESTRICTED_PRIVILEGES, Stone
from gsmcpd.tools.admin import DESCRIBED, AdminToolset
from gsmcpd.tools.catalog import CORE_TOOLSETS, SCOPED_TOOLSETS, ToolCatalog
from tests.daemon.test_security import AUTH, configure
from tests.toolharness import ToolHarness, effectiveHints
from tests.transport.test_modern import META, ModernTestCase


def status(result):
    if result.get("isError"):
        raise AssertionError(result["content"])
    return result["structuredContent"]


def bySession(structured):
    return {each["session"]: each for each in structured["sessions"]}


class DeclarationTests(SynchronousTestCase):
    """
    The toolset is served only when named, and its one tool is read-only.
    """

    def test_servedWhenNamed(self):
        self.assertNotIn("admin", CORE_TOOLSETS)
        self.assertIsNone(ToolCatalog.named().get("stone_status"))
        tool = ToolCatalog.named(("admin",)).get("stone_status")
        self.assertEqual(tool.title, "Stone status")
        self.assertTrue(effectiveHints(tool.annotations)["readOnlyHint"])
        self.assertFalse(effectiveHints(tool.annotations)["openWorldHint"])
        self.assertIn("withheld", tool.outputSchema["properties"])

    def test_scoped(self):
        self.assertIn(AdminToolset.name, SCOPED_TOOLSETS)


class StoneStatusTests(TestCase):
    """
    A full user (DataCurator holds SessionAccess) reads every session.
    """

    def setUp(self):
        self.stone = Stone()
        self.admin = ToolHarness(("admin", "execution"), self.stone)
        self.other = self.admin.newClient()

    @inlineCallbacks
    def test_sessions(self):
        """
        Each session's user, host, gem name and idle seconds; the caller's
        own is marked.
        """
        self.stone.advanceClock(50)
        yield self.other.call("execute_code", code="System cacheName: 'worker'")
        self.stone.advanceClock(90)
        structured = status((yield self.admin.call("stone_status")))
        self.assertEqual((structured["stone"], structured["version"]),
                         ("gs64stone", "3.7.4"))
        sessions = bySession(structured)
        mine = sessions[self.admin.gem.session.number]
        theirs = sessions[self.other.gem.session.number]
        self.assertEqual((mine["current"], theirs["current"]), (True, False))
        self.assertEqual((mine["user"], mine["host"], mine["gemName"]),
                         ("DataCurator", "localhost", "GciTs"))
        self.assertEqual(theirs["gemName"], "worker")
        # System timeGmt is the wall clock's second: one may pass meanwhile.
        self.assertIn(mine["idleSeconds"], (0, 1))
        self.assertIn(theirs["idleSeconds"], (90, 91))
        self.assertEqual((mine["withheld"], structured["withheld"]), ([], []))

    @inlineCallbacks
    def test_whoHoldsTheOldestCommitRecord(self):
        """
        After two commits by someone else, the session that moved its view
        is behind by none; the one that did not holds the oldest record.
        """
        self.stone.commitFromOutside(("global", "UserGlobals", "A"), 1)
        self.stone.commitFromOutside(("global", "UserGlobals", "B"), 2)
        yield self.other.call("execute_code", code="System abortTransaction")
        structured = status((yield self.admin.call("stone_status")))
        mine = self.admin.gem.session.number
        sessions = bySession(structured)
        self.assertEqual(structured["commitRecordBacklog"], 3)
        self.assertEqual(structured["oldestCommitRecordHeldBy"], [mine])
        self.assertEqual(sessions[mine]["commitsBehind"], 2)
        self.assertTrue(sessions[mine]["holdsOldestCommitRecord"])
        self.assertFalse(
            sessions[self.other.gem.session.number]["holdsOldestCommitRecord"])
        text = (yield self.admin.text("stone_status"))
        self.assertIn(f"oldest record held by: {mine}", text)
        self.assertIn("2 commits behind, holds the oldest commit record", text)

    @inlineCallbacks
    def test_pageCache(self):
        """
        The cache's frames, and the pages an uncommitted change dirties.
        """
        before = status((yield self.admin.call("stone_status")))["pageCache"]
        yield self.other.call("execute_code", code="UserGlobals at: #Dirty put: 1")
        after = status((yield self.admin.call("stone_status")))["pageCache"]
        self.assertEqual(after["frames"], CACHE_FRAMES)
        self.assertEqual((before["globalDirtyPages"], after["localDirtyPages"]), (0, 0))
        self.assertGreater(after["globalDirtyPages"], 0)
        self.assertLess(after["freeFrames"], before["freeFrames"])
        self.assertIn(f"of {CACHE_FRAMES} frames in use",
                      (yield self.admin.text("stone_status")))


class WithheldTests(TestCase):
    """
    A user without SessionAccess is told its own session and that the
    others' descriptions are withheld: never an error.
    """

    lacking = frozenset()

    def setUp(self):
        self.stone = Stone(lacking=self.lacking)
        self.stone.addUser("Viewer", "pw", RESTRICTED_PRIVILEGES)
        self.other = ToolHarness(("admin",), self.stone)
        self.viewer = self.other.newClient()
        self.viewer.gem.logout()
        self.viewer.gem.session = self.stone.login("Viewer", "pw")

    @inlineCallbacks
    def test_othersWithheld(self):
        result = yield self.viewer.call("stone_status")
        structured = status(result)
        sessions = bySession(structured)
        mine = sessions[self.viewer.gem.session.number]
        theirs = sessions[self.other.gem.session.number]
        self.assertEqual((mine["user"], mine["withheld"]), ("Viewer", []))
        self.assertEqual(theirs["withheld"], list(DESCRIBED))
        self.assertEqual([theirs[field] for field in DESCRIBED], [None] * 5)
        self.assertEqual(theirs["gemName"], "GciTs")
        # Sessions-referencing-oldest needs no privilege: still answered.
        self.assertEqual(sorted(structured["oldestCommitRecordHeldBy"]),
                         sorted(sessions))
        self.assertIn("withheld: user, host", result["content"][0]["text"])


class WithheldHoldersTests(WithheldTests):
    """
    Without sessionsReferencingOldestCr, the oldest record's holders are
    read from descriptions: withheld when any is.
    """

    lacking = frozenset({"System class>>sessionsReferencingOldestCr"})

    @inlineCallbacks
    def test_othersWithheld(self):
        result = yield self.viewer.call("stone_status")
        structured = status(result)
        self.assertIsNone(structured["oldestCommitRecordHeldBy"])
        self.assertEqual(structured["withheld"], ["oldestCommitRecordHeldBy"])
        self.assertIn("oldest record held by: withheld", result["content"][0]["text"])


class LackingTests(TestCase):
    """
    A stone without an optional message: the figure is unknown (null and
    not withheld), and the oldest record's holders come from the
    descriptions.
    """

    def harness(self, *lacking):
        return ToolHarness(("admin",), Stone(lacking=frozenset(
            f"System class>>{each}" for each in lacking)))

    @inlineCallbacks
    def test_noSessionsReferencingOldestCr(self):
        harness = self.harness("sessionsReferencingOldestCr")
        structured = status((yield harness.call("stone_status")))
        self.assertEqual(structured["oldestCommitRecordHeldBy"],
                         [harness.gem.session.number])

    @inlineCallbacks
    def test_noMonitorStatistics(self):
        harness = self.harness("sharedPageCacheMonitorCacheStatistics",
                               "stoneCacheStatisticWithName:")
        result = yield harness.call("stone_status")
        structured = status(result)
        self.assertEqual((structured["pageCache"], structured["commitRecordBacklog"],
                          structured["withheld"]), (None, None, []))
        text = result["content"][0]["text"]
        self.assertIn("shared page cache: unknown", text)
        self.assertIn("commit-record backlog: unknown", text)

    @inlineCallbacks
    def test_noDescriptions(self):
        harness = self.harness("descriptionOfSession:", "sessionsReferencingOldestCr")
        structured = status((yield harness.call("stone_status")))
        session, = structured["sessions"]
        self.assertEqual((session["user"], session["withheld"]), (None, []))
        self.assertIsNone(structured["oldestCommitRecordHeldBy"])


class FailingTests(TestCase):
    """
    Only a refused read is withheld: any other error is the tool's error,
    never a null that hides it.
    """

    @inlineCallbacks
    def test_brokenMessageIsAnError(self):
        self.patch(evaluator, "_KERNEL_LOOKUPS", {})
        methods = CLASSES["System"].metaclass.methods

        def broken(ev, receiver, *args):
            raise simulated.refused("the monitor is broken on this stone")
        saved = methods["sharedPageCacheMonitorCacheStatistics"]
        methods["sharedPageCacheMonitorCacheStatistics"] = broken
        self.addCleanup(methods.__setitem__, "sharedPageCacheMonitorCacheStatistics", saved)
        kind, message = yield ToolHarness(("admin",)).error("stone_status")
        self.assertIn("the monitor is broken", message)


class ModernEraTests(ModernTestCase):
    """
    The 2026-07-28 era: a read-only tool, so it runs without a handle.
    """

    ANSWER = {"stone": "gs64stone", "version": "3.7.4", "now": 100,
              "sessions": [{"session": 1, "current": True, "gemName": "GciTs",
                            "withheld": [], "user": "DataCurator",
                            "host": "localhost", "lastRequest": 40,
                            "holdsOldestCommitRecord": True,
                            "commitsBehind": 0}],
              "commitRecordBacklog": 1, "oldestCommitRecordHeldBy": [1],
              "pageCache": None, "withheld": []}

    def makeHandlers(self):
        self.pool.configure = lambda gem: gem.results.update(
            stone_status=lambda arguments: self.ANSWER)
        return Handlers(ToolCatalog.named(("admin", "session")), ServerIdentity())

    @inlineCallbacks
    def test_withoutAHandle(self):
        result = yield self.tool("stone_status", meta=META)
        self.assertEqual(status(result)["sessions"][0]["idleSeconds"], 60)


class ScopeTests(SynchronousTestCase):
    """
    Where auth is on, the toolset is served only to a scope that names it.
    """

    def test_refusedWithoutAScope(self):
        message = str(self.assertRaises(
            ConfigError, configure, *AUTH, "--toolsets", "admin session"))
        self.assertIn("admin", message)
        self.assertIn("--auth-scope-toolsets", message)
        self.assertRaises(ConfigError, configure, *AUTH, "--toolsets",
                          "admin session", "--auth-scope-toolsets",
                          '{"g:r": ["session"]}')

    def test_servedToItsScope(self):
        config = configure(*AUTH, "--toolsets", "admin session",
                           "--auth-scope-toolsets",
                           '{"g:r": ["session"], "g:admin": ["admin", "session"]}')
        self.assertEqual(config.scopeToolsets.toolsetsFor({"g:r"}), {"session"})
        self.assertIn("admin", config.scopeToolsets.toolsetsFor({"g:admin"}))

    def test_noAuthNoScope(self):
        configure("--toolsets", "admin session")

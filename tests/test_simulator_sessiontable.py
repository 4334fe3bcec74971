"""
Tests for L{gsmcpd.testing.simulator.sessiontable}: the session table's
descriptions and the page cache monitor's statistics, as Smalltalk run by
the model reads them.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.gem import run
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.sessiontable import (
    CACHE_FRAMES, KERNEL_PAGES, PAGES_PER_SESSION, monitorStatistics)
from gsmcpd.testing.simulator.stone import (
    DEFAULT_PASSWORD, DEFAULT_USER, RESTRICTED_PRIVILEGES, Stone)


class DescriptionTests(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone(host="gemhost")
        self.session = self.stone.login(DEFAULT_USER, DEFAULT_PASSWORD)

    def evaluate(self, code, session=None):
        return printString(Evaluator(session or self.session).evaluate(code))

    def field(self, number, of="System session"):
        return self.evaluate(f"(System descriptionOfSession: {of}) at: {number}")

    def test_fields(self):
        """
        Host (3), session id (10), last request (14) and login (15) are
        System timeGmt's seconds.
        """
        now = self.stone.timeGmt()
        self.assertEqual(self.field(3), "'gemhost'")
        self.assertEqual(self.field(10), str(self.session.number))
        self.assertLessEqual(int(self.field(15)) - now, 1)
        self.assertEqual(self.field(2), "nil")

    def test_lastRequestIsTheLastCall(self):
        """
        A call stamps its session; another session's stays where it was.
        """
        other = self.stone.login(DEFAULT_USER, DEFAULT_PASSWORD)
        before = int(self.field(14, other.number))
        self.stone.advanceClock(300)
        run(self.session, "System session")
        self.assertEqual(int(self.field(14, other.number)), before)
        # System timeGmt is the wall clock's second: one may pass meanwhile.
        self.assertIn(int(self.evaluate("System timeGmt")) - before, (300, 301))
        run(other, "nil")
        self.assertIn(int(self.field(14, other.number)) - before, (300, 301))
        self.assertEqual(self.field(15, other.number), str(before))

    def test_othersNeedSessionAccess(self):
        self.stone.addUser("Viewer", "pw", RESTRICTED_PRIVILEGES)
        viewer = self.stone.login("Viewer", "pw")
        self.assertEqual(self.evaluate(
            "(System descriptionOfSession: System session) at: 10", viewer),
            str(viewer.number))
        error = self.assertRaises(
            errors.SmalltalkError, Evaluator(viewer).evaluate,
            f"System descriptionOfSession: {self.session.number}")
        self.assertEqual(error.number, errors.NO_PRIVILEGE)

    def test_loggedOutHasNoProfile(self):
        """
        A session not logged in is described by an Array whose UserProfile
        (and every other field) is nil, as on 3.7 (issue 30), not by nil.
        """
        self.assertEqual(self.evaluate("(System descriptionOfSession: 999) class"), "Array")
        self.assertEqual(self.evaluate("(System descriptionOfSession: 999) at: 1"), "nil")


class MonitorTests(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login(DEFAULT_USER, DEFAULT_PASSWORD)

    def statistic(self, name):
        return Evaluator(self.session).evaluate(
            "System sharedPageCacheMonitorCacheStatistics at: "
            f"(System cacheStatisticsDescriptionForMonitor indexOf: '{name}')")

    def test_byName(self):
        self.assertEqual(self.statistic("FrameCount"), CACHE_FRAMES)
        self.assertEqual(self.statistic("FreeFrameCount"),
                         CACHE_FRAMES - KERNEL_PAGES - PAGES_PER_SESSION - 1)
        self.assertEqual(self.statistic("TotalCrPages"), 1)

    def test_followsTheStone(self):
        """
        Sessions, the backlog and uncommitted changes take frames.
        """
        before = monitorStatistics(self.stone)
        self.stone.commitFromOutside(("global", "UserGlobals", "A"), 1)
        run(self.session, "UserGlobals at: #B put: 2")
        after = monitorStatistics(self.stone)
        self.assertEqual(after["TotalCrPages"], 2)
        self.assertGreater(after["GlobalDirtyPageCount"], 0)
        self.assertEqual(after["LocalDirtyPageCount"], 0)
        self.assertLess(after["FreeFrameCount"], before["FreeFrameCount"])

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
    CACHE_FRAMES,
    KERNEL_PAGES,
    PAGES_PER_SESSION,
    monitorStatistics,
)
from gsmcpd.testing.simulator.stone import (
    DEFAULT_PASSWORD,
    DEFAULT_USER,
    RESTRICTED_PRIVILEGES,
    Stone,
)


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


class CommitRecordPageTests(SynchronousTestCase):
    """
    C{System commitRecordPageForSessionId:}: the page of the commit record
    a session's view was taken at.
    """

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login(DEFAULT_USER, DEFAULT_PASSWORD)
        self.other = self.stone.login(DEFAULT_USER, DEFAULT_PASSWORD)

    def page(self, session=None, of="System session"):
        return Evaluator(session or self.session).evaluate(
            f"System commitRecordPageForSessionId: {of}")

    def test_movesWithTheView(self):
        """
        It changes with the session's own commit that wrote something, and
        with an abort past another session's commit; not with a commit of
        nothing, nor with another session's commit alone.
        """
        first = self.page()
        run(self.session, "System commitTransaction")
        self.assertEqual(self.page(), first)
        run(self.session, "UserGlobals at: #P put: 1. System commitTransaction")
        second = self.page()
        self.assertNotEqual(second, first)
        run(self.other, "System abortTransaction. UserGlobals at: #Q put: 1. "
                        "System commitTransaction")
        self.assertEqual(self.page(), second)
        run(self.session, "System abortTransaction")
        self.assertNotIn(self.page(), (first, second))
        self.assertEqual(self.page(), self.page(self.other))

    def test_othersNeedSessionAccess(self):
        self.assertEqual(self.page(of=self.other.number),
                         self.page(self.other))
        self.stone.addUser("Viewer", "pw", RESTRICTED_PRIVILEGES)
        viewer = self.stone.login("Viewer", "pw")
        error = self.assertRaises(errors.SmalltalkError, self.page, viewer,
                                  self.session.number)
        self.assertEqual(error.number, errors.NO_PRIVILEGE)
        self.assertIsNone(self.page(of=999))

    def test_abortKeepsTheLastResult(self):
        """
        #commitResult: a commit's, #readOnly after a continue, and an abort
        leaves it as it was (the stricter reading: GemStone does not say).
        """
        def result():
            return printString(Evaluator(self.session).evaluate(
                "System transactionConflicts at: #commitResult"))

        self.assertEqual(result(), "#success")
        run(self.session, "System continueTransaction")
        self.assertEqual(result(), "#readOnly")
        run(self.session, "System abortTransaction")
        self.assertEqual(result(), "#readOnly")
        run(self.session, "UserGlobals at: #R put: 1. System commitTransaction")
        self.assertEqual(result(), "#success")


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

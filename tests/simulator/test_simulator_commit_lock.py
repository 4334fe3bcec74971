"""
The simulated stone's session-level commit lock (C{System
disableCommitsWithReason:}), which C{--read-only} arms in each session.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.stone import (
    DEFAULT_PASSWORD,
    DEFAULT_USER,
    GCI_ONETIME_PASSWORD,
    READ_ONLY_USER,
    Stone,
)
from tests.simulator.test_simulator_lifetime import answer

REASON = "gsmcpd serves this repository read-only"


class CommitLockTests(SynchronousTestCase):
    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login(DEFAULT_USER, DEFAULT_PASSWORD)

    def test_armed(self):
        self.assertEqual(answer(self.session, "disable_commits",
                                reason=REASON)["result"], {"armed": True})
        answer(self.session, "execute_code", code="UserGlobals at: #X put: 1",
               limit=100)
        error = answer(self.session, "commit")["error"]
        self.assertEqual(error["number"], errors.COMMITS_DISABLED)
        self.assertIn(REASON, error["message"])
        answer(self.session, "abort")
        self.assertEqual(answer(self.session, "commit")["error"]["number"],
                         errors.COMMITS_DISABLED)

    def test_armedOnce(self):
        answer(self.session, "disable_commits", reason=REASON)
        self.assertEqual(answer(self.session, "disable_commits",
                                reason=REASON)["result"], {"armed": False})

    def test_otherSessionsUnaffected(self):
        answer(self.session, "disable_commits", reason=REASON)
        other = self.stone.login(DEFAULT_USER, DEFAULT_PASSWORD)
        self.assertTrue(answer(other, "commit")["result"]["committed"])

    def test_alreadyLockedByTheProfile(self):
        password = self.stone.mintOnetimePassword(self.session,
                                                  READ_ONLY_USER, 60)
        readOnly = self.stone.login(READ_ONLY_USER, password,
                                    GCI_ONETIME_PASSWORD)
        self.assertEqual(answer(readOnly, "disable_commits",
                                reason=REASON)["result"], {"armed": False})
        self.assertIn("UserProfile of McpReadOnly",
                      answer(readOnly, "commit")["error"]["message"])

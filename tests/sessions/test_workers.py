"""
Tests for L{gsmcpd.sessions.workers}: each worker login carries a freshly
minted one-time password, never a second stored one.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.gci.session import LoginParameters
from gsmcpd.sessions.workers import (
    GCI_ONETIME_PASSWORD,
    ONETIME_VALIDITY,
    WorkerLogins,
    grantNeeded,
)
from gsmcpd.tools.templates.outcomes import ToolError
from tests.fakes import FakeGem, SmalltalkRaised


class WorkerLoginsTests(SynchronousTestCase):

    def setUp(self):
        self.control = FakeGem("control")
        self.minted = iter(["one", "two"])
        self.control.results["mint_onetime_password"] = \
            lambda arguments: {"password": next(self.minted)}
        self.base = LoginParameters(
            stoneNrs="gs64stone", gemNrs="gemnetobject", user="DataCurator",
            password="swordfish", flags=0x1)
        self.logins = WorkerLogins(self.control, self.base, "Worker")

    def test_loginAsTheWorkerWithAMintedPassword(self):
        login = self.successResultOf(self.logins())
        self.assertEqual((login.user, login.password), ("Worker", "one"))
        self.assertEqual(login.flags, 0x1 | GCI_ONETIME_PASSWORD)
        self.assertEqual(login.stoneNrs, self.base.stoneNrs)
        self.assertEqual(self.control.calls, [
            ("mint_onetime_password",
             {"userId": "Worker", "seconds": ONETIME_VALIDITY})])

    def test_everyLoginMintsAFreshPassword(self):
        """
        A one-time password is good for one login: the next worker needs
        its own.
        """
        first = self.successResultOf(self.logins())
        second = self.successResultOf(self.logins())
        self.assertEqual((first.password, second.password), ("one", "two"))
        self.assertEqual(self.base.password, "swordfish")

    def test_mintingRefused(self):
        def refuse(arguments):
            raise SmalltalkRaised(2000, "SecurityError", "not allowed")
        self.control.results["mint_onetime_password"] = refuse
        self.failureResultOf(self.logins(), ToolError)

    def test_noUserNoMinting(self):
        """
        A login that names no user, for logins without a worker user, is
        refused before anything is minted.
        """
        logins = WorkerLogins(self.control, self.base, None)
        self.failureResultOf(logins(), ValueError)
        self.assertEqual(self.control.calls, [])


class GrantNeededTests(SynchronousTestCase):

    def test_namesBothUsers(self):
        text = grantNeeded("DataCurator", "Worker")
        self.assertIn("(AllUsers userWithId: 'DataCurator') "
                      "addOnetimePasswordUserId: 'Worker'", text)

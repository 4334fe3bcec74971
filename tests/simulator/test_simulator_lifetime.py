"""
Tests for what the simulated stone (a test double, not GemStone) models for
the daemon's session-lifetime work: commits behind and the commit-record
backlog, moving a view and a view that cannot move, naming gems, one-time
passwords and a commit-locked user, stopping a session's gem, and breaks a
call ignores.

In process (the template answers and the evaluator, no socket) where the
model is the point; through the fake libgcits where a login flag, a gem
that is stopped, or a break arriving from another thread is.
"""

import ctypes
import json
import threading
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, gem
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.launch import launch
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.repository import ABSENT
from gsmcpd.testing.simulator.stone import (
    DEFAULT_PASSWORD,
    DEFAULT_USER,
    GCI_ONETIME_PASSWORD,
    READ_ONLY_USER,
    Stone,
)
from gsmcpd.testing.simulator.system import PUBLISHED, USER_GLOBALS, globalKey
from gsmcpd.tools.templates.render import Template
from tests.simulator.test_simulator import GciErrSType, GciFailed, SimulatedStoneTests

MAX_RESULT = 1 << 20


def answer(session, templateName, /, **arguments):
    """
    What the envelope answers for template C{templateName} run in
    C{session}, as JSON, through the simulated stone's template handlers.
    """
    source = Template.named(templateName).render(arguments, MAX_RESULT)
    return json.loads(gem.answer(session, source))


class InProcessTests(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()

    def login(self, user=DEFAULT_USER, password=DEFAULT_PASSWORD, flags=0):
        return self.stone.login(user, password, flags)

    def commitElsewhere(self, times=1):
        """
        Commit from another session, into a dictionary of its own (a
        binding added to UserGlobals would conflict with one this
        session adds there).
        """
        for n in range(times):
            self.stone.commitFromOutside(globalKey(PUBLISHED, f"Elsewhere{n}"), n)


class ViewTests(InProcessTests):

    def test_sessionState(self):
        session = self.login()
        self.assertEqual(answer(session, "session_state"), {
            "result": {"commitsBehind": 0, "session": session.number},
            "needsCommit": False})

    def test_signalAbortBacklogUnreadableIsNil(self):
        """
        A setting of 0 (disabled) or none at all reads back as nil, never 0.
        """
        session = self.login()
        for value in (0, -1, None):
            self.stone.signalAbortBacklog = value
            self.assertIsNone(answer(session, "open_session", name="n")["result"]["signalAbortBacklog"])
        self.stone.signalAbortBacklog = 7
        self.assertEqual(answer(session, "open_session", name="n")["result"]["signalAbortBacklog"], 7)

    def test_commitsBehindGrowsAndContinueShrinks(self):
        session = self.login()
        evaluator = Evaluator(session)
        evaluator.evaluate("UserGlobals at: #Mine put: 1")
        self.commitElsewhere(3)
        self.assertEqual(answer(session, "session_state")["result"]["commitsBehind"], 3)
        self.assertEqual(answer(session, "continue_transaction"),
                         {"result": {"continued": True}, "needsCommit": True,
                          "viewMoved": True, "committed": False})
        self.assertEqual(answer(session, "session_state")["result"]["commitsBehind"], 0)
        # the uncommitted work survived the move, and the others' commits are seen
        self.assertEqual(printString(Evaluator(session).evaluate("Mine + Elsewhere2")), "3")

    def test_backlog(self):
        """
        The backlog runs from the oldest view a logged-in session holds to
        the newest commit (inclusive, so 1 when everyone is current); it
        grows while one session sits on an old view and shrinks when that
        view moves.  The session asking counts too.
        """
        sitter, control = self.login(), self.login()
        self.assertEqual(answer(control, "backlog_state")["result"],
                         {"backlog": 1, "oldestPinnedBy": [sitter.number, control.number]})
        self.commitElsewhere(3)
        self.assertEqual(answer(control, "backlog_state")["result"],
                         {"backlog": 4, "oldestPinnedBy": [sitter.number, control.number]})
        answer(control, "continue_transaction")
        self.assertEqual(answer(control, "backlog_state")["result"],
                         {"backlog": 4, "oldestPinnedBy": [sitter.number]})
        self.commitElsewhere(2)
        self.assertEqual(answer(control, "backlog_state")["result"]["backlog"], 6)
        answer(sitter, "continue_transaction")
        self.assertEqual(answer(control, "backlog_state")["result"],
                         {"backlog": 3, "oldestPinnedBy": [control.number]})

    def test_backlogForgetsLoggedOutSessions(self):
        sitter, control = self.login(), self.login()
        self.commitElsewhere(2)
        answer(control, "continue_transaction")
        self.stone.logout(sitter)
        self.assertEqual(answer(control, "backlog_state")["result"],
                         {"backlog": 1, "oldestPinnedBy": [control.number]})

    def test_stuckView(self):
        """
        After a failed commit the view cannot be moved: continue_transaction
        answers TransactionError 2409, as refresh does, until an abort.
        """
        first, second = self.login(), self.login()
        Evaluator(first).evaluate("UserGlobals at: #Contested put: 1")
        Evaluator(second).evaluate("UserGlobals at: #Contested put: 2")
        self.assertTrue(answer(first, "commit")["result"]["committed"])
        self.assertFalse(answer(second, "commit")["result"]["committed"])
        for name in ("continue_transaction", "refresh", "continue_transaction"):
            error = answer(second, name)["error"]
            self.assertEqual((error["number"], error["class"]),
                             (errors.TRANSACTION_ERROR, "TransactionError"))
        self.assertEqual(answer(second, "backlog_state")["result"]["oldestPinnedBy"],
                         [second.number])
        answer(second, "abort")
        self.assertEqual(answer(second, "continue_transaction")["result"], {"continued": True})


class GemNameTests(InProcessTests):

    def test_unnamedIsGciTs(self):
        session = self.login()
        self.assertEqual(self.stone.cacheNameOf(session.number), "GciTs")
        self.assertEqual(printString(Evaluator(session).evaluate(
            "(System cacheStatisticsForSessionId: System session) at: 1")), "'GciTs'")

    def test_nameGem(self):
        session, other = self.login(), self.login()
        self.assertEqual(answer(session, "open_session", name="gsmcpd:8000:ab12cd34"),
                         {"result": {"name": "gsmcpd:8000:ab12cd34", "session": session.number,
                                     "signalAbortBacklog": 20}, "needsCommit": False})
        self.assertEqual(self.stone.cacheNameOf(other.number), "GciTs")
        longest = "x" * 31
        self.assertEqual(answer(session, "open_session", name=longest)["result"]["name"], longest)

    def test_lengthRule(self):
        """
        1 to 31 characters: the empty name and one of 32 are OutOfRange
        (2061), and leave the name as it was.
        """
        session = self.login()
        answer(session, "open_session", name="before")
        for name in ("", "y" * 32, "z" * 100):
            error = answer(session, "open_session", name=name)["error"]
            self.assertEqual((error["number"], error["class"]),
                             (errors.OUT_OF_RANGE, "OutOfRange"))
            self.assertIn(str(len(name)), error["message"])
        self.assertEqual(self.stone.cacheNameOf(session.number), "before")

    def test_executeCodeNamesToo(self):
        session = self.login()
        Evaluator(session).evaluate("System cacheName: 'by hand'")
        self.assertEqual(self.stone.cacheNameOf(session.number), "by hand")


class OnetimePasswordTests(InProcessTests):

    def mint(self, session, userId=READ_ONLY_USER, seconds=60):
        outcome = answer(session, "mint_onetime_password", userId=userId, seconds=seconds)
        self.assertNotIn("error", outcome)
        return outcome["result"]["password"]

    def test_mintAndLogInOnce(self):
        password = self.mint(self.login())
        self.assertIsInstance(password, str)
        session = self.login(READ_ONLY_USER, password, GCI_ONETIME_PASSWORD)
        self.assertEqual(answer(session, "status")["result"]["user"], READ_ONLY_USER)
        e = self.assertRaises(errors.GciError, self.login, READ_ONLY_USER, password,
                              GCI_ONETIME_PASSWORD)
        self.assertEqual((e.number, e.fatal), (errors.LOGIN_DENIED, True))

    def test_passwordsDiffer(self):
        session = self.login()
        self.assertNotEqual(self.mint(session), self.mint(session))

    def test_needsTheFlag(self):
        password = self.mint(self.login())
        e = self.assertRaises(errors.GciError, self.login, READ_ONLY_USER, password)
        self.assertEqual(e.number, errors.LOGIN_DENIED)

    def test_onlyForItsUser(self):
        password = self.mint(self.login())
        e = self.assertRaises(errors.GciError, self.login, DEFAULT_USER, password,
                              GCI_ONETIME_PASSWORD)
        self.assertEqual(e.number, errors.LOGIN_DENIED)
        # a failed attempt uses it up
        self.assertRaises(errors.GciError, self.login, READ_ONLY_USER, password,
                          GCI_ONETIME_PASSWORD)

    def test_expires(self):
        password = self.mint(self.login(), seconds=30)
        self.stone.advanceClock(31)
        e = self.assertRaises(errors.GciError, self.login, READ_ONLY_USER, password,
                              GCI_ONETIME_PASSWORD)
        self.assertEqual(e.number, errors.LOGIN_DENIED)

    def test_validUntilItExpires(self):
        password = self.mint(self.login(), seconds=30)
        self.stone.advanceClock(29)
        self.login(READ_ONLY_USER, password, GCI_ONETIME_PASSWORD)

    def test_notOnAllowList(self):
        """
        Minting for a user not on the minter's allow list is a
        SecurityError 2151 naming the grant; a grant allows it.
        """
        self.stone.addUser("Analyst", "secret")
        session = self.login()
        error = answer(session, "mint_onetime_password", userId="Analyst", seconds=60)["error"]
        self.assertEqual((error["number"], error["class"]),
                         (errors.NO_PRIVILEGE, "SecurityError"))
        self.assertIn("allow list", error["message"])
        self.assertIn("addOnetimePasswordUserId:", error["message"])
        self.stone.grantOnetime(DEFAULT_USER, "Analyst")
        self.login("Analyst", self.mint(session, "Analyst"), GCI_ONETIME_PASSWORD)

    def test_restrictedUserMayNotMintForOthers(self):
        session = self.login(READ_ONLY_USER, self.mint(self.login()), GCI_ONETIME_PASSWORD)
        error = answer(session, "mint_onetime_password", userId=DEFAULT_USER, seconds=60)["error"]
        self.assertEqual(error["number"], errors.NO_PRIVILEGE)

    def test_mintForOneself(self):
        session = self.login()
        self.login(DEFAULT_USER, self.mint(session, DEFAULT_USER), GCI_ONETIME_PASSWORD)

    def test_badArguments(self):
        session = self.login()
        for userId, seconds in ((READ_ONLY_USER, 0), (READ_ONLY_USER, "60"), (None, 60)):
            error = answer(session, "mint_onetime_password", userId=userId,
                           seconds=seconds)["error"]
            self.assertEqual(error["number"], errors.ARGUMENT_TYPE_ERROR)

    def test_seededPasswordIsNobodysBusiness(self):
        """
        The restricted user's own password is random, per stone.
        """
        self.assertNotEqual(self.stone.users[READ_ONLY_USER], Stone().users[READ_ONLY_USER])
        self.assertRaises(errors.GciError, self.login, READ_ONLY_USER, "")
        self.assertRaises(errors.GciError, self.login, READ_ONLY_USER, DEFAULT_PASSWORD)

    def test_moreRestrictedUsers(self):
        stone = Stone(restrictedUsers=("Browser",))
        minter = stone.login(DEFAULT_USER, DEFAULT_PASSWORD)
        password = answer(minter, "mint_onetime_password", userId="Browser",
                          seconds=60)["result"]["password"]
        session = stone.login("Browser", password, GCI_ONETIME_PASSWORD)
        self.assertEqual(answer(session, "commit")["error"]["number"], errors.COMMITS_DISABLED)


class ReadOnlyUserTests(InProcessTests):

    def setUp(self):
        super().setUp()
        password = self.stone.mintOnetimePassword(self.login(), READ_ONLY_USER, 60)
        self.session = self.login(READ_ONLY_USER, password, GCI_ONETIME_PASSWORD)

    def test_commitLocked(self):
        """
        Reads and writes work; a commit is TransactionError 2249, through
        the commit template and through System commitTransaction alike, and
        an abort does not lift it.
        """
        Evaluator(self.session).evaluate("UserGlobals at: #Scratch put: 1")
        for attempt in (lambda: answer(self.session, "commit"),
                        lambda: answer(self.session, "execute_code",
                                       code="System commitTransaction", limit=100)):
            error = attempt()["error"]
            self.assertEqual((error["number"], error["class"]),
                             (errors.COMMITS_DISABLED, "TransactionError"))
            self.assertIn("must logout", error["message"])
        answer(self.session, "abort")
        self.assertEqual(answer(self.session, "commit")["error"]["number"],
                         errors.COMMITS_DISABLED)
        self.assertIs(self.stone.repository.read(globalKey(USER_GLOBALS, "Scratch"),
                                                 self.stone.repository.commitNumber), ABSENT)

    def test_mayNotStopSessions(self):
        victim = self.login()
        error = answer(self.session, "stop_session", session=victim.number)["error"]
        self.assertEqual((error["number"], error["class"]),
                         (errors.NO_PRIVILEGE, "SecurityError"))
        self.assertIn("SystemControl", error["message"])
        self.assertIn(victim.number, self.stone.sessions)


class StopSessionTests(InProcessTests):

    def test_stopSession(self):
        stopper, victim = self.login(), self.login()
        self.assertEqual(answer(stopper, "stop_session", session=victim.number),
                         {"result": {"stopped": True}, "needsCommit": False})
        self.assertNotIn(victim.number, self.stone.sessions)
        self.assertTrue(victim.interrupt.killed)

    def test_noSuchSession(self):
        stopper = self.login()
        self.assertEqual(answer(stopper, "stop_session", session=999)["result"],
                         {"stopped": True})


class BreakHandlingTests(InProcessTests):
    """
    The evaluator's side of breaks: Break is signalled where the code is,
    and a handler may resume it; a hard break cannot be handled.
    """

    def breakDuring(self, code, hard=False, delay=0.15, ignore=None):
        """
        Evaluate C{code} in a fresh session while a break arrives after
        C{delay} seconds; answer (seconds taken, value or the GciError).
        """
        session = self.login()
        session.interrupt.begin()
        if ignore is not None:
            session.interrupt.ignoreBreaks(ignore)
        breaker = threading.Timer(delay, session.interrupt.breakCall, [hard])
        breaker.start()
        self.addCleanup(breaker.join)
        started = time.monotonic()
        try:
            outcome = printString(Evaluator(session).evaluate(code))
        except errors.GciError as e:
            outcome = e
        finally:
            session.interrupt.end()
        return time.monotonic() - started, outcome

    def test_softBreakResumed(self):
        taken, outcome = self.breakDuring(
            "[(Delay forSeconds: 1) wait. 42] on: Break do: [:e | e resume]")
        self.assertEqual(outcome, "42")
        self.assertGreaterEqual(taken, 1.0)

    def test_softBreakResumedInLoop(self):
        taken, outcome = self.breakDuring(
            "| n | n := 0. [[n < 20000] whileTrue: [n := n + 1]. n] "
            "on: Break do: [:e | e resume: nil]", delay=0.01)
        self.assertEqual(outcome, "20000")

    def test_softBreakReturned(self):
        taken, outcome = self.breakDuring(
            "[(Delay forSeconds: 5) wait. 42] on: Break do: [:e | e return: 7]")
        self.assertEqual(outcome, "7")
        self.assertLess(taken, 2.0)

    def test_handlerValueIsTheAnswer(self):
        self.assertEqual(self.breakDuring(
            "[(Delay forSeconds: 5) wait. 42] on: Break do: [:e | e number]")[1], "6003")

    def test_breakIsNotAnError(self):
        """
        on: Error do: does not catch a Break, so the envelope's handler
        never swallows one: the call ends with 6003.
        """
        taken, outcome = self.breakDuring(
            "[(Delay forSeconds: 5) wait. 42] on: Error do: [:e | e return: 7]")
        self.assertIsInstance(outcome, errors.GciError)
        self.assertEqual(outcome.number, errors.SOFT_BREAK)
        self.assertLess(taken, 2.0)

    def test_exceptionCatchesBreak(self):
        self.assertEqual(self.breakDuring(
            "[(Delay forSeconds: 5) wait] on: Exception do: [:e | e class name]")[1], "#Break")

    def test_pass(self):
        self.assertEqual(self.breakDuring(
            "[[(Delay forSeconds: 5) wait] on: Break do: [:e | e pass]] "
            "on: ControlInterrupt do: [:e | 'outer']")[1], "'outer'")

    def test_passToNobody(self):
        outcome = self.breakDuring("[(Delay forSeconds: 5) wait] on: Break do: [:e | e pass]")[1]
        self.assertEqual(outcome.number, errors.SOFT_BREAK)

    def test_hardBreakNotHandled(self):
        taken, outcome = self.breakDuring(
            "[(Delay forSeconds: 5) wait. 42] on: Break do: [:e | e resume]", hard=True)
        self.assertIsInstance(outcome, errors.GciError)
        self.assertEqual(outcome.number, errors.HARD_BREAK)
        self.assertLess(taken, 2.0)

    def test_errorIsNotResumable(self):
        session = self.login()
        error = answer(session, "execute_code", code="[1/0] on: ZeroDivide do: [:e | e resume: 5]",
                       limit=100)["error"]
        self.assertIn("not resumable", error["message"])

    def test_ignoreSoft(self):
        taken, outcome = self.breakDuring("(Delay forSeconds: 0.5) wait. 42", ignore="soft")
        self.assertEqual(outcome, "42")
        taken, outcome = self.breakDuring("(Delay forSeconds: 5) wait. 42", hard=True,
                                          ignore="soft")
        self.assertEqual(outcome.number, errors.HARD_BREAK)

    def test_ignoreBoth(self):
        taken, outcome = self.breakDuring("(Delay forSeconds: 0.5) wait. 42", hard=True,
                                          ignore="both")
        self.assertEqual(outcome, "42")

    def test_ignoringEndsWithTheCall(self):
        session = self.login()
        session.interrupt.ignoreBreaks("both")
        session.interrupt.begin()
        session.interrupt.end()
        session.interrupt.begin()
        session.interrupt.breakCall(False)
        self.assertEqual(session.interrupt.poll(), "soft")
        session.interrupt.end()


class SystemSelectorTests(InProcessTests):
    """
    The lifetime templates' selectors answer the same model in execute_code.
    """

    def test_selectors(self):
        session = self.login()
        self.commitElsewhere(2)
        evaluate = lambda code: printString(Evaluator(session).evaluate(code))  # noqa: E731
        self.assertEqual(evaluate("(System descriptionOfSession: System session) at: 16"), "2")
        self.assertEqual(evaluate("(System descriptionOfSession: System session) at: 8"), "true")
        self.assertEqual(evaluate("System stoneConfigurationAt: #StnSignalAbortCrBacklog"), "20")
        self.assertEqual(evaluate("System stoneCacheStatisticWithName: 'CommitRecordCount'"), "3")
        self.assertEqual(evaluate("System sessionsReferencingOldestCr"),
                         f"anArray( {session.number})")

    def test_otherSessionsDescriptionNeedsSessionAccess(self):
        password = self.stone.mintOnetimePassword(self.login(), READ_ONLY_USER, 60)
        restricted = self.login(READ_ONLY_USER, password, GCI_ONETIME_PASSWORD)
        other = self.login()
        error = answer(restricted, "execute_code", limit=100,
                       code=f"System descriptionOfSession: {other.number}")["error"]
        self.assertEqual(error["number"], errors.NO_PRIVILEGE)


class LibraryTests(SimulatedStoneTests):
    """
    Through the fake libgcits, as the daemon drives it.
    """

    def loginWith(self, user, password, flags=0):
        err = GciErrSType()
        session = self.lib.GciTsLogin(self.socketPath.encode(), None, None, 0, None,
                                      user.encode(), password.encode(), flags, 0, None,
                                      ctypes.byref(err))
        if not session:
            raise GciFailed(err)
        self.addCleanup(self.lib.GciTsLogout, session, ctypes.byref(GciErrSType()))
        return session

    def call(self, session, templateName, /, **arguments):
        """
        Template C{templateName} run in C{session} through the library, as
        JSON (L{template} cannot take an argument called C{name}).
        """
        source = Template.named(templateName).render(arguments, MAX_RESULT)
        return json.loads(self.execute(session, source))

    def sessionNumber(self, session):
        return self.call(session, "status")["result"]["session"]

    def inThread(self, function, *args):
        """
        Run C{function(*args)} on another thread; answer a list that gets
        its result or the exception it raised.
        """
        outcome = []

        def run():
            try:
                outcome.append(function(*args))
            except Exception as e:
                outcome.append(e)
        thread = threading.Thread(target=run)
        thread.start()

        def cleanUp():
            # A failed test can leave a call running that nothing breaks:
            # stop every gem rather than wait on it for ever.
            if thread.is_alive():
                for each in self.control.call({"op": "sessions"})["sessions"]:
                    self.control.call({"op": "kill", "session": each["session"]})
            thread.join(10)
        self.addCleanup(cleanUp)
        return thread, outcome

    def inProgress(self, session):
        return self.lib.GciTsCallInProgress(session, ctypes.byref(GciErrSType()))

    def test_onetimePasswordLogin(self):
        minter = self.login()
        password = self.call(minter, "mint_onetime_password", userId=READ_ONLY_USER,
                                 seconds=60)["result"]["password"]
        self.assertRaises(GciFailed, self.loginWith, READ_ONLY_USER, "not it",
                          GCI_ONETIME_PASSWORD)
        session = self.loginWith(READ_ONLY_USER, password, GCI_ONETIME_PASSWORD)
        self.assertEqual(self.call(session, "status")["result"]["user"], READ_ONLY_USER)
        self.assertEqual(self.call(session, "commit")["error"]["number"],
                         errors.COMMITS_DISABLED)
        e = self.assertRaises(GciFailed, self.loginWith, READ_ONLY_USER, password,
                              GCI_ONETIME_PASSWORD)
        self.assertEqual((e.number, e.fatal), (errors.LOGIN_DENIED, 1))

    def test_onetimePasswordExpires(self):
        password = self.call(self.login(), "mint_onetime_password", userId=READ_ONLY_USER,
                                 seconds=5)["result"]["password"]
        self.control.call({"op": "advanceClock", "seconds": 6})
        e = self.assertRaises(GciFailed, self.loginWith, READ_ONLY_USER, password,
                              GCI_ONETIME_PASSWORD)
        self.assertEqual(e.number, errors.LOGIN_DENIED)

    def test_grantOnetime(self):
        self.control.call({"op": "addUser", "user": "Analyst", "password": "pw"})
        minter = self.login()
        error = self.call(minter, "mint_onetime_password", userId="Analyst",
                              seconds=60)["error"]
        self.assertEqual(error["number"], errors.NO_PRIVILEGE)
        self.assertEqual(self.control.call(
            {"op": "grantOnetime", "minter": "DataCurator", "userId": "Analyst"}),
            {"granted": True})
        password = self.call(minter, "mint_onetime_password", userId="Analyst",
                                 seconds=60)["result"]["password"]
        self.loginWith("Analyst", password, GCI_ONETIME_PASSWORD)

    def test_controlSignalAbortBacklogAndBacklog(self):
        session = self.login()
        self.control.call({"op": "signalAbortBacklog", "value": 50})
        self.assertEqual(self.call(session, "execute_code", limit=100, code=(
            "System stoneConfigurationAt: #StnSignalAbortCrBacklog"))["result"]["text"], "50")
        self.control.call({"op": "commitFromOutside", "key": "Elsewhere", "value": 1})
        number = self.sessionNumber(session)
        self.assertEqual(self.control.call({"op": "backlog"}),
                         {"backlog": 2, "oldestPinnedBy": [number]})
        self.assertEqual(self.call(session, "backlog_state")["result"],
                         {"backlog": 2, "oldestPinnedBy": [number]})
        [described] = self.control.call({"op": "sessions"})["sessions"]
        self.assertEqual(described["cacheName"], "GciTs")

    def test_nameGem(self):
        session = self.login()
        self.assertEqual(self.call(session, "open_session", name="gsmcpd:1")["result"]["name"],
                         "gsmcpd:1")
        [described] = self.control.call({"op": "sessions"})["sessions"]
        self.assertEqual(described["cacheName"], "gsmcpd:1")

    def test_stopSessionDuringCall(self):
        """
        Stopping a session's gem closes its connection: the call it has in
        flight fails fatally, and it is gone from the stone.
        """
        stopper, victim = self.login(), self.login()
        number = self.sessionNumber(victim)
        thread, outcome = self.inThread(self.evaluate, victim, "[true] whileTrue")
        time.sleep(0.2)
        self.assertEqual(self.call(stopper, "stop_session", session=number)["result"],
                         {"stopped": True})
        thread.join(5)
        [e] = outcome
        self.assertIsInstance(e, GciFailed)
        self.assertEqual((e.number, e.fatal), (errors.SESSION_GONE, 1))
        numbers = [s["session"] for s in self.control.call({"op": "sessions"})["sessions"]]
        self.assertNotIn(number, numbers)

    def test_softBreakResumed(self):
        session = self.login()
        thread, outcome = self.inThread(
            self.printed, session,
            "[(Delay forSeconds: 1) wait. 42] on: Break do: [:e | e resume]")
        time.sleep(0.2)
        self.lib.GciTsBreak(session, 0, ctypes.byref(GciErrSType()))
        time.sleep(0.2)
        self.assertEqual(self.inProgress(session), 1)
        thread.join(5)
        self.assertEqual(outcome, ["42"])

    def test_hardBreakNotResumed(self):
        session = self.login()
        thread, outcome = self.inThread(
            self.printed, session,
            "[(Delay forSeconds: 5) wait. 42] on: Break do: [:e | e resume]")
        time.sleep(0.2)
        self.lib.GciTsBreak(session, 1, ctypes.byref(GciErrSType()))
        thread.join(5)
        [e] = outcome
        self.assertEqual((e.number, e.fatal), (errors.HARD_BREAK, 0))
        self.assertEqual(self.printed(session, "3 + 4"), "7")

    def test_ignoreBreaksSoft(self):
        session = self.login()
        number = self.sessionNumber(session)
        self.assertEqual(self.control.call({"op": "ignoreBreaks", "session": number,
                                            "which": "soft"}), {"ignoring": "soft"})
        thread, outcome = self.inThread(self.evaluate, session, "[true] whileTrue")
        time.sleep(0.2)
        self.lib.GciTsBreak(session, 0, ctypes.byref(GciErrSType()))
        time.sleep(0.35)
        self.assertEqual((self.inProgress(session), outcome), (1, []))
        self.lib.GciTsBreak(session, 1, ctypes.byref(GciErrSType()))
        thread.join(5)
        [e] = outcome
        self.assertEqual(e.number, errors.HARD_BREAK)
        # the next call hears breaks again
        self.breakSoon(session, 0)
        e = self.assertRaises(GciFailed, self.evaluate, session, "[true] whileTrue")
        self.assertEqual(e.number, errors.SOFT_BREAK)

    def breakSoon(self, session, hard):
        timer = threading.Timer(0.2, self.lib.GciTsBreak,
                                [session, hard, ctypes.byref(GciErrSType())])
        timer.start()
        self.addCleanup(timer.join)

    def test_ignoreBreaksBoth(self):
        """
        A call that ignores both kinds of break ends only when its gem is
        stopped.
        """
        stopper, session = self.login(), self.login()
        number = self.sessionNumber(session)
        thread, outcome = self.inThread(self.evaluate, session, "[true] whileTrue")
        time.sleep(0.1)
        self.control.call({"op": "ignoreBreaks", "session": number, "which": "both"})
        self.lib.GciTsBreak(session, 0, ctypes.byref(GciErrSType()))
        time.sleep(0.35)
        self.lib.GciTsBreak(session, 1, ctypes.byref(GciErrSType()))
        time.sleep(0.35)
        self.assertEqual((self.inProgress(session), outcome), (1, []))
        self.call(stopper, "stop_session", session=number)
        thread.join(5)
        [e] = outcome
        self.assertEqual((e.number, e.fatal), (errors.SESSION_GONE, 1))

    def test_ignoreBreaksUnknownSession(self):
        self.assertEqual(self.control.call({"op": "ignoreBreaks", "session": 99,
                                            "which": "both"}), {"ignoring": None})


class WorkerUserSeedTests(SimulatedStoneTests):

    def setUp(self):
        super().setUp()
        path = self.socketPath + "-seeded"
        self.addCleanup(launch(path, workerUsers=("Browser",)).stop)
        self.seededPath = path

    def test_workerUser(self):
        err = GciErrSType()
        minter = self.lib.GciTsLogin(self.seededPath.encode(), None, None, 0, None,
                                     b"DataCurator", b"swordfish", 0, 0, None,
                                     ctypes.byref(err))
        self.addCleanup(self.lib.GciTsLogout, minter, ctypes.byref(GciErrSType()))
        password = LibraryTests.call(self, minter, "mint_onetime_password", userId="Browser",
                                 seconds=60)["result"]["password"]
        session = self.lib.GciTsLogin(self.seededPath.encode(), None, None, 0, None,
                                      b"Browser", password.encode(), GCI_ONETIME_PASSWORD, 0,
                                      None, ctypes.byref(err))
        self.assertTrue(session, err.message)
        self.addCleanup(self.lib.GciTsLogout, session, ctypes.byref(GciErrSType()))
        self.assertEqual(LibraryTests.call(self, session, "status")["result"]["user"], "Browser")

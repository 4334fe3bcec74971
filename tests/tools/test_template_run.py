"""
Tests for L{gsmcpd.tools.templates.run}: each outcome of running a
template, from a fake gem.
"""

import json

from twisted.internet.defer import fail, succeed
from twisted.trial.unittest import TestCase

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.tools.templates.outcomes import (
    STILL,
    CallBroken,
    GemGone,
    ResultOverLimit,
    ToolError,
    ViewMove,
)
from gsmcpd.tools.templates.run import TemplateAnswer, runTemplate
from tests.fakes import FakeGem, SmalltalkRaised


def raising(error):
    def result(arguments):
        raise error
    return result


class OutcomeTests(TestCase):

    def setUp(self):
        self.gem = FakeGem()

    def outcome(self, result, needsCommit=False):
        self.gem.results["execute_code"] = result
        self.gem.needsCommit = needsCommit
        return runTemplate(self.gem, "execute_code", {"code": "x"})

    def test_value(self):
        answer = self.successResultOf(self.outcome(lambda a: 7, True))
        self.assertEqual(answer, TemplateAnswer(7, True))

    def test_warningsResumed(self):
        """
        The descriptions of the Warnings the envelope resumed come with the
        value.
        """
        class Noted:
            def execute(self, source, maxBytes):
                return succeed(json.dumps({"result": 3, "needsCommit": False,
                                           "notes": ["careful"]}).encode())
        answer = self.successResultOf(runTemplate(Noted(), "execute_code", {"code": "x"}))
        self.assertEqual(answer, TemplateAnswer(3, False, ("careful",)))

    def test_viewMoved(self):
        """
        How the envelope says the view moved comes with the value, and with
        a failure: a commit that an error followed is still a commit.
        """
        self.gem.moves["execute_code"] = True
        answer = self.successResultOf(self.outcome(lambda a: 7))
        self.assertEqual(answer.moved, ViewMove(True, True))
        failure = self.failureResultOf(self.outcome(raising(
            SmalltalkRaised(2010, "MessageNotUnderstood", "nil foo"))),
            ToolError)
        self.assertEqual(failure.value.moved, ViewMove(True, True))
        self.gem.moves["execute_code"] = False
        answer = self.successResultOf(self.outcome(lambda a: 7))
        self.assertEqual(answer.moved, ViewMove(True, False))
        del self.gem.moves["execute_code"]
        self.assertIs(self.successResultOf(self.outcome(lambda a: 7)).moved,
                      STILL)

    def test_smalltalkErrorHasItsKind(self):
        failure = self.failureResultOf(self.outcome(raising(
            SmalltalkRaised(1001, "CompileError", "bad")), True), ToolError)
        self.assertEqual(failure.value.kind, "compileError")
        self.assertEqual(failure.value.details, {"number": 1001})
        self.assertTrue(failure.value.needsCommit)

    def test_markers(self):
        for marker, kind in [("gsmcpRefused", "refused"),
                             ("gsmcpNotFound", "notFound")]:
            failure = self.failureResultOf(
                self.outcome(lambda a, m=marker: {m: "why"}), ToolError)
            self.assertEqual((failure.value.kind, failure.value.message),
                             (kind, "why"))

    def test_overLimit(self):
        self.failureResultOf(self.outcome(raising(SmalltalkRaised(
            0, "gsmcpd", "the result is too large"))), ResultOverLimit)

    def test_break(self):
        failure = self.failureResultOf(
            self.outcome(raising(GciError(6004, "a Break occurred"))),
            CallBroken)
        self.assertIn("intact", str(failure.value))

    def test_gemGoneKeepsTheReasonOutOfTheMessage(self):
        failure = self.failureResultOf(self.outcome(raising(GciError(
            4100, "gone", fatal=True, reason="host secret"))), GemGone)
        self.assertNotIn("secret", str(failure.value))
        self.assertEqual(failure.value.reason, "host secret")

    def test_otherGciErrorIsAToolError(self):
        failure = self.failureResultOf(
            self.outcome(raising(GciError(2106, "no such object"))),
            ToolError)
        self.assertEqual(failure.value.details, {"number": 2106})

    def test_asynchronousEventSaysSo(self):
        """
        An event the stone sent the session (a signalled abort, a lost
        view) is told apart from the tool's own failure, with what it means
        for the session, whether the call or the envelope reports it.
        """
        failure = self.failureResultOf(self.outcome(raising(GciError(
            6009, "a TransactionBacklog occurred"))), ToolError)
        self.assertEqual(failure.value.details, {"number": 6009})
        self.assertIn("asynchronous GemStone event", failure.value.message)
        self.assertIn("changes are intact", failure.value.message)
        failure = self.failureResultOf(self.outcome(raising(SmalltalkRaised(
            3031, "RepositoryViewLost", "view lost"))), ToolError)
        self.assertIn("uncommitted changes are lost", failure.value.message)
        failure = self.failureResultOf(self.outcome(raising(GciError(
            2106, "no such object"))), ToolError)
        self.assertNotIn("asynchronous", failure.value.message)

    def test_lostViewMovedIt(self):
        """
        A lost view (3031), whether the call or the envelope reports it,
        moved the view, committed nothing and left no change held: what the
        session read, and the changes it listed, no longer count.
        """
        for lost in (GciError(3031, "view lost"),
                     SmalltalkRaised(3031, "RepositoryViewLost", "view lost")):
            failure = self.failureResultOf(
                self.outcome(raising(lost), needsCommit=True), ToolError)
            self.assertEqual((failure.value.moved, failure.value.needsCommit),
                             (ViewMove(True, False), False))
        failure = self.failureResultOf(self.outcome(raising(GciError(
            6009, "a TransactionBacklog occurred"))), ToolError)
        self.assertEqual(failure.value.moved, STILL)

    def test_withdrawn(self):
        self.gem.execute = lambda source, maxBytes: fail(CallWithdrawn())
        failure = self.failureResultOf(
            runTemplate(self.gem, "execute_code", {"code": "x"}), ToolError)
        self.assertIn("before it started", failure.value.message)

    def test_endingCallStartsNothing(self):
        run = RunningCall(None, 1, None, None)
        run.why = "cancelled"
        self.failureResultOf(runTemplate(self.gem, "execute_code",
                                         {"code": "x"}, run), ToolError)
        self.assertEqual(self.gem.calls, [])

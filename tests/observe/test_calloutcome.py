"""
Tests for L{gsmcpd.observe.calloutcome}: what a call came to, typed (made
by L{gsmcpd.protocol.recording.outcomeOf}, tested there).
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.calloutcome import COMMITTED_META, NO_ANSWER, CallOutcome


def toolError(**error):
    return CallOutcome("toolError", error.get("kind"), result={
        "isError": True, "structuredContent": {"error": error}})


class CallOutcomeTests(SynchronousTestCase):

    def test_meta(self):
        self.assertEqual(CallOutcome("ok", result={"_meta": {"a": 1}}).meta,
                         {"a": 1})
        self.assertEqual(NO_ANSWER.meta, {})

    def test_commit(self):
        """
        A commit's outcome from its answer; any other tool's from what its
        result's C{_meta} says the stone did.
        """
        self.assertEqual(
            [outcome.commit("commit") for outcome in (
                CallOutcome("ok", result={
                    "structuredContent": {"committed": True}}),
                CallOutcome("ok", result={"structuredContent": {}}),
                toolError(kind="refused", conflicts={}), toolError())],
            ["committed", "failed", "conflict", "failed"])
        self.assertEqual(CallOutcome("error", "deadline", -32001).commit(
            "commit"), "unknown")
        self.assertIsNone(NO_ANSWER.commit("commit"))
        self.assertEqual(
            [CallOutcome("ok", result={"_meta": {COMMITTED_META: value}})
             .commit("execute_code") for value in (True, None)],
            ["committed", "unknown"])
        self.assertIsNone(CallOutcome("ok", result={}).commit("execute_code"))

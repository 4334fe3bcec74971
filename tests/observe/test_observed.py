"""
Tests for L{gsmcpd.observe.observed}: one call's audit lines and metrics,
started and ended by one object.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.audit import AuditLog, CallFacts
from gsmcpd.observe.calloutcome import NO_ANSWER
from gsmcpd.observe.metrics import Metrics
from gsmcpd.observe.observed import CallObserver, CallStart


def facts(**overrides):
    values = dict(tool="commit", arguments={}, identity="alice",
                  user="DataCurator", session=None, handle=None, requestId=1)
    values.update(overrides)
    return CallFacts(**values)


def sample(metrics, name, **labels):
    return metrics.registry.get_sample_value(name, labels) or 0


class CallObserverTests(SynchronousTestCase):

    def setUp(self):
        self.events = []
        self.clock = Clock()
        self.metrics = Metrics("1", processMetrics=False)
        self.observer = CallObserver(
            self.clock, AuditLog(self.events.append, "DataCurator"),
            self.metrics)

    def test_endedReadsTheResult(self):
        """
        A result is read where it is recorded: timed from the start,
        counted, audited with its duration, and the commit it names
        answered.
        """
        call = self.observer.started("commit", facts())
        self.assertEqual(self.metrics.callsRunning, 1)
        self.clock.advance(3)
        committed = call.ended({"content": [], "structuredContent": {
            "committed": True}}, "commit")
        self.assertEqual(committed, "committed")
        self.assertEqual(self.metrics.callsRunning, 0)
        self.assertEqual([event["event"] for event in self.events],
                         ["callStarted", "toolCall", "commit"])
        self.assertEqual(self.events[1]["seconds"], 3)

    def test_endNamesTheSessionItsResultNames(self):
        """
        A call with no work session of its own (C{open_session}) ends
        audited as the session its result names.
        """
        call = self.observer.started("open_session", facts(
            tool="open_session"), namedByResult=True)
        call.ended({"structuredContent": {"session": "0123456789abcdef"}},
                   "open_session")
        self.assertEqual(self.events[-1]["session"], "01234567")

    def test_callStart(self):
        """
        A L{CallStart} starts its call as L{CallObserver.started} would,
        where the call runs.
        """
        call = CallStart(self.observer, "open_session", facts(
            tool="open_session"), namedByResult=True).started()
        self.assertEqual(self.metrics.callsRunning, 1)
        self.assertEqual([event["event"] for event in self.events],
                         ["callStarted"])
        call.ended({"structuredContent": {"session": "0123456789abcdef"}},
                   "open_session")
        self.assertEqual(self.events[-1]["session"], "01234567")

    def test_refusedAfterAll(self):
        """
        A call refused once started is no longer running, and is counted
        and audited as a refusal only.
        """
        call = self.observer.started("execute_code", facts(
            tool="execute_code"))
        call.refused("shareCap")
        self.assertEqual(self.metrics.callsRunning, 0)
        self.assertEqual(sample(self.metrics, "gsmcpd_call_refusals_total",
                                kind="shareCap"), 1)
        self.assertEqual(self.events[-1]["outcome"], "refused:shareCap")

    def test_unaudited(self):
        """
        With no facts, nothing is audited; a typed outcome is taken as it
        is.
        """
        call = self.observer.started("tools/list", None)
        self.assertIsNone(call.ended(NO_ANSWER, None))
        self.assertEqual(self.events, [])

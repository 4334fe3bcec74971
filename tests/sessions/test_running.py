"""
Tests for L{gsmcpd.sessions.running}: a call run on its work session to
its real end, its client answered and its end told apart.
"""

from twisted.internet.defer import CancelledError, Deferred, succeed
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.observe.audit import AuditLog, AuditUnavailable, CallFacts
from gsmcpd.observe.observed import CallObserver, CallStart
from gsmcpd.sessions.breaks import CallState
from gsmcpd.sessions.context import FROM_MEMORY
from gsmcpd.sessions.notes import SESSION_NOTE
from gsmcpd.sessions.running import (
    CANCELLED,
    CallEnded,
    ToolRun,
    WorkCall,
    WorkCalls,
)
from gsmcpd.sessions.shares import (
    CALLS_PER_SESSION,
    FairShares,
    RequestInFlight,
    ShareExhausted,
    Shares,
)
from gsmcpd.sessions.work import WorkSession
from gsmcpd.tools.templates.outcomes import GemGone
from tests.fakes import FakeGem
from tests.tooldoubles import CHANGING


class Session:
    """
    What running a call reads and calls of its work session.
    """

    def __init__(self):
        self.gem = FakeGem()
        self.handle = self.label = "h1"
        self.calls = CallState()
        self.released = []

    def admit(self, run):
        self.calls.running[run.requestId] = run

    def release(self, run):
        self.released.append(run)
        self.calls.running.pop(run.requestId, None)

    def callFor(self, requestId):
        return self.calls.running.get(requestId)

    def inFlight(self):
        return list(self.calls.running.values())

    def callEnding(self):
        self.calls.ended = True


class Registry:
    """
    The replacement, the shares and the closing a L{WorkCalls} uses.
    """

    def __init__(self):
        self.replacement = self
        self.shares = Shares(FairShares(callsPerSession=1))
        self.closed = []
        self.activity = []

    def active(self, work):
        self.activity.append(work)

    def replace(self, session, why):
        pass

    def close(self, handle, reason, code="other"):
        self.closed.append((handle, code))
        return succeed(None)


class WorkCallsTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.session = Session()
        self.registry = Registry()
        self.calls = WorkCalls(self.registry, self.clock, deadline=10)
        self.ends = []

    def start(self, tool, requestId=1):
        running = self.calls.run(WorkCall(self.session, requestId, True,
                                          FROM_MEMORY, tool))
        running.over.addCallback(self.ends.append)
        return running

    def test_activityCounted(self):
        """
        A call counts as its session's activity before it is admitted (a
        refused one too).
        """
        call = WorkCall(self.session, 1, True, FROM_MEMORY,
                        lambda context: Deferred(), True)
        self.calls.run(call)
        self.assertRaises(RequestInFlight, self.calls.run, call)
        self.assertEqual(self.registry.activity, [self.session] * 2)

    def test_toolRunHere(self):
        """
        A L{ToolRun} runs its tool in the call's work session with the
        arguments its era checked, its notes after its answer: no call back
        up for it.
        """
        gem = FakeGem()
        gem.needsCommit = True
        work = WorkSession("h" * 32, gem)
        work.view.notices.append("[view] refreshed")
        running = self.calls.run(WorkCall(
            work, 1, True, FROM_MEMORY,
            ToolRun(CHANGING, {}, lambda tool: {"name": tool.name})))
        result = self.successResultOf(running.answer)
        self.assertEqual([block["text"] for block in result["content"]],
                         ["done", SESSION_NOTE, "[view] refreshed"])
        self.assertEqual(gem.calls[0][0], "execute_code")

    def test_admittedThenObserved(self):
        """
        A call not yet admitted is admitted here, then its observation is
        started (its audit line first), then it runs; its L{Running} holds
        what was observed for its record to end.
        """
        events = []
        start = CallStart(CallObserver(self.clock, AuditLog(
            events.append, "DataCurator")), "execute_code", CallFacts(
                tool="execute_code", arguments={}, identity=None, user=None,
                session="h1", handle="h1", requestId=1))
        running = self.calls.run(WorkCall(
            self.session, 1, True, FROM_MEMORY,
            lambda context: (events.append({"event": "ran"}), {})[1],
            True, None, start))
        self.assertEqual([event["event"] for event in events],
                         ["callStarted", "ran"])
        self.assertEqual(running.observed.callId, events[0]["callId"])

    def test_refusedBeforeAnything(self):
        """
        A request id in flight in its work session, then a call past its
        share, is refused with the sessions layer's own errors before it
        is observed or run; a call admitted already is not asked again.
        """
        ran = []
        self.start(lambda context: Deferred(), requestId=1)

        def call(requestId, admit=True):
            return self.calls.run(WorkCall(
                self.session, requestId, True, FROM_MEMORY, ran.append,
                admit, None, CallStart(self, "execute_code", None)))
        self.assertRaises(RequestInFlight, call, 1)
        exhausted = self.assertRaises(ShareExhausted, call, 2)
        self.assertEqual(exhausted.cap, CALLS_PER_SESSION)
        self.assertEqual(ran, [])
        self.assertRaises(AuditUnavailable, call, 2, False)

    def started(self, name, facts, namedByResult):
        """An observer whose audit trail cannot be written."""
        raise AuditUnavailable("the disk is full")

    def test_answeredThenReleased(self):
        """
        A call's result is its client's answer and its end; it is released
        from its session.
        """
        running = self.start(lambda context: {"content": []})
        self.assertEqual(self.successResultOf(running.answer),
                         {"content": []})
        [end] = self.ends
        self.assertEqual((end.outcome, end.step), ({"content": []}, None))
        self.assertEqual(len(self.session.released), 1)

    def test_deadline(self):
        """
        A call past its deadline is answered with a L{CallEnded} saying so;
        its end says the same.
        """
        late = Deferred()
        running = self.start(lambda context: late)
        self.clock.advance(11)
        late.callback({"isError": True, "content": []})
        failure = self.failureResultOf(running.answer, CallEnded)
        self.assertEqual(failure.value.why, "deadline")
        self.assertIn("10s deadline", failure.value.message)
        self.assertIs(self.ends[0].outcome.value, failure.value)

    def test_cancelled(self):
        """
        A call its client cancels is answered L{CANCELLED} at once and,
        with nothing running on its gem, ends then with no answer; what its
        tool comes to later changes nothing.
        """
        late = Deferred()
        running = self.start(lambda context: late, requestId=4)
        self.calls.cancel(self.session, 4, "changed my mind")
        self.assertIs(self.successResultOf(running.answer), CANCELLED)
        self.assertEqual([end.outcome for end in self.ends], [None])
        late.errback(CancelledError())
        self.assertEqual(len(self.ends), 1)

    def test_clientStopsWaiting(self):
        """
        A client that stops waiting ends the call as a cancellation does:
        answered L{CANCELLED} (nobody reads it), ended with no answer
        (nothing runs on its gem), released.
        """
        late = Deferred()
        running = self.start(lambda context: late, requestId=6)
        running.answer.cancel()
        self.assertIs(self.successResultOf(running.answer), CANCELLED)
        self.assertEqual([end.outcome for end in self.ends], [None])
        self.assertEqual(self.session.released[0].why, "cancelled")

    def test_gemDied(self):
        """
        A call whose gem died ends with its L{GemGone}, its session is
        closed, and then its client is answered the same.
        """
        gone = GemGone(4100, "gem died")
        running = self.start(lambda context: _failed(gone))
        self.assertIs(self.ends[0].outcome.value, gone)
        self.assertEqual(self.registry.closed, [("h1", "gem_died")])
        self.assertIs(self.failureResultOf(running.answer, GemGone).value,
                      gone)


def _failed(error):
    failing = Deferred()
    failing.errback(error)
    return failing


class ContextTests(SynchronousTestCase):

    def test_endedByItsRunningCall(self):
        """
        The tool is handed the call's context with its L{RunningCall} as
        how it is ended.
        """
        session, handed = Session(), []
        WorkCalls(Registry(), Clock()).run(WorkCall(
            session, 2, True, FROM_MEMORY, handed.append))
        [context] = handed
        self.assertIs(context.control, session.released[0])

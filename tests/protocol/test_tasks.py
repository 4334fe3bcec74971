"""
Tasks: long calls answered with a task the client polls.
"""

from twisted.internet.defer import CancelledError, Deferred, inlineCallbacks
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.tokens import Principal
from gsmcpd.protocol.eras.modern import tasks
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.eras.modern.tasks import TaskProgress, TaskStore
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError
from gsmcpd.protocol.versions import MODERN_VERSION


def adopted(store, run):
    """
    Adopt C{run} (called with the task, once there is one) as a task, the
    way a call that did not finish at once becomes one.
    """
    gate, holder = Deferred(), []

    @inlineCallbacks
    def working():
        yield gate
        result = yield run(holder[0])
        return result

    running = working()
    holder.append(store.adopt(running, running.cancel))
    gate.callback(None)
    return holder[0]


RESULT = {"content": [{"type": "text", "text": "3 run, 3 passed"}],
          "isError": False, "resultType": "complete"}


class TaskStoreTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.clock.advance(1_764_547_200)  # 2025-12-01T00:00:00Z
        self.store = TaskStore(self.clock, ttl=600, pollInterval=0.5)
        self.cancelled = []

    def started(self):
        self.working = Deferred()
        return self.store.adopt(self.working,
                                lambda: self.cancelled.append(True))


    def test_ownerOnly(self):
        """
        Another identity's task is answered exactly as an unknown one, and
        cannot be cancelled.
        """
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        alice = Principal("alice", "Alice", frozenset(), 0.0)
        mallory = Principal("mallory", "Mallory", frozenset(), 0.0)
        task = self.store.adopt(Deferred(), lambda: None, alice)
        self.assertIs(self.store.get(task.taskId, alice), task)
        stranger = self.assertRaises(JsonRpcError, self.store.get,
                                     task.taskId, mallory)
        self.store._tasks.pop(task.taskId)
        unknown = self.assertRaises(JsonRpcError, self.store.get,
                                    task.taskId, alice)
        self.assertEqual((stranger.code, stranger.message),
                         (unknown.code, unknown.message))
        # The same steps either way: one refusal line each.
        self.assertEqual([(e["stranger"], e["owner"]) for e in events
                          if "stranger" in e],
                         [("mallory", "alice"), ("alice", None)])

    def test_created(self):
        """
        The creating result is flat: C{resultType: task} and the task's
        fields at the top, integer milliseconds, ISO-8601 times, and nothing
        of a result or C{requestState}.
        """
        task = self.started()
        self.assertEqual(task.created(), {
            "resultType": "task", "taskId": task.taskId, "status": "working",
            "createdAt": "2025-12-01T00:00:00.000Z",
            "lastUpdatedAt": "2025-12-01T00:00:00.000Z",
            "ttlMs": 600_000, "pollIntervalMs": 500})
        self.assertGreaterEqual(len(task.taskId), 32)
        self.assertIs(self.store.get(task.taskId), task)

    def test_completed(self):
        """
        A finished call (even one whose tool reported an error) completes
        the task with its result inlined on C{tasks/get}.
        """
        task = self.started()
        self.clock.advance(2)
        self.working.callback(RESULT)
        detailed = self.store.get(task.taskId).detailed()
        self.assertEqual(detailed["status"], "completed")
        self.assertEqual(detailed["resultType"], "complete")
        self.assertEqual(detailed["result"], RESULT)
        self.assertEqual(detailed["lastUpdatedAt"], "2025-12-01T00:00:02.000Z")
        self.assertNotIn("error", detailed)

    def test_failed(self):
        """
        A call that could not produce a result fails the task with the
        JSON-RPC error inlined and no result.
        """
        task = self.started()
        self.working.errback(
            JsonRpcError(-32001, "The GemStone session ended"))
        detailed = task.detailed()
        self.assertEqual(detailed["status"], "failed")
        self.assertEqual(detailed["error"], {
            "code": -32001, "message": "The GemStone session ended"})
        self.assertNotIn("result", detailed)

    def test_unexpectedFailure(self):
        task = self.started()
        self.working.errback(ZeroDivisionError("boom"))
        self.assertEqual(task.detailed()["error"]["code"], -32603)
        self.assertEqual(len(self.flushLoggedErrors(ZeroDivisionError)), 1)

    def test_cancel(self):
        """
        Cancelling a working task cancels its call (the caller's escalation)
        and settles it as cancelled; cancelling it again, or an ended task,
        changes nothing.
        """
        task = self.started()
        self.store.cancel(task)
        self.assertEqual(self.cancelled, [True])
        self.assertEqual(task.status, "cancelled")
        self.clock.advance(1)
        self.working.errback(CancelledError())
        self.store.cancel(task)
        self.assertEqual(self.cancelled, [True])
        self.assertEqual((task.status, task.lastUpdatedAt),
                         ("cancelled", task.createdAt))
        done = self.started()
        self.working.callback(RESULT)
        self.store.cancel(done)
        self.assertEqual(done.status, "completed")

    def test_unknown(self):
        for taskId in ("nope", None, 7):
            error = self.assertRaises(JsonRpcError, self.store.get, taskId)
            self.assertEqual(error.code, INVALID_PARAMS)

    def test_retention(self):
        """
        An ended task, its result with it, stays readable for the retention
        after it ended, its ttlMs (from creation) saying until when; then
        it is gone.
        """
        task = self.started()
        self.clock.advance(100)
        self.working.callback(RESULT)
        self.assertEqual(task.detailed()["ttlMs"], 700_000)
        self.clock.advance(599)
        self.assertEqual(self.store.get(task.taskId).result, RESULT)
        self.clock.advance(1)
        self.assertRaises(JsonRpcError, self.store.get, task.taskId)
        self.assertEqual((len(self.store), self.cancelled), (0, []))

    def test_workingKept(self):
        """
        A task still working when its retention runs out is kept while it
        works (its call is in flight, under its caller's share), then for
        the retention after it ends.
        """
        task = self.started()
        self.clock.advance(600)
        self.assertEqual(self.store.get(task.taskId).ttlMs, 1_200_000)
        self.clock.advance(300)
        self.working.callback(RESULT)
        self.assertEqual(task.ttlMs, 1_500_000)
        self.clock.advance(599)
        self.store.get(task.taskId)
        self.clock.advance(1)
        self.assertEqual(len(self.store), 0)
        self.assertEqual(self.cancelled, [])

    def test_waitingCancelled(self):
        """
        A task still waiting for answers when its retention runs out is
        cancelled (its client went quiet), readable as such for the
        retention.
        """
        @inlineCallbacks
        def run(task):
            yield self.store.ask(task, {"a": {"method": "x"}})
            return RESULT

        task = adopted(self.store, run)
        self.clock.advance(600)
        self.assertEqual(self.store.get(task.taskId).status, "cancelled")
        self.clock.advance(600)
        self.assertEqual(len(self.store), 0)

    def test_keptPerIdentity(self):
        """
        Of one identity's ended tasks only the newest are kept; its working
        ones, and another identity's, are not crowded out.
        """
        store = TaskStore(self.clock, ttl=600, kept=2)
        ada, bob = (Principal(name, name, frozenset(), 0.0)
                    for name in ("ada", "bob"))
        running = Deferred()
        working = store.adopt(running, lambda: None, ada)
        theirs = store.adopt(Deferred(), lambda: None, bob)
        ended = []
        for _ in range(3):
            d = Deferred()
            ended.append(store.adopt(d, lambda: None, ada))
            d.callback(RESULT)
        self.assertRaises(JsonRpcError, store.get, ended[0].taskId, ada)
        for task in ended[1:] + [working]:
            store.get(task.taskId, ada)
        store.get(theirs.taskId, bob)
        running.callback(RESULT)
        self.assertRaises(JsonRpcError, store.get, ended[1].taskId, ada)
        self.assertEqual(len(store), 3)

    def test_input(self):
        """
        A task parked on two questions is C{input_required} with both; a
        partial answer leaves the other pending; the last resumes the work
        with every answer.
        """
        answers = []

        @inlineCallbacks
        def run(task):
            got = yield self.store.ask(task, {"a": {"method": "x"},
                                              "b": {"method": "y"}})
            answers.append(got)
            return RESULT

        task = adopted(self.store, run)
        self.assertEqual(task.detailed()["inputRequests"],
                         {"a": {"method": "x"}, "b": {"method": "y"}})
        self.store.answer(task, {"a": {"action": "accept"}, "zzz": {}})
        self.assertEqual(task.status, "input_required")
        self.assertEqual(list(task.detailed()["inputRequests"]), ["b"])
        self.store.answer(task, {"b": {"action": "decline"}})
        self.assertEqual(answers, [{"a": {"action": "accept"},
                                    "b": {"action": "decline"}}])
        self.assertEqual(task.status, "completed")

    def test_cancelWhileAsking(self):
        @inlineCallbacks
        def run(task):
            yield self.store.ask(task, {"a": {"method": "x"}})
            return RESULT

        task = adopted(self.store, run)
        self.store.cancel(task)
        self.assertEqual(task.status, "cancelled")
        self.assertNotIn("inputRequests", task.detailed())
        self.flushLoggedErrors(CancelledError)

    def test_cancelUnparksTheQuestion(self):
        """
        Cancelling a task parked on a question fails the question with
        L{CancelledError}, so the call ends (and is recorded) even when its
        own ending cannot reach it: it is in no GemStone call.
        """
        task = self.store.adopt(Deferred(), lambda: None)
        asked = self.store.ask(task, {"a": {"method": "x"}})
        self.store.cancel(task)
        self.failureResultOf(asked, CancelledError)


class RequiresTests(SynchronousTestCase):

    def test_declared(self):
        envelope = Envelope(MODERN_VERSION,
                            {"extensions": {tasks.EXTENSION: {}}})
        self.assertIsNone(tasks.requires(envelope))

    def test_undeclared(self):
        error = tasks.requires(Envelope(MODERN_VERSION, {}))
        self.assertEqual(error.code, -32021)
        self.assertEqual(error.data, {"requiredCapabilities": {
            "extensions": {tasks.EXTENSION: {}}}})


class TaskProgressTests(SynchronousTestCase):

    def test_statusMessage(self):
        """
        Progress reported before the call became a task is dropped; after,
        it is the task's status message.
        """
        clock = Clock()
        store = TaskStore(clock)
        progress = TaskProgress(store)
        self.assertTrue(progress.wantsProgress)
        progress.report(1, 7, "AccountTest>>testDeposit")
        task = store.adopt(Deferred(), lambda: None)
        progress.task = task
        clock.advance(3)
        progress.report(2, 7, "AccountTest>>testWithdraw")
        self.assertEqual(task.detailed()["statusMessage"],
                         "2 of 7: AccountTest>>testWithdraw")
        self.assertEqual(task.lastUpdatedAt, 3)
        progress.report(3)
        self.assertEqual(task.statusMessage, "3")
        progress.post({"method": "notifications/message"})
        progress.closeEarly()

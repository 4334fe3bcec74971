"""
Asking the client in either era.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.jsonrpc import JsonRpcError
from gsmcpd.protocol.eras.modern.asking import ModernAsker, TaskAsker, modernRound
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal
from gsmcpd.protocol.eras.modern.tasks import TaskStore
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.tools.questions import InputRequired, elicitation, sampling
from tests.test_tasks import adopted

CONFIRM = elicitation("Delete Foo?", {"confirm": {"type": "boolean"}})
MODEL = sampling("Name a colour", 10)
YES = {"action": "accept", "content": {"confirm": True}}


class ModernAskerTests(SynchronousTestCase):

    def asker(self, gathered, capabilities=None):
        return ModernAsker(Envelope(MODERN_VERSION, capabilities or {
            "elicitation": {}, "sampling": {}}), gathered)

    def test_firstRoundEnds(self):
        """
        With no answers, the round ends asking every question, carrying what
        it has gathered.
        """
        raised = self.assertRaises(InputRequired, self.asker({}).ask,
                                   {"confirm": CONFIRM})
        self.assertEqual(raised.inputRequests, {"confirm": CONFIRM})
        self.assertEqual(raised.gathered, {})

    def test_answered(self):
        answers = self.successResultOf(
            self.asker({"confirm": YES, "other": {}}).ask(
                {"confirm": CONFIRM}))
        self.assertEqual(answers, {"confirm": YES})

    def test_partlyAnswered(self):
        """
        Only the unanswered questions are asked again; the answered ones
        ride along in the state.
        """
        raised = self.assertRaises(
            InputRequired, self.asker({"confirm": YES}).ask,
            {"confirm": CONFIRM, "model": MODEL})
        self.assertEqual(raised.inputRequests, {"model": MODEL})
        self.assertEqual(raised.gathered, {"confirm": YES})

    def test_undeclaredCapability(self):
        """
        A question the client cannot answer is C{-32021}, not a question.
        """
        asker = self.asker({}, {"sampling": {}})
        self.assertFalse(asker.canAsk("elicitation"))
        error = self.assertRaises(JsonRpcError, asker.ask,
                                  {"confirm": CONFIRM})
        self.assertEqual(error.data, {"requiredCapabilities":
                                      {"elicitation": {}}})


class ModernRoundTests(SynchronousTestCase):

    def setUp(self):
        self.seal = RequestStateSeal(Clock())
        self.envelope = Envelope(MODERN_VERSION, {"elicitation": {}})

    @inlineCallbacks
    def twoSteps(self, asker):
        first = yield asker.ask({"step1": elicitation("Name?", {})})
        second = yield asker.ask({"step2": elicitation("Colour?", {})})
        return {"content": [{"type": "text", "text": repr(
            (first["step1"]["content"], second["step2"]["content"]))}]}

    def round(self, params):
        return self.successResultOf(modernRound(
            self.seal, self.envelope, "tools/call", params, self.twoSteps))

    def test_multiRound(self):
        """
        Each round asks what is still missing and carries earlier answers
        in sealed state; the last completes with all of them.
        """
        call = {"name": "t", "arguments": {}}
        first = self.round(call)
        self.assertEqual((first["resultType"], list(first["inputRequests"])),
                         ("input_required", ["step1"]))
        second = self.round(dict(call, requestState=first["requestState"],
                                 inputResponses={"step1": {
                                     "action": "accept",
                                     "content": {"name": "Ann"}}}))
        self.assertEqual(list(second["inputRequests"]), ["step2"])
        done = self.round(dict(call, requestState=second["requestState"],
                               inputResponses={"step2": {
                                   "action": "accept",
                                   "content": {"colour": "red"}}}))
        self.assertEqual(done["resultType"], "complete")
        self.assertEqual(done["content"][0]["text"],
                         repr(({"name": "Ann"}, {"colour": "red"})))

    def test_tamperedState(self):
        call = {"name": "t", "arguments": {}}
        first = self.round(call)
        failure = self.failureResultOf(modernRound(
            self.seal, self.envelope, "tools/call",
            dict(call, requestState=first["requestState"] + "x"),
            self.twoSteps), JsonRpcError)
        self.assertEqual(failure.value.code, -32602)


class TaskAskerTests(SynchronousTestCase):

    def test_parksTheTask(self):
        """
        A task that asks waits input-required; answers delivered through
        the store resume it; earlier answers are not asked again.
        """
        store = TaskStore(Clock())
        envelope = Envelope(MODERN_VERSION, {"elicitation": {}})
        seen = []

        @inlineCallbacks
        def run(task):
            asker = TaskAsker(store, task, envelope, {"name": YES})
            seen.append((yield asker.ask({"name": CONFIRM,
                                          "confirm": CONFIRM})))
            return {"content": []}

        task = adopted(store, run)
        self.assertEqual(list(task.detailed()["inputRequests"]), ["confirm"])
        store.answer(task, {"confirm": YES})
        self.assertEqual(seen, [{"name": YES, "confirm": YES}])
        self.assertEqual(task.status, "completed")

    def test_undeclared(self):
        store = TaskStore(Clock())
        task = adopted(store, lambda task: TaskAsker(
            store, task, Envelope(MODERN_VERSION, {})).ask(
                {"confirm": CONFIRM}))
        self.assertEqual(task.status, "failed")
        self.assertEqual(task.error["code"], -32021)

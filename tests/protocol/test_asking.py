"""
Asking the client in either era.
"""

from twisted.internet.defer import inlineCallbacks
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern import asking
from gsmcpd.protocol.eras.modern.asking import (
    ModernAsker,
    bound,
    gatheredFrom,
    modernRound,
)
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal
from gsmcpd.protocol.eras.modern.tasks import TaskStore
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.tools import questions
from gsmcpd.tools.confirm import question
from gsmcpd.tools.questions import InputRequired, elicitation, sampling
from tests.protocol.test_tasks import adopted

CONFIRM = elicitation("Delete Foo?", {"confirm": {"type": "boolean"}})
MODEL = sampling("Name a colour", 10)
YES = {"action": "accept", "content": {"confirm": True}}


class ModernAskerTests(SynchronousTestCase):

    def asker(self, answers, capabilities=None):
        """
        An asker holding C{answers} sent unasked (as in a stateless
        exchange).
        """
        return ModernAsker(Envelope(MODERN_VERSION, capabilities or {
            "elicitation": {}, "sampling": {}}), gatheredFrom(None, answers))

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
        self.assertEqual(raised.gathered,
                         {"confirm": {"question": None, "answer": YES}})

    def test_boundQuestionNeedsItsOwnAnswer(self):
        """
        A confirmation (a bound question) is answered only by an answer
        bound to that very question: one sent unasked, or given to another
        question under the same key, is no answer to it.
        """
        confirm = question("Delete the class Foo and its 3 methods?")
        other = question("Delete the class Bar and its 9 methods?")
        for gathered in (gatheredFrom(None, {"confirm": YES}),
                         {"confirm": bound(other, YES)}):
            asker = ModernAsker(Envelope(MODERN_VERSION, {"elicitation": {}}),
                                gathered)
            raised = self.assertRaises(InputRequired, asker.ask,
                                       {"confirm": confirm})
            self.assertEqual(raised.inputRequests, {"confirm": confirm})
        asker = ModernAsker(Envelope(MODERN_VERSION, {"elicitation": {}}),
                            {"confirm": bound(confirm, YES)})
        self.assertEqual(self.successResultOf(asker.ask(
            {"confirm": confirm})), {"confirm": YES})

    def test_changedQuestionAskedAgain(self):
        """
        An ordinary question asked again, changed, is asked anew rather
        than answered by the answer to what it was.
        """
        asker = ModernAsker(Envelope(MODERN_VERSION, {"sampling": {}}),
                            {"model": bound(CONFIRM, YES)})
        raised = self.assertRaises(InputRequired, asker.ask,
                                   {"model": MODEL})
        self.assertEqual(raised.inputRequests, {"model": MODEL})

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
        self.assertEqual(failure.value.data, {"kind": "tamperedState"})


class ConfirmationTests(SynchronousTestCase):
    """
    A confirmation answered in input-required rounds is bound to the
    question it answers, in the round that asked it.
    """

    def setUp(self):
        self.seal = RequestStateSeal(Clock())
        self.envelope = Envelope(MODERN_VERSION, {"elicitation": {}})
        self.done = []

    def confirmThenAsk(self, asker):
        """
        Confirm, then ask one more question: a tool that asks in two
        rounds, the first a confirmation.
        """
        @inlineCallbacks
        def run():
            yield asker.ask({"confirm": question("Commit 2 changes?")})
            answers = yield asker.ask({"note": elicitation("Note?", {})})
            self.done.append(answers)
            return {"content": []}
        return run()

    def round(self, params):
        return modernRound(self.seal, self.envelope, "tools/call", params,
                           self.confirmThenAsk)

    def answered(self, params, state, answer=YES):
        return dict(params, requestState=state["requestState"],
                    inputResponses={"confirm": answer})

    def test_normalFlow(self):
        call = {"name": "commit", "arguments": {"session": "h1"}}
        first = self.successResultOf(self.round(call))
        self.assertEqual(list(first["inputRequests"]), ["confirm"])
        second = self.successResultOf(self.round(self.answered(call, first)))
        self.assertEqual(list(second["inputRequests"]), ["note"])
        done = self.successResultOf(self.round(dict(
            call, requestState=second["requestState"],
            inputResponses={"note": YES})))
        self.assertEqual(done["resultType"], "complete")
        self.assertEqual(self.done, [{"note": YES}])

    def test_unaskedConfirmationAskedAgain(self):
        """
        A confirmation sent with no state (nothing asked it) confirms
        nothing: it is asked.
        """
        call = {"name": "commit", "arguments": {"session": "h1"},
                "inputResponses": {"confirm": YES}}
        result = self.successResultOf(self.round(call))
        self.assertEqual(list(result["inputRequests"]), ["confirm"])

    def test_replayedRoundRefused(self):
        """
        An earlier round's confirmation, sent again with its state (the
        same call repeated later, or a round replayed), is refused as
        tampered state.
        """
        call = {"name": "commit", "arguments": {"session": "h1"}}
        first = self.successResultOf(self.round(call))
        self.successResultOf(self.round(self.answered(call, first)))
        failure = self.failureResultOf(
            self.round(self.answered(call, first)), JsonRpcError)
        self.assertEqual(failure.value.data, {"kind": "tamperedState"})
        self.assertIn("already used", failure.value.message)

    def test_transplantedRefused(self):
        """
        A confirmation moved, with its state, to another call (another
        session's commit) is refused as tampered state.
        """
        mine = {"name": "commit", "arguments": {"session": "h1"}}
        theirs = {"name": "commit", "arguments": {"session": "h2"}}
        first = self.successResultOf(self.round(mine))
        failure = self.failureResultOf(
            self.round(self.answered(theirs, first)), JsonRpcError)
        self.assertEqual(failure.value.data, {"kind": "tamperedState"})
        self.assertEqual(self.done, [])

    def test_confirmationCarriedBound(self):
        """
        The confirmation rides along in the next round's state bound to
        its question: an unasked answer under its key in a later round
        does not replace it.
        """
        call = {"name": "commit", "arguments": {"session": "h1"}}
        first = self.successResultOf(self.round(call))
        second = self.successResultOf(self.round(self.answered(call, first)))
        no = {"action": "decline"}
        state = self.seal.open("tools/call", dict(
            call, requestState=self.successResultOf(self.round(dict(
                call, requestState=second["requestState"],
                inputResponses={"confirm": no})))["requestState"]))
        self.assertEqual(state["answers"]["confirm"]["answer"], YES)
        self.assertEqual(list(state["asked"]), ["note"])


class InATaskTests(SynchronousTestCase):

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
            asker = ModernAsker(envelope, gatheredFrom(None, {"name": YES}))
            asker.becameTask(store, task)
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
        asker = ModernAsker(Envelope(MODERN_VERSION, {}), {})
        task = adopted(store, lambda task: (asker.becameTask(store, task),
                                            asker.ask({"confirm": CONFIRM}))[1])
        self.assertEqual(task.status, "failed")
        self.assertEqual(task.error["code"], -32021)


class InputRequiredTests(SynchronousTestCase):

    def test_result(self):
        confirm = questions.elicitation(
            "Delete class Foo and its 14 methods?",
            {"confirm": {"type": "boolean"}}, required=["confirm"])
        self.assertEqual(
            asking.inputRequired("tools/call", {"confirm": confirm},
                                        "sealed"),
            {"resultType": "input_required",
             "inputRequests": {"confirm": {
                 "method": "elicitation/create",
                 "params": {"mode": "form",
                            "message": "Delete class Foo and its 14 methods?",
                            "requestedSchema": {
                                "type": "object",
                                "properties": {"confirm": {"type": "boolean"}},
                                "required": ["confirm"]}}}},
             "requestState": "sealed"})

    def test_onlyOnSomeMethods(self):
        """
        Lists never answer input_required.
        """
        for method in ("tools/call", "prompts/get", "resources/read",
                       "tasks/result"):
            asking.inputRequired(method, {})
        self.assertRaises(ValueError, asking.inputRequired,
                          "tools/list", {})

    def test_inputResponses(self):
        self.assertEqual(asking.inputResponses({}), {})
        answers = {"confirm": {"action": "accept", "content": {"ok": True}},
                   "extra": {"action": "accept"}}
        self.assertEqual(
            asking.inputResponses({"inputResponses": answers}),
            answers)

    def test_malformedInputResponses(self):
        for bad in (None, [], {"confirm": 12345}, {"confirm": "yes"}):
            error = self.assertRaises(JsonRpcError,
                                      asking.inputResponses,
                                      {"inputResponses": bad})
            self.assertEqual(error.code, INVALID_PARAMS)

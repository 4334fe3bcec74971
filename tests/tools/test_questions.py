"""
The questions a tool asks the client, and asking them the 2025 way.
"""

from twisted.internet.defer import Deferred, fail, succeed
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.tools.questions import (
    NULL_ASKER,
    IAsker,
    accepted,
    askEach,
    elicitation,
    roots,
    sampling,
)
from gsmcpd.tools.templates.outcomes import ToolError

CONFIRM = elicitation("Delete Foo?", {"confirm": {"type": "boolean"}})
MODEL = sampling("Name a colour", 10)


class QuestionTests(SynchronousTestCase):

    def test_shapes(self):
        self.assertEqual(CONFIRM["params"]["mode"], "form")
        self.assertEqual(roots(), {"method": "roots/list", "params": {}})
        self.assertEqual(MODEL["params"]["maxTokens"], 10)

    def test_accepted(self):
        self.assertEqual(accepted(
            {"action": "accept", "content": {"ok": True}}), {"ok": True})
        self.assertEqual(accepted({"action": "accept"}), {})
        for answer in (None, {"action": "decline"}, {"action": "cancel"},
                       {"roots": []}):
            self.assertIsNone(accepted(answer))


class AskEachTests(SynchronousTestCase):

    def test_sentOnTheStream(self):
        sent = []

        def send(method, params):
            sent.append((method, params))
            return succeed({"n": len(sent)})

        answers = self.successResultOf(
            askEach(send, {"a": CONFIRM, "b": MODEL}))
        self.assertEqual(answers, {"a": {"n": 1}, "b": {"n": 2}})
        self.assertEqual(sent, [("elicitation/create", CONFIRM["params"]),
                                ("sampling/createMessage", MODEL["params"])])

    def test_failure(self):
        """
        A question that fails fails the ask, as a tool error naming it.
        """
        pending = Deferred()
        failure = self.failureResultOf(askEach(
            lambda method, params: pending
            if method == "sampling/createMessage"
            else fail(ValueError("no answer")), {"a": CONFIRM, "b": MODEL}),
            ToolError)
        self.assertEqual(failure.value.message,
                         "elicitation/create failed: no answer")
        pending.callback({})


class NullAskerTests(SynchronousTestCase):
    """
    A request that cannot ask its client anything says so.
    """

    def test_cannotAsk(self):
        self.assertTrue(verifyObject(IAsker, NULL_ASKER))
        self.assertFalse(NULL_ASKER.canAsk("elicitation"))
        error = self.assertRaises(ToolError, NULL_ASKER.ask,
                                  {"who": elicitation("Who?", {})})
        self.assertEqual(error.kind, "refused")

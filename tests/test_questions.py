"""
The questions a tool asks the client, and asking them the 2025 way.
"""

from twisted.internet.defer import Deferred, fail, succeed
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.questions import (
    StreamAsker, accepted, askEach, elicitation, roots, sampling)
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


class StreamAskerTests(SynchronousTestCase):
    """
    Asking on the call's stream: what the client's session declared says
    what it can answer, and each question is one request.
    """

    def test_canAskByTheSessionsCapabilities(self):
        class Client:
            clientCapabilities = {"elicitation": {}, "sampling": True}
        asker = StreamAsker(None, Client())
        self.assertTrue(asker.canAsk("elicitation"))
        self.assertFalse(asker.canAsk("sampling"))
        self.assertFalse(asker.canAsk("roots"))

    def test_askSendsEach(self):
        sent = []

        def send(method, params):
            sent.append(method)
            return succeed({"answered": method})
        answers = self.successResultOf(StreamAsker(send, None).ask(
            {"who": elicitation("Who?", {"name": {"type": "string"}}),
             "roots": roots()}))
        self.assertEqual(sorted(sent), ["elicitation/create", "roots/list"])
        self.assertEqual(answers["roots"], {"answered": "roots/list"})

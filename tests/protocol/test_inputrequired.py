"""
Input-required results: the questions, which may be asked, the answers.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern import inputrequired
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.tools import questions


class InputRequiredTests(SynchronousTestCase):

    def test_result(self):
        confirm = questions.elicitation(
            "Delete class Foo and its 14 methods?",
            {"confirm": {"type": "boolean"}}, required=["confirm"])
        self.assertEqual(
            inputrequired.inputRequired("tools/call", {"confirm": confirm},
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
            inputrequired.inputRequired(method, {})
        self.assertRaises(ValueError, inputrequired.inputRequired,
                          "tools/list", {})

    def test_askable(self):
        """
        Only questions the request's client declared it can answer.
        """
        asked = {"user": questions.elicitation("Name?", {}),
                 "model": questions.sampling("Summarize", 100),
                 "roots": questions.roots()}
        envelope = Envelope(MODERN_VERSION, {"sampling": {}})
        self.assertEqual(list(inputrequired.askable(envelope, asked)),
                         ["model"])

    def test_inputResponses(self):
        self.assertEqual(inputrequired.inputResponses({}), {})
        answers = {"confirm": {"action": "accept", "content": {"ok": True}},
                   "extra": {"action": "accept"}}
        self.assertEqual(
            inputrequired.inputResponses({"inputResponses": answers}),
            answers)

    def test_malformedInputResponses(self):
        for bad in (None, [], {"confirm": 12345}, {"confirm": "yes"}):
            error = self.assertRaises(JsonRpcError,
                                      inputrequired.inputResponses,
                                      {"inputResponses": bad})
            self.assertEqual(error.code, INVALID_PARAMS)

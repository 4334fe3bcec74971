"""
Input-required results: the questions, which may be asked, the answers.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern import inputrequired
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError
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

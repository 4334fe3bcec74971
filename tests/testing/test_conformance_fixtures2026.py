"""
The 2026 conformance fixtures, driven round by round as a 2026 client
drives them.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern.asking import modernRound
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal
from gsmcpd.protocol.jsonrpc import JsonRpcError
from gsmcpd.protocol.versions import MODERN_VERSION
from gsmcpd.testing.conformance import fixtures2026

ALL = {"elicitation": {}, "sampling": {}, "roots": {}}
ANSWERS = {
    "elicitation/create": {"action": "accept", "content": {
        "name": "Alice", "ok": True, "color": "blue", "context": "ctx"}},
    "sampling/createMessage": {"role": "assistant", "model": "m",
                               "content": {"type": "text", "text": "Paris"}},
    "roots/list": {"roots": [{"uri": "file:///work"}]},
}


def rendered(result):
    return {"content": [{"type": "text", "text": result.text}]}


class AskingCall:
    """
    The part of a tool call the fixtures use: asking, through the round's
    asker.
    """

    def __init__(self, asker):
        self.ask = asker.ask
        self.canAsk = asker.canAsk


class FixtureTests(SynchronousTestCase):

    def setUp(self):
        self.seal = RequestStateSeal(Clock())
        self.fixtures = dict(fixtures2026.TOOLS)

    def round(self, name, params, capabilities=ALL):
        return self.successResultOf(modernRound(
            self.seal, Envelope(MODERN_VERSION, capabilities), "tools/call",
            dict(params, name=name, arguments={}),
            lambda asker: self.fixtures[name](AskingCall(asker), {})
            .addCallback(rendered)))

    def answered(self, name, capabilities=ALL):
        """
        Drive a fixture to its result, answering every question as a client
        would; the rounds it took and its text.
        """
        params, rounds = {}, 0
        while True:
            rounds += 1
            result = self.round(name, params, capabilities)
            if result.get("resultType") != "input_required":
                return rounds, result
            params = {"requestState": result["requestState"],
                      "inputResponses": {
                          key: ANSWERS[request["method"]]
                          for key, request in result["inputRequests"].items()}}

    def test_rounds(self):
        """
        Each fixture asks, then finishes with what it was told.
        """
        expected = {
            "test_input_required_result_elicitation": (2, "Hello, Alice!"),
            "test_input_required_result_sampling": (
                2, "The model said: Paris"),
            "test_input_required_result_list_roots": (
                2, "Client roots: file:///work"),
            "test_input_required_result_request_state": (
                2, "state-ok: confirmed=true"),
            "test_input_required_result_multiple_inputs": (
                2, "Paris Alice (1 roots)"),
            "test_input_required_result_multi_round": (3, "Alice likes blue"),
            "test_input_required_result_capabilities": (
                2, "Answered: capital_question, user_name"),
        }
        for name, (rounds, text) in expected.items():
            taken, result = self.answered(name)
            self.assertEqual((taken, result["content"][0]["text"]),
                             (rounds, text), name)

    def test_firstRoundShapes(self):
        first = self.round("test_input_required_result_elicitation", {})
        self.assertEqual(first["inputRequests"]["user_name"]["method"],
                         "elicitation/create")
        multiple = self.round("test_input_required_result_multiple_inputs", {})
        self.assertEqual(sorted(multiple["inputRequests"]),
                         ["client_roots", "greeting", "user_name"])

    def test_onlyAskableQuestions(self):
        """
        A client that declared sampling alone is asked only the sampling
        question.
        """
        first = self.round("test_input_required_result_capabilities", {},
                           {"sampling": {}})
        self.assertEqual(list(first["inputRequests"]), ["capital_question"])

    def test_missingCapability(self):
        failure = self.failureResultOf(modernRound(
            self.seal, Envelope(MODERN_VERSION, {}), "tools/call",
            {"name": "test_missing_capability", "arguments": {}},
            lambda asker: fixtures2026.needSampling(AskingCall(asker), {})),
            JsonRpcError)
        self.assertEqual(failure.value.code, -32021)

    def test_answeredInTheFirstRound(self):
        """
        Answers sent before being asked, with keys nobody asked beside them,
        complete the call at once.
        """
        result = self.round("test_input_required_result_elicitation", {
            "inputResponses": {"user_name": ANSWERS["elicitation/create"],
                               "unknown_extra_key": {"action": "accept"}}})
        self.assertEqual(result["content"][0]["text"], "Hello, Alice!")

    def test_prompt(self):
        [(name, prompt)] = fixtures2026.PROMPTS
        result = self.successResultOf(modernRound(
            self.seal, Envelope(MODERN_VERSION, ALL), "prompts/get",
            {"name": name}, lambda asker: prompt({}, asker).addCallback(
                lambda messages: {"messages": messages})))
        self.assertEqual(list(result["inputRequests"]), ["user_context"])

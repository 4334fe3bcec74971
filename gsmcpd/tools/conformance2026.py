"""
The conformance fixtures the 2026-07-28 scenarios call: tools that ask the
client (input-required results in that era, requests on the call's stream
in 2025), and one that needs a capability the client may not declare.

They ask through C{call.ask} and C{call.canAsk} only, so they run
unchanged in either era (see L{gsmcpd.protocol.asking}); the
C{conformance} toolset serves them beside the 2025 fixtures.
"""

import json

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.questions import accepted, elicitation, roots, sampling
from gsmcpd.tools.base import ToolResult

NAME = elicitation("What is your name?", {"name": {"type": "string"}},
                   required=["name"])
CAPITAL = sampling("What is the capital of France?", 100)
GREETING = sampling("Generate a greeting", 50)
CONFIRM = elicitation("Please confirm", {"ok": {"type": "boolean"}},
                      required=["ok"])
COLOUR = elicitation("Step 2: What is your favorite color?",
                     {"color": {"type": "string"}}, required=["color"])
STEP1 = elicitation("Step 1: What is your name?",
                    {"name": {"type": "string"}}, required=["name"])
CONTEXT = elicitation("What context should the prompt use?",
                      {"context": {"type": "string"}}, required=["context"])


def _said(answer):
    """
    The text of a sampling answer.
    """
    content = (answer or {}).get("content", {})
    if isinstance(content, list):
        content = content[0] if content else {}
    return content.get("text", "") if isinstance(content, dict) else ""


def _named(answer, field, otherwise="stranger"):
    return (accepted(answer) or {}).get(field, otherwise)


@inlineCallbacks
def greetByName(call, arguments):
    answers = yield call.ask({"user_name": NAME})
    return ToolResult(f"Hello, {_named(answers['user_name'], 'name')}!")


@inlineCallbacks
def askTheModel(call, arguments):
    answers = yield call.ask({"capital_question": CAPITAL})
    return ToolResult(f"The model said: {_said(answers['capital_question'])}")


@inlineCallbacks
def listRoots(call, arguments):
    answers = yield call.ask({"client_roots": roots()})
    uris = [root.get("uri") for root in
            answers["client_roots"].get("roots", [])]
    return ToolResult(f"Client roots: {', '.join(map(str, uris)) or 'none'}")


@inlineCallbacks
def confirmWithState(call, arguments):
    answers = yield call.ask({"confirm": CONFIRM})
    ok = (accepted(answers["confirm"]) or {}).get("ok")
    return ToolResult(f"state-ok: confirmed={json.dumps(ok)}")


@inlineCallbacks
def askThreeThings(call, arguments):
    answers = yield call.ask({"user_name": NAME, "greeting": GREETING,
                              "client_roots": roots()})
    return ToolResult(
        f"{_said(answers['greeting'])} {_named(answers['user_name'], 'name')}"
        f" ({len(answers['client_roots'].get('roots', []))} roots)")


@inlineCallbacks
def askInTwoRounds(call, arguments):
    first = yield call.ask({"step1": STEP1})
    second = yield call.ask({"step2": COLOUR})
    return ToolResult(f"{_named(first['step1'], 'name')} likes "
                      f"{_named(second['step2'], 'color', 'no colour')}")


@inlineCallbacks
def askOnlyWhatCanBeAnswered(call, arguments):
    """
    Elicitation and sampling, each only if the client can answer it.
    """
    questions = {key: question for key, question, capability in (
        ("user_name", NAME, "elicitation"),
        ("capital_question", CAPITAL, "sampling"))
        if call.canAsk(capability)}
    answers = (yield call.ask(questions)) if questions else {}
    return ToolResult(f"Answered: {', '.join(sorted(answers)) or 'nothing'}")


@inlineCallbacks
def needSampling(call, arguments):
    """
    Relies on sampling: refused (C{-32021}) to a client that did not declare
    it.
    """
    answers = yield call.ask({"sample": sampling("Say hello", 20)})
    return ToolResult(f"The model said: {_said(answers['sample'])}")


@inlineCallbacks
def contextPrompt(asker, arguments):
    """
    The prompt that asks before it answers (a prompt, not a tool: input
    required is not only for tools).
    """
    answers = yield asker.ask({"user_context": CONTEXT})
    context = _named(answers["user_context"], "context", "none")
    return [{"role": "user", "content": {
        "type": "text", "text": f"Answer with this context: {context}"}}]


TOOLS = (
    ("test_input_required_result_elicitation", greetByName),
    ("test_input_required_result_sampling", askTheModel),
    ("test_input_required_result_list_roots", listRoots),
    ("test_input_required_result_request_state", confirmWithState),
    ("test_input_required_result_tampered_state", confirmWithState),
    ("test_input_required_result_multiple_inputs", askThreeThings),
    ("test_input_required_result_multi_round", askInTwoRounds),
    ("test_input_required_result_capabilities", askOnlyWhatCanBeAnswered),
    ("test_streaming_elicitation", greetByName),
    ("test_missing_capability", needSampling),
)
"""Each fixture tool's name and run."""
PROMPTS = (("test_input_required_result_prompt", contextPrompt),)

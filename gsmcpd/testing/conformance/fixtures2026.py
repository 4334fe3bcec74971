"""
The conformance fixtures the 2026-07-28 scenarios call: tools that ask the
client (input-required results in that era, requests on the call's stream
in 2025), one that needs a capability the client may not declare, and the
tasks extension's jobs.

They ask through C{call.ask} and C{call.canAsk} only, so they run
unchanged in either era (see L{gsmcpd.protocol.eras.modern.asking}); the
conformance toolset serves them beside the 2025 fixtures.
"""

import json

from twisted.internet.defer import inlineCallbacks
from twisted.internet.task import deferLater

from gsmcpd.tools.base import ToolResult, closedSchema
from gsmcpd.tools.questions import accepted, elicitation, roots, sampling
from gsmcpd.tools.templates.outcomes import ToolError

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
def contextPrompt(arguments, context):
    """
    The prompt that asks before it answers (a prompt, not a tool: input
    required is not only for tools).
    """
    answers = yield context.ask({"user_context": CONTEXT})
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


class TaskFixtures:
    """
    The tasks extension's fixtures: jobs that take a while, fail, crash or
    ask, each becoming a task for a client that takes tasks.  They pace
    themselves on the call's own clock.
    """

    @staticmethod
    def _pause(call, seconds=0.0):
        return deferLater(call.clock, seconds, lambda: None)

    def greet(self, call, arguments):
        return ToolResult(f"Hello, {arguments.get('name', 'World')}!")

    @inlineCallbacks
    def slowCompute(self, call, arguments):
        seconds = arguments.get("seconds", 1)
        yield self._pause(call, seconds)
        return ToolResult(f"Computed {arguments.get('label', 'it')} in "
                          f"{seconds:g}s")

    @inlineCallbacks
    def failingJob(self, call, arguments):
        yield self._pause(call, 1.0)
        raise ToolError("other", "The job failed, as it always does.")

    @inlineCallbacks
    def protocolErrorJob(self, call, arguments):
        yield self._pause(call, 0.2)
        raise RuntimeError("the job crashed")

    @inlineCallbacks
    def confirmDelete(self, call, arguments):
        yield self._pause(call)
        answers = yield call.ask({"confirm": CONFIRM})
        ok = (accepted(answers["confirm"]) or {}).get("ok")
        return ToolResult("Deleted." if ok else "Kept.")

    @inlineCallbacks
    def multiInput(self, call, arguments):
        yield self._pause(call)
        answers = yield call.ask({"user_name": NAME, "color": COLOUR})
        return ToolResult(f"{_named(answers['user_name'], 'name')} likes "
                          f"{_named(answers['color'], 'color', 'no colour')}")

    @inlineCallbacks
    def greetAsTask(self, call, arguments):
        """
        Asks first (input-required rounds), then works as a task.
        """
        answers = yield call.ask({"user_name": NAME})
        yield self._pause(call, 0.2)
        return ToolResult(f"Hello, {_named(answers['user_name'], 'name')}, "
                          "from a task!")

    def tools(self):
        """
        C{(name, run, schema, taskSupport)} for each.
        """
        return [
            ("greet", self.greet,
             closedSchema({"name": {"type": "string"}}), None),
            ("slow_compute", self.slowCompute,
             closedSchema({"seconds": {"type": "number", "minimum": 0},
                           "label": {"type": "string"}}), "optional"),
            ("failing_job", self.failingJob, closedSchema(), "required"),
            ("protocol_error_job", self.protocolErrorJob, closedSchema(),
             "optional"),
            ("confirm_delete", self.confirmDelete,
             closedSchema({"filename": {"type": "string"}}), "optional"),
            ("multi_input", self.multiInput, closedSchema(), "optional"),
            ("test_tool_with_task", self.greetAsTask, closedSchema(),
             "required"),
        ]

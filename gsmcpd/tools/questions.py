"""
What a tool may ask the client while it runs: a person (elicitation), the
client's model (sampling) or the client itself (its roots).

A tool builds its questions here and asks them through its call
(C{call.ask({key: question})}); how they travel depends on the protocol
era, which the tool never sees (L{gsmcpd.sessions.outbound},
L{gsmcpd.protocol.eras.modern.asking}).
"""

from collections.abc import Callable, Iterable
from typing import Any, cast

from twisted.internet.defer import (
    Deferred,
    FirstError,
    gatherResults,
    maybeDeferred,
)
from twisted.python.failure import Failure
from zope.interface import Interface, implementer

from gsmcpd.tools.templates.outcomes import ToolError

CAPABILITY = {"elicitation/create": "elicitation",
              "sampling/createMessage": "sampling",
              "roots/list": "roots"}
"""The client capability each kind of question needs."""

Question = dict[str, Any]
"""A request to the client: its C{method} and C{params}."""


def elicitation(message: str, properties: dict[str, Any],
                required: Iterable[str] = ()) -> Question:
    """
    A question for the user: a form of flat, primitive fields.
    """
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return {"method": "elicitation/create",
            "params": {"mode": "form", "message": message,
                       "requestedSchema": schema}}


class BoundQuestion(dict[str, Any]):
    """
    A question whose answer counts only from the exchange that asked it:
    a confirmation of destructive work.  On the wire it is the question
    itself; in the 2026 era its answer is taken only under the sealed
    C{requestState} of the round that asked this very question, never from
    a request without one (where another question's answer may come
    unasked, as SEP-2322 allows), from an earlier round or from another
    call.
    """


def sampling(text: str, maxTokens: int) -> Question:
    """
    A question for the client's model: one user message.
    """
    return {"method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {
                "type": "text", "text": text}}],
                       "maxTokens": maxTokens}}


def roots() -> Question:
    """
    A request for the client's roots.
    """
    return {"method": "roots/list", "params": {}}


def accepted(answer: dict[str, Any] | None) -> dict[str, Any] | None:
    """
    The content of an accepted elicitation answer, or L{None} when the user
    declined, cancelled, or the answer is not an elicitation's.
    """
    if answer is None or answer.get("action") != "accept":
        return None
    content = answer.get("content")
    return content if isinstance(content, dict) else {}


class IAsker(Interface):
    """
    One way of asking the client during a call: on the call's own stream
    (L{gsmcpd.sessions.outbound}), as an input-required round,
    or from inside a task (L{gsmcpd.protocol.eras.modern.asking}).
    """

    def canAsk(capability: str) -> bool:
        """
        Whether the client declared C{capability}, so it can answer such a
        question.
        """

    def ask(questions: dict[str, Any]) -> Deferred[dict[str, Any]]:
        """
        Ask C{questions} (by key); a L{Deferred} of the answers by key.
        """


@implementer(IAsker)
class NullAsker:
    """
    The way of asking of a request that cannot ask its client anything.
    """

    def canAsk(self, capability: str) -> bool:
        return False

    def ask(self, questions: dict[str, Any]) -> Deferred[dict[str, Any]]:
        raise ToolError("refused", "this call cannot ask the client "
                        "anything")


NULL_ASKER = NullAsker()


def askEach(send: Callable[[str, dict[str, Any]], Deferred[Any]],
            questions: dict[str, Question]) -> Deferred[dict[str, Any]]:
    """
    Ask each question with C{send} (a request to the client on the call's
    stream, the 2025 way) and gather the answers.

    @param send: C{(method, params) -> Deferred} of the client's answer.
    @return: a L{Deferred} of the answers by key.
    @raise ToolError: through the L{Deferred}, when the client could not be
        asked or did not answer.
    """
    keys = list(questions)
    methods = [questions[key]["method"] for key in keys]

    def failed(failure: Failure) -> None:
        first = cast(FirstError, failure.value)  # gatherResults's failure
        raise ToolError("other", f"{methods[first.index]} failed: "
                        f"{first.subFailure.getErrorMessage()}")

    asked = gatherResults(
        [maybeDeferred(send, method, questions[key]["params"])
         for key, method in zip(keys, methods, strict=True)],
        consumeErrors=True)
    asked.addErrback(failed)
    return asked.addCallback(
        lambda answers: dict(zip(keys, answers, strict=True)))


class InputRequired(Exception):
    """
    A question that cannot be answered in this round: a 2026-era request
    ends here with an input-required result, and the tool runs again when
    the client sends the answers.

    @ivar inputRequests: the questions still unanswered, by key.
    @ivar gathered: every answer this request has so far, by key, each
        with the question it answered, for the next round's
        C{requestState}.
    """

    def __init__(self, inputRequests: dict[str, Question],
                 gathered: dict[str, Any]) -> None:
        super().__init__(sorted(inputRequests))
        self.inputRequests = inputRequests
        self.gathered = gathered

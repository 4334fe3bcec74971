"""
How a 2026-07-28 call asks the client something.  It cannot wait: a round
without the answers ends input-required (keyed C{inputRequests} and a sealed
C{requestState}), the client sends the request again with them (its
C{inputResponses} under those keys, and the state), and the tool runs again
from the start.  Earlier rounds' answers
travel in the sealed C{requestState}, each bound to the digest of the
question asked, so a tool gets only answers to that very question.  An
answer sent unasked (as SEP-2322 allows) may answer an ordinary question,
never a L{gsmcpd.tools.questions.BoundQuestion} (a confirmation of
destructive work).
"""

import hashlib
from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred, succeed
from zope.interface import implementer

from gsmcpd.protocol.eras.modern.envelope import Envelope, missingCapability
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal, canonical
from gsmcpd.protocol.eras.modern.results import INPUT_REQUIRED, complete
from gsmcpd.protocol.jsonrpc import JsonObject, invalidParams
from gsmcpd.tools.questions import CAPABILITY, BoundQuestion, IAsker, InputRequired

Gathered = dict[str, JsonObject]
"""Answers by key, each C{{"question": digest or None, "answer": ...}}."""

METHODS = frozenset({"tools/call", "prompts/get", "resources/read",
                     "tasks/result"})
"""The requests an input-required result may answer."""


def inputRequired(method: str, inputRequests: JsonObject,
                  requestState: str | None = None) -> JsonObject:
    """Raises L{ValueError} for a method that may not answer so (our bug)."""
    if method not in METHODS:
        raise ValueError(f"{method} may not answer input_required")
    result = {"resultType": INPUT_REQUIRED, "inputRequests": inputRequests}
    if requestState is not None:
        result["requestState"] = requestState
    return result


def inputResponses(params: JsonObject) -> JsonObject:
    """The answers a request carries, by key (the caller ignores others)."""
    if "inputResponses" not in params:
        return {}
    answers = params["inputResponses"]
    if not isinstance(answers, dict):
        raise invalidParams("inputResponses must be an object of answers "
                            "by key")
    for key, answer in answers.items():
        if not isinstance(answer, dict):
            raise invalidParams(f"the answer to {key!r} must be an object")
    return answers


def questionDigest(question: JsonObject) -> str:
    """What names one question: the digest of its method and parameters."""
    return hashlib.sha256(canonical(question)).hexdigest()


def bound(question: JsonObject, answer: JsonObject) -> JsonObject:
    return {"question": questionDigest(question), "answer": answer}


def gatheredFrom(state: Any, responses: JsonObject) -> Gathered:
    """Earlier rounds' answers and this one's (unasked never replaces one)."""
    state = state or {}
    asked = state.get("asked", {})
    gathered = dict(state.get("answers", {}))
    for key, answer in responses.items():
        if key in asked or key not in gathered:
            gathered[key] = {"question": asked.get(key), "answer": answer}
    return gathered


def _answered(requests: JsonObject, gathered: Gathered) -> JsonObject:
    """Answers bound to these questions (unasked: to no L{BoundQuestion})."""
    answers = {}
    for key, question in requests.items():
        found = gathered.get(key)
        if found is None:
            continue
        asked = found["question"]
        if asked == questionDigest(question) or (
                asked is None and not isinstance(question, BoundQuestion)):
            answers[key] = found["answer"]
    return answers


@implementer(IAsker)
class ModernAsker:
    """Asking in the 2026 era: from the answers the request carries, or, once
    its call became a task, with the task waiting C{input_required}."""

    def __init__(self, envelope: Envelope, gathered: Gathered) -> None:
        self._envelope = envelope
        self._gathered = dict(gathered)
        self._task: tuple[Any, Any] | None = None

    def canAsk(self, capability: str) -> bool:
        return self._envelope.supports(capability)

    def becameTask(self, store: Any, task: Any) -> None:
        """From now on a question parks C{task} rather than ending a round."""
        self._task = (store, task)

    def ask(self, requests: JsonObject) -> Deferred[JsonObject]:
        """
        The answers the request carries; for the others, L{InputRequired},
        or the task parked (C{-32021} for one the client cannot answer).
        """
        answers = _answered(requests, self._gathered)
        missing = {key: request for key, request in requests.items()
                   if key not in answers}
        asking = "this call" if self._task is None else "this task"
        for capability in sorted({CAPABILITY[request["method"]]
                                  for request in missing.values()}):
            if not self.canAsk(capability):
                raise missingCapability(capability, f"{asking} needs the "
                                        "client to answer a question")
        if not missing:
            return succeed(answers)
        if self._task is None:
            raise InputRequired(missing, self._gathered)
        store, task = self._task

        def given(answered: JsonObject) -> JsonObject:
            for key, answer in answered.items():
                self._gathered[key] = bound(missing[key], answer)
            return {**answers, **answered}

        return store.ask(task, missing).addCallback(given)


@inlineCallbacks
def modernRound(seal: RequestStateSeal, envelope: Envelope, method: str,
                params: JsonObject,
                run: Callable[["ModernAsker"], Deferred[JsonObject]],
                escalate: Callable[..., Any] | None = None,
                verified: Any = None) -> Any:
    """
    One round of a 2026-era request that may ask the client: its result,
    complete or input-required with the answers so far sealed.

    @param escalate: for a call that may become a task, called with its
        L{Deferred} and asker if it did not end (or ask) at once.
    @param verified: the state L{RequestStateSeal.verified} before, or
        L{None} to verify it now.
    """
    state = seal.open(method, params) if verified is None \
        else seal.spend(verified)
    gathered = gatheredFrom(state, inputResponses(params))
    asker = ModernAsker(envelope, gathered)
    working = maybeDeferred(run, asker)
    if escalate is not None and not working.called:
        return escalate(working, asker)
    try:
        value = yield working
    except InputRequired as pending:
        asked = {key: questionDigest(question)
                 for key, question in pending.inputRequests.items()}
        return inputRequired(method, pending.inputRequests, seal.seal(
            method, params, {"asked": asked, "answers": pending.gathered}))
    return complete(method, value)

"""
How a 2026-07-28 call asks the client something.  It cannot wait: a round
without the answers ends input-required, the client sends the request again
with them, and the tool runs again from the start.  Earlier rounds' answers
travel in the sealed C{requestState}, each bound to the digest of the
question asked, so a tool gets only answers to that very question.  An
answer sent unasked (as SEP-2322 allows) may answer an ordinary question,
never a L{gsmcpd.tools.questions.BoundQuestion} (a confirmation of
destructive work).
"""

import hashlib
from collections.abc import Callable, Generator
from typing import Any

from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred, succeed
from zope.interface import implementer

from gsmcpd.protocol.eras.modern.envelope import Envelope, missingCapability
from gsmcpd.protocol.eras.modern.inputrequired import inputRequired, inputResponses
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal, canonical
from gsmcpd.protocol.eras.modern.results import complete
from gsmcpd.protocol.jsonrpc import JsonObject
from gsmcpd.tools.questions import CAPABILITY, BoundQuestion, IAsker, InputRequired

Gathered = dict[str, JsonObject]
"""Answers by key, each C{{"question": digest or None, "answer": ...}}."""


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
    """Asking in the 2026 era: from the answers the request carries."""

    def __init__(self, envelope: Envelope, gathered: Gathered) -> None:
        self._envelope = envelope
        self._gathered = dict(gathered)
        self._task: TaskAsker | None = None

    def canAsk(self, capability: str) -> bool:
        return self._envelope.supports(capability)

    def becameTask(self, store: Any, task: Any) -> None:
        """From now on a question parks C{task} rather than ending a round."""
        self._task = TaskAsker(store, task, self._envelope, self._gathered)

    def ask(self, requests: JsonObject) -> Deferred[JsonObject]:
        """Raises L{InputRequired} for answers the request does not carry."""
        if self._task is not None:
            return self._task.ask(requests)
        answers, missing = _pending(requests, self._gathered, self._envelope,
                                    "this call")
        if not missing:
            return succeed(answers)
        raise InputRequired(missing, self._gathered)


@implementer(IAsker)
class TaskAsker:
    """Asking from inside a task: it waits, C{input_required}, for answers."""

    def __init__(self, store: Any, task: Any, envelope: Envelope,
                 gathered: Gathered | None = None) -> None:
        self._store = store
        self._task = task
        self._envelope = envelope
        self._gathered = dict(gathered or {})

    def canAsk(self, capability: str) -> bool:
        return self._envelope.supports(capability)

    @inlineCallbacks
    def ask(self, requests: JsonObject
            ) -> Generator[Deferred[Any], Any, JsonObject]:
        answers, missing = _pending(requests, self._gathered, self._envelope,
                                    "this task")
        if missing:
            given = yield self._store.ask(self._task, missing)
            for key, answer in given.items():
                self._gathered[key] = bound(missing[key], answer)
                answers[key] = answer
        return answers


def _pending(requests: JsonObject, gathered: Gathered, envelope: Envelope,
             asking: str) -> tuple[JsonObject, JsonObject]:
    """The answers, and the questions open (C{-32021} if one cannot be)."""
    answers = _answered(requests, gathered)
    missing = {key: request for key, request in requests.items()
               if key not in answers}
    for capability in sorted({CAPABILITY[request["method"]]
                              for request in missing.values()}):
        if not envelope.supports(capability):
            raise missingCapability(capability, f"{asking} needs the client "
                                    "to answer a question")
    return answers, missing


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

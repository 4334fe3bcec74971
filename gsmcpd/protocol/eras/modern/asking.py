"""
How a running 2026-07-28 call asks the client something.

A tool asks through one method, C{ask({key: inputRequest, ...})}, and gets
the answers by key; it never knows which era it runs in.  Where a 2025 call
sends each question on its own stream and waits for the client's POSTed
answer (L{gsmcpd.protocol.eras.legacy.asking}), a 2026 call cannot wait: if the
answers are not in the request yet, the round ends with an input-required
result (L{gsmcpd.tools.questions.InputRequired}); the client asks its user
or model and sends the request again with the answers, and the tool runs
again from the start, this time finding them.  Answers gathered in
earlier rounds travel in the sealed C{requestState}, so a tool that asks in
several steps sees all of them.

Each answer is bound to the question it answers: the state names the
digest of each question a round asked, and an answer given under its key
in the next round (with that state, good for one round) is bound to that
digest.  A tool asking a question again gets only an answer bound to that
very question; an answer sent unasked (without state, as SEP-2322 allows a
stateless exchange) is taken for an ordinary question but never for a
L{gsmcpd.tools.questions.BoundQuestion}, a confirmation of destructive
work, which is then asked.
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
"""A request's answers by key, each C{{"question": digest or None,
"answer": ...}}: bound to the question it answered, or unasked."""


def _needed(requests: JsonObject) -> set[str]:
    return {CAPABILITY[request["method"]] for request in requests.values()}


def questionDigest(question: JsonObject) -> str:
    """
    What names one question: the digest of its method and parameters.
    """
    return hashlib.sha256(canonical(question)).hexdigest()


def bound(question: JsonObject, answer: JsonObject) -> JsonObject:
    """
    C{answer}, given to C{question}.
    """
    return {"question": questionDigest(question), "answer": answer}


def gatheredFrom(state: Any, responses: JsonObject) -> Gathered:
    """
    The answers a round has: those its C{state} carries from earlier
    rounds, and this round's C{responses}, each bound to the question the
    state asked under its key, else unasked (an unasked one never replaces
    an answer carried).
    """
    state = state or {}
    asked = state.get("asked", {})
    gathered = dict(state.get("answers", {}))
    for key, answer in responses.items():
        if key in asked or key not in gathered:
            gathered[key] = {"question": asked.get(key), "answer": answer}
    return gathered


def _answered(requests: JsonObject, gathered: Gathered) -> JsonObject:
    """
    The answers C{gathered} holds to C{requests}, by key: each bound to
    that very question, or unasked for a question that is no
    L{BoundQuestion}.
    """
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
    """
    Asking in the 2026 era: from the answers the request carries.

    @param envelope: the request's L{gsmcpd.protocol.eras.modern.envelope.Envelope}.
    @param gathered: answers from earlier rounds (the opened
        C{requestState}) and this one (C{inputResponses}), by key
        (L{gatheredFrom}).
    """

    def __init__(self, envelope: Envelope, gathered: Gathered) -> None:
        self._envelope = envelope
        self._gathered = dict(gathered)
        self._task: TaskAsker | None = None

    def canAsk(self, capability: str) -> bool:
        return self._envelope.supports(capability)

    def becameTask(self, store: Any, task: Any) -> None:
        """
        The call this asker serves became C{task}: from now on, a question
        parks the task rather than ending a round.
        """
        self._task = TaskAsker(store, task, self._envelope, self._gathered)

    def ask(self, requests: JsonObject) -> Deferred[JsonObject]:
        """
        @return: a fired L{Deferred} of the answers by key, when the request
            carries them all.
        @raise InputRequired: to end the round asking for the others.
        @raise JsonRpcError: C{-32021} when the client cannot answer a
            question it has not answered yet.
        """
        if self._task is not None:
            return self._task.ask(requests)
        answers = _answered(requests, self._gathered)
        missing = _unanswered(requests, answers, self._envelope, "this call")
        if not missing:
            return succeed(answers)
        raise InputRequired(missing, self._gathered)


@implementer(IAsker)
class TaskAsker:
    """
    Asking from inside a task: the task waits, C{input_required}, until
    the client answers through C{tasks/update}.

    @param store: the L{gsmcpd.protocol.eras.modern.tasks.TaskStore}.
    @param task: the running L{gsmcpd.protocol.eras.modern.tasks.Task}.
    @param envelope: the envelope of the request that created the task.
    @param gathered: answers gathered before the task was created (a call
        that asked in input-required rounds, then became a task).
    """

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
        answers = _answered(requests, self._gathered)
        missing = _unanswered(requests, answers, self._envelope, "this task")
        if missing:
            given = yield self._store.ask(self._task, missing)
            for key, answer in given.items():
                self._gathered[key] = bound(missing[key], answer)
                answers[key] = answer
        return answers


def _unanswered(requests: JsonObject, answers: JsonObject,
                envelope: Envelope, asking: str) -> JsonObject:
    """
    The C{requests} not in C{answers}, once the client is known to be able
    to answer each kind.

    @param asking: names who asks, for the error.
    @raise JsonRpcError: C{-32021} for a kind the client cannot answer.
    """
    missing = {key: request for key, request in requests.items()
               if key not in answers}
    for capability in sorted(_needed(missing)):
        if not envelope.supports(capability):
            raise missingCapability(capability, f"{asking} needs the client "
                                    "to answer a question")
    return missing


@inlineCallbacks
def modernRound(seal: RequestStateSeal, envelope: Envelope, method: str,
                params: JsonObject,
                run: Callable[["ModernAsker"], Deferred[JsonObject]],
                escalate: Callable[..., Any] | None = None,
                verified: Any = None) -> Any:
    """
    One round of a 2026-era request that may ask the client.

    @param seal: the daemon's L{gsmcpd.protocol.eras.modern.requeststate.RequestStateSeal}.
    @param run: called with the round's L{ModernAsker}; returns a
        L{Deferred} of the finished result value.
    @param escalate: for a call that may become a task: called with the
        call's L{Deferred} and its asker when the call did not finish (or
        ask) at once; answers the result to send instead.
    @param verified: the request's state as the seal verified it before
        (L{RequestStateSeal.verified}), spent now; L{None} to verify it now.
    @return: a L{Deferred} of the dressed result: complete, or input
        required with the sealed answers gathered so far.
    @raise JsonRpcError: C{-32602} for tampered state (C{tamperedState}:
        altered, foreign, expired or already used) or malformed answers,
        C{-32021} for a question the client cannot answer.
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

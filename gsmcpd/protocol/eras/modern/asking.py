"""
How a running call asks the client something, in either era.

A tool asks through one method, C{ask({key: inputRequest, ...})}, and gets
the answers by key; it never knows which era it runs in.  A 2025 call sends
each question on its own stream and waits for the client's POSTed answer
(L{gsmcpd.tools.questions.askEach}).  A 2026 call cannot wait: if the
answers are not in the request yet, the round ends with an input-required
result (L{gsmcpd.tools.questions.InputRequired}); the client asks its user
or model and sends the request again with the answers, and the tool runs
again from the start, this time finding them.  Answers gathered in
earlier rounds travel in the sealed C{requestState}, so a tool that asks in
several steps sees all of them.
"""

from collections.abc import Callable, Generator
from typing import Any

from twisted.internet.defer import (
    Deferred, inlineCallbacks, maybeDeferred, succeed)
from zope.interface import implementer

from gsmcpd.protocol.eras.modern.envelope import Envelope, missingCapability
from gsmcpd.protocol.eras.modern.inputrequired import inputRequired, inputResponses
from gsmcpd.protocol.jsonrpc import JsonObject
from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal
from gsmcpd.protocol.eras.modern.results import complete
from gsmcpd.tools.questions import CAPABILITY, IAsker, InputRequired


def _needed(requests):
    return {CAPABILITY[request["method"]] for request in requests.values()}


@implementer(IAsker)
class ModernAsker:
    """
    Asking in the 2026 era: from the answers the request carries.

    @param envelope: the request's L{gsmcpd.protocol.eras.modern.envelope.Envelope}.
    @param gathered: answers from earlier rounds (the opened
        C{requestState}) and this one (C{inputResponses}), by key.
    """

    def __init__(self, envelope, gathered):
        self._envelope = envelope
        self._gathered = dict(gathered)
        self._task = None

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
        missing = _unanswered(requests, self._gathered, self._envelope,
                              "this call")
        if not missing:
            return succeed({key: self._gathered[key] for key in requests})
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

    def __init__(self, store, task, envelope, gathered=None):
        self._store = store
        self._task = task
        self._envelope = envelope
        self._gathered = dict(gathered or {})

    def canAsk(self, capability: str) -> bool:
        return self._envelope.supports(capability)

    @inlineCallbacks
    def ask(self, requests: JsonObject
            ) -> Generator[Deferred[Any], Any, JsonObject]:
        missing = _unanswered(requests, self._gathered, self._envelope,
                              "this task")
        if missing:
            self._gathered.update((yield self._store.ask(self._task,
                                                         missing)))
        return {key: self._gathered[key] for key in requests}


def _unanswered(requests, gathered, envelope, asking):
    """
    The C{requests} not answered in C{gathered} yet, once the client is
    known to be able to answer each kind.

    @param asking: names who asks, for the error.
    @raise JsonRpcError: C{-32021} for a kind the client cannot answer.
    """
    missing = {key: request for key, request in requests.items()
               if key not in gathered}
    for capability in sorted(_needed(missing)):
        if not envelope.supports(capability):
            raise missingCapability(capability, f"{asking} needs the client "
                                    "to answer a question")
    return missing


@inlineCallbacks
def modernRound(seal: RequestStateSeal, envelope: Envelope, method: str,
                params: JsonObject,
                run: Callable[["ModernAsker"], Deferred[JsonObject]],
                escalate: Callable[..., Any] | None = None) -> Any:
    """
    One round of a 2026-era request that may ask the client.

    @param seal: the daemon's L{gsmcpd.protocol.eras.modern.requeststate.RequestStateSeal}.
    @param run: called with the round's L{ModernAsker}; returns a
        L{Deferred} of the finished result value.
    @param escalate: for a call that may become a task: called with the
        call's L{Deferred} and its asker when the call did not finish (or
        ask) at once; answers the result to send instead.
    @return: a L{Deferred} of the dressed result: complete, or input
        required with the sealed answers gathered so far.
    @raise JsonRpcError: C{-32602} for tampered state or malformed answers,
        C{-32021} for a question the client cannot answer.
    """
    gathered = seal.open(method, params) or {}
    gathered.update(inputResponses(params))
    asker = ModernAsker(envelope, gathered)
    working = maybeDeferred(run, asker)
    if escalate is not None and not working.called:
        return escalate(working, asker)
    try:
        value = yield working
    except InputRequired as pending:
        return inputRequired(method, pending.inputRequests,
                             seal.seal(method, params, pending.gathered))
    return complete(method, value)

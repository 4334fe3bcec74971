"""
How a running call asks the client something, in either era.

A tool asks through one method, C{ask({key: inputRequest, ...})}, and gets
the answers by key; it never knows which era it runs in.  A 2025 call sends
each question on its own stream and waits for the client's POSTed answer.  A
2026 call cannot wait: if the answers are not in the request yet, the round
ends with an input-required result (L{InputRequired}); the client asks its
user or model and sends the request again with the answers, and the tool
runs again from the start, this time finding them.  Answers gathered in
earlier rounds travel in the sealed C{requestState}, so a tool that asks in
several steps sees all of them.
"""

from twisted.internet.defer import gatherResults, inlineCallbacks, succeed

from gsmcpd.protocol.eras import missingCapability
from gsmcpd.protocol.inputrequired import inputRequired, inputResponses
from gsmcpd.protocol.results import complete
from gsmcpd.tools.questions import CAPABILITY


class InputRequired(Exception):
    """
    A 2026-era round cannot go on without answers.

    @ivar inputRequests: the questions still unanswered, by key.
    @ivar gathered: every answer this request has so far, by key, for the
        next round's C{requestState}.
    """

    def __init__(self, inputRequests, gathered):
        super().__init__(sorted(inputRequests))
        self.inputRequests = inputRequests
        self.gathered = gathered


def _needed(requests):
    return {CAPABILITY[request["method"]] for request in requests.values()}


class ModernAsker:
    """
    Asking in the 2026 era: from the answers the request carries.

    @param envelope: the request's L{gsmcpd.protocol.eras.Envelope}.
    @param gathered: answers from earlier rounds (the opened
        C{requestState}) and this one (C{inputResponses}), by key.
    """

    def __init__(self, envelope, gathered):
        self._envelope = envelope
        self._gathered = dict(gathered)

    def canAsk(self, capability):
        return self._envelope.supports(capability)

    def ask(self, requests):
        """
        @return: a fired L{Deferred} of the answers by key, when the request
            carries them all.
        @raise InputRequired: to end the round asking for the others.
        @raise JsonRpcError: C{-32021} when the client cannot answer a
            question it has not answered yet.
        """
        missing = {key: request for key, request in requests.items()
                   if key not in self._gathered}
        if not missing:
            return succeed({key: self._gathered[key] for key in requests})
        for capability in sorted(_needed(missing)):
            if not self.canAsk(capability):
                raise missingCapability(capability, "this call needs the "
                                        "client to answer a question")
        raise InputRequired(missing, self._gathered)


class LegacyAsker:
    """
    Asking in the 2025 era: each question sent on the call's stream.

    @param send: C{(method, params) -> Deferred} of the client's answer
        (L{gsmcpd.tools.base.ToolCall.request}).
    @param capabilities: what the client declared in C{initialize}.
    """

    def __init__(self, send, capabilities):
        self._send = send
        self._capabilities = capabilities

    def canAsk(self, capability):
        return isinstance(self._capabilities.get(capability), dict)

    def ask(self, requests):
        keys = list(requests)
        asked = gatherResults([self._send(requests[key]["method"],
                                          requests[key]["params"])
                               for key in keys], consumeErrors=True)
        asked.addErrback(lambda failure: failure.value.subFailure)
        return asked.addCallback(lambda answers: dict(zip(keys, answers)))


class TaskAsker:
    """
    Asking from inside a task: the task waits, C{input_required}, until
    the client answers through C{tasks/update}.

    @param store: the L{gsmcpd.protocol.tasks.TaskStore}.
    @param task: the running L{gsmcpd.protocol.tasks.Task}.
    @param envelope: the envelope of the request that created the task.
    @param gathered: answers gathered before the task was created (a call
        that asked in input-required rounds, then became a task).
    """

    def __init__(self, store, task, envelope, gathered=None):
        self._store = store
        self._task = task
        self._envelope = envelope
        self._gathered = dict(gathered or {})

    def canAsk(self, capability):
        return self._envelope.supports(capability)

    @inlineCallbacks
    def ask(self, requests):
        missing = {key: request for key, request in requests.items()
                   if key not in self._gathered}
        for capability in sorted(_needed(missing)):
            if not self.canAsk(capability):
                raise missingCapability(capability, "this task needs the "
                                        "client to answer a question")
        if missing:
            self._gathered.update((yield self._store.ask(self._task,
                                                         missing)))
        return {key: self._gathered[key] for key in requests}


@inlineCallbacks
def modernRound(seal, envelope, method, params, run):
    """
    One round of a 2026-era request that may ask the client.

    @param seal: the daemon's L{gsmcpd.protocol.requeststate.RequestStateSeal}.
    @param run: called with the round's L{ModernAsker}; returns a
        L{Deferred} of the finished result value.
    @return: a L{Deferred} of the dressed result: complete, or input
        required with the sealed answers gathered so far.
    @raise JsonRpcError: C{-32602} for tampered state or malformed answers,
        C{-32021} for a question the client cannot answer.
    """
    gathered = seal.open(method, params) or {}
    gathered.update(inputResponses(params))
    try:
        value = yield run(ModernAsker(envelope, gathered))
    except InputRequired as pending:
        return inputRequired(method, pending.inputRequests,
                             seal.seal(method, params, pending.gathered))
    return complete(method, value)

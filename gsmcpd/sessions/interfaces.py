"""
The seams between sessions and the layers above them: what a call's own
stream offers, and how the server asks a client something.
"""

from typing import Any

from twisted.internet.defer import Deferred
from zope.interface import Attribute, Interface

JsonObject = dict[str, Any]
"""A JSON-RPC message or its params, as parsed."""


class ClientDidNotAnswer(Exception):
    """
    The client did not answer a server-sent request in time.
    """


class ClientAnsweredError(Exception):
    """
    The client answered a server-sent request with a JSON-RPC error.
    """


class ICallSink(Interface):
    """
    A call answered as a stream: what the call sends the client while it
    runs, before its response.
    """

    wantsProgress = Attribute("Whether the client asked for progress.")

    def post(message: JsonObject) -> None:
        """
        Send the client C{message} (a JSON-RPC dict) on this stream.
        """

    def report(progress: float, total: float | None = None,
               message: str | None = None) -> None:
        """
        The call's own progress report.
        """

    def closeEarly() -> None:
        """
        End the connection before the response; the client resumes.
        """


class IClientRequests(Interface):
    """
    The server's outstanding requests to clients.
    """

    def send(session: Any, method: str, params: JsonObject | None = None,
             via: ICallSink | None = None) -> Deferred[JsonObject]:
        """
        Post a request on C{session}'s stream, or on C{via} (an
        L{ICallSink}); a Deferred firing with the client's result, or
        failing with L{ClientDidNotAnswer} or L{ClientAnsweredError}.
        """

    def answer(session: Any, message: Any) -> bool:
        """
        Match a response the client sent to the request it answers; whether
        it answered one of ours.
        """

    def forget(session: Any) -> None:
        """
        Drop a closed session's outstanding requests, silently.
        """


class IWorkSession(Interface):
    """
    One GemStone session the daemon holds, and what it keeps of it, whoever
    uses it: a 2025 client's MCP session, a 2026 handle, or a throwaway
    session lent to one call at a time.  Only the sessions layer assigns
    its state and runs its calls (L{gsmcpd.sessions.running}); the layers
    above read it, and a call's record notes a commit (C{commitEnded});
    a call's tools write its ledger and journal through the call.
    """

    handle = Attribute(
        "The opaque key the registry holds it by: a 2025 client's "
        "MCP-Session-Id, a 2026 handle, or never told (a throwaway one).")
    label = Attribute(
        "How logs name it: a prefix of its handle, not enough to use it.")
    gem = Attribute("The IGemSession every call on it runs on.")
    principal = Attribute(
        "Who it was opened for, or lent to (a Principal, with the GemStone "
        "user it logged in as), or None without authentication.")
    throwaway = Attribute(
        "Whether it serves one call and keeps nothing: its commits are "
        "locked and it is logged out after the call.")
    ledger = Attribute("What was read in its present view (a ReadLedger).")
    journal = Attribute(
        "What its transaction changed (a ChangeJournal).")
    busy = Attribute("Whether a call of it is queued or running on its gem.")
    view = Attribute(
        "View hygiene's state (a ViewState): its GemStone session number "
        "among it.")
    lastCommit = Attribute(
        "How its last commit ended (a LastCommit: outcome, time, changes), "
        "or None before one.")

    def admit(run: Any) -> None:
        """
        A call (an L{ICallControl} with its C{requestId}) is in flight in
        it, under its request id.
        """

    def release(run: Any) -> None:
        """
        The call C{run} is over: it no longer answers to its request id.
        """

    def callFor(requestId: Any) -> Any:
        """
        The call in flight under C{requestId}, or None.
        """

    def inFlight() -> list[Any]:
        """
        Its calls in flight.
        """

    def callEnding() -> None:
        """
        The server began ending one of its calls (its gem may still be
        taking the break): it is not lent for another read.
        """

    def active(now: float) -> None:
        """
        Its client made a request at C{now} (seconds on the registry's
        clock): the lifetime policy counts its idle time from then.
        """

    def awaitReplacement() -> Deferred[None] | None:
        """
        While its GemStone session is being replaced, a Deferred firing once
        the new one serves (or the session closed), which its holder may
        cancel; None when no replacement is under way.
        """

    def commitEnded(outcome: str, at: float, changes: Any = ()) -> None:
        """
        A commit in it ended as the stone answered (C{committed},
        C{conflict} or C{failed}) at C{at}, having tried to commit
        C{changes}: its last commit from now on, whether or not its client
        heard the answer.
        """

    def transactionEnded() -> None:
        """
        Its transaction ended (a commit or an abort, however made): nothing
        read before counts for the guardrail, and its journal of changes
        starts afresh.
        """

    def takeNotices() -> list[str]:
        """
        The lines waiting for its client's next tool result (a view the
        server refreshed, say), each told once.
        """


class ISessionCloser(Interface):
    """
    Closes a work session, which every part of the registry hears of:
    what a part that ends sessions (the warm pool, a lost stream's grace,
    a failed replacement) is given.
    """

    def close(handle: str, reason: str, code: str = "other"
              ) -> Deferred[None]:
        """
        Unmap the work session C{handle} names and log its GemStone session
        out, for C{reason} (a sentence for the log) and C{code} (the same
        as a word, one of L{gsmcpd.observe.metrics.SESSION_ENDINGS}); a
        Deferred firing once it is out.
        """

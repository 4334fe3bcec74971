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

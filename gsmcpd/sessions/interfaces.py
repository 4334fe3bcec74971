"""
The seams between sessions and the layers above them: what a call's own
stream offers, and how the server asks a client something.
"""

from zope.interface import Attribute, Interface


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

    def post(message):
        """
        Send the client C{message} (a JSON-RPC dict) on this stream.
        """

    def report(progress, total=None, message=None):
        """
        The call's own progress report.
        """

    def closeEarly():
        """
        End the connection before the response; the client resumes.
        """


class IClientRequests(Interface):
    """
    The server's outstanding requests to clients.
    """

    def send(session, method, params=None, via=None):
        """
        Post a request on C{session}'s stream, or on C{via} (an
        L{ICallSink}); a Deferred firing with the client's result, or
        failing with L{ClientDidNotAnswer} or L{ClientAnsweredError}.
        """

    def answer(session, message):
        """
        Match a response the client sent to the request it answers; whether
        it answered one of ours.
        """

    def forget(session):
        """
        Drop a closed session's outstanding requests, silently.
        """

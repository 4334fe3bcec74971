"""
The listening port: which port it is, and whether it could be opened.

The port is a L{StreamServerEndpointService}, as C{strports.service} makes
one, around an endpoint that reports its outcome, so the daemon names the
port it got (in gem names and its log) and refuses to start, in one line,
when it got none.
"""

from twisted.application.internet import StreamServerEndpointService
from twisted.internet.defer import maybeDeferred
from twisted.internet.interfaces import IStreamServerEndpoint
from zope.interface import implementer

from gsmcpd.daemon.outcome import Outcome


@implementer(IStreamServerEndpoint)
class ObservedEndpoint:
    """
    An endpoint that tells whoever asks when it listens, and on which port.

    A failed listen is handed to them, and the service around it is told
    there is no port to stop: the failure is reported once, as the
    daemon's refusal, not again as an unhandled error.
    """

    def __init__(self, endpoint):
        self._endpoint = endpoint
        self._outcome = Outcome()

    def listen(self, factory):
        d = maybeDeferred(self._endpoint.listen, factory)
        d.addBoth(self._outcome.settle)
        return d.addErrback(lambda failure: None)

    def whenListening(self):
        """
        A L{Deferred} firing with the listening port, or failing with why
        there is none.
        """
        return self._outcome.whenKnown()

    def portLabel(self):
        """
        The listening port's number as text; C{"0"} until it listens.
        """
        if not self._outcome.known or self._outcome.failed:
            return "0"
        return str(self._outcome.result.getHost().port)


def listeningService(endpoint, factory):
    """
    The service listening on C{endpoint} with C{factory}: what
    C{strports.service} makes, around an L{ObservedEndpoint}.
    """
    service = StreamServerEndpointService(endpoint, factory)
    service.setName("listening")
    return service

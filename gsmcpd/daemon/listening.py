"""
The listening port: which port it is, and whether it could be opened.

The port is a L{StreamServerEndpointService}, as C{strports.service} makes
one, around an endpoint that reports its outcome, so the daemon names the
port it got (in gem names and its log) and refuses to start, in one line,
when it got none.
"""

from twisted.application.internet import StreamServerEndpointService
from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import (
    IListeningPort,
    IProtocolFactory,
    IStreamServerEndpoint,
)
from twisted.python.failure import Failure
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

    def __init__(self, endpoint: IStreamServerEndpoint) -> None:
        self._endpoint = endpoint
        self._outcome: Outcome[IListeningPort] = Outcome()

    # A failed listen answers None (no port to stop), which the interface
    # does not allow for.
    def listen(  # type: ignore[override]
            self,
            factory: IProtocolFactory) -> Deferred[IListeningPort | None]:
        d = maybeDeferred(self._endpoint.listen, factory)
        d.addBoth(self._outcome.settle)
        return d.addErrback(lambda failure: None)

    def whenListening(self) -> Deferred[IListeningPort]:
        """
        A L{Deferred} firing with the listening port, or failing with why
        there is none.
        """
        return self._outcome.whenKnown()

    def portLabel(self) -> str:
        """
        The listening port's number as text; C{"0"} until it listens.
        """
        port = self._outcome.result
        if not self._outcome.known or port is None or \
                isinstance(port, Failure):
            return "0"
        # A TCP port's address has a port number, which IAddress does not say.
        return str(port.getHost().port)  # type: ignore[attr-defined]


def listeningService(endpoint: IStreamServerEndpoint,
                     factory: IProtocolFactory) -> StreamServerEndpointService:
    """
    The service listening on C{endpoint} with C{factory}: what
    C{strports.service} makes, around an L{ObservedEndpoint}.
    """
    service = StreamServerEndpointService(endpoint, factory)
    service.setName("listening")
    return service

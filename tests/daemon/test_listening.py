"""
Tests for L{gsmcpd.daemon.listening}, over an in-memory endpoint.
"""

from twisted.application.service import IService
from twisted.internet.address import IPv4Address
from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.error import CannotListenError
from twisted.internet.interfaces import IStreamServerEndpoint
from twisted.internet.protocol import Factory
from twisted.trial.unittest import SynchronousTestCase
from zope.interface import implementer
from zope.interface.verify import verifyObject

from gsmcpd.daemon.listening import ObservedEndpoint, listeningService


class FakePort:
    def __init__(self, number):
        self.number = number
        self.stopped = False

    def getHost(self):
        return IPv4Address("TCP", "127.0.0.1", self.number)

    def stopListening(self):
        self.stopped = True
        return succeed(None)


@implementer(IStreamServerEndpoint)
class FakeEndpoint:
    def __init__(self, outcome):
        self.outcome = outcome
        self.factories = []

    def listen(self, factory):
        self.factories.append(factory)
        return self.outcome


class ObservedEndpointTests(SynchronousTestCase):

    def test_providesTheInterface(self):
        verifyObject(IStreamServerEndpoint,
                     ObservedEndpoint(FakeEndpoint(Deferred())))

    def test_listening(self):
        port = FakePort(8123)
        endpoint = ObservedEndpoint(FakeEndpoint(succeed(port)))
        waiting = endpoint.whenListening()
        self.assertEqual(endpoint.portLabel(), "0")
        self.assertIs(self.successResultOf(endpoint.listen(Factory())), port)
        self.assertIs(self.successResultOf(waiting), port)
        self.assertEqual(endpoint.portLabel(), "8123")

    def test_refusedOnceNotAsUnhandled(self):
        """
        A failed listen reaches those waiting; the service around the
        endpoint gets no port, and nothing is left unhandled.
        """
        endpoint = ObservedEndpoint(FakeEndpoint(fail(CannotListenError(
            "127.0.0.1", 8000, OSError("Address already in use")))))
        waiting = endpoint.whenListening()
        self.assertIsNone(self.successResultOf(endpoint.listen(Factory())))
        self.failureResultOf(waiting, CannotListenError)
        self.failureResultOf(endpoint.whenListening(), CannotListenError)
        self.assertEqual(endpoint.portLabel(), "0")


class ListeningServiceTests(SynchronousTestCase):

    def test_startsAndStops(self):
        port = FakePort(8000)
        fake = FakeEndpoint(succeed(port))
        factory = Factory()
        service = listeningService(ObservedEndpoint(fake), factory)
        verifyObject(IService, service)
        self.assertEqual(service.name, "listening")
        service.startService()
        self.assertEqual(fake.factories, [factory])
        self.successResultOf(service.stopService())
        self.assertTrue(port.stopped)

    def test_stopsAfterAFailedListen(self):
        service = listeningService(ObservedEndpoint(FakeEndpoint(
            fail(CannotListenError("127.0.0.1", 8000, OSError("in use"))))),
            Factory())
        service.startService()
        self.successResultOf(service.stopService())
        self.assertFalse(service.running)

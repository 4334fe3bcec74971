"""
The TLS endpoint over real loopback sockets: the versions it speaks, and a
certificate reloaded while a connection stays open.
"""

import http.client
import ssl
import warnings

from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread
from twisted.trial.unittest import TestCase
from twisted.web.resource import Resource

from gsmcpd.transport.connections import GuardedFactory
from gsmcpd.transport.http import McpSite
from tests.idp import TestCA, serveOverTLS, writeIdentity


class _Hello(Resource):
    isLeaf = True

    def render_GET(self, request):
        return b"hello"


class TLSSocketTests(TestCase):
    @inlineCallbacks
    def setUp(self):
        self.ca = TestCA()
        self.port, self.contexts = yield serveOverTLS(
            self, reactor, _Hello(), self.ca)

    def connect(self, maximum=None, port=None, alpn=()):
        """
        A keep-alive HTTPS connection trusting the test CA, optionally
        capped at TLS version C{maximum}, asking for the protocols C{alpn}.
        """
        context = ssl.create_default_context(cadata=self.ca.pem().decode())
        if alpn:
            context.set_alpn_protocols(alpn)
        if maximum is not None:
            context.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
            context.maximum_version = maximum
        connection = http.client.HTTPSConnection(
            "localhost", port or self.port, context=context, timeout=10)
        self.addCleanup(connection.close)
        return connection

    @staticmethod
    def get(connection):
        connection.request("GET", "/")
        return connection.getresponse().read()

    @inlineCallbacks
    def test_tls13(self):
        connection = self.connect()
        self.assertEqual((yield deferToThread(self.get, connection)),
                         b"hello")
        self.assertEqual(connection.sock.version(), "TLSv1.3")

    @inlineCallbacks
    def test_tls12(self):
        connection = self.connect(ssl.TLSVersion.TLSv1_2)
        yield deferToThread(self.get, connection)
        self.assertEqual(connection.sock.version(), "TLSv1.2")

    @inlineCallbacks
    def test_alpnAsTheDaemonServes(self):
        """
        The daemon's own factory over TLS answers a client that asks for
        HTTP/1.1 (or HTTP/2) by ALPN, as httpx and curl do, in HTTP/1.1.
        """
        port, _ = yield serveOverTLS(
            self, reactor, _Hello(), self.ca,
            serve=lambda resource: GuardedFactory(McpSite(resource)))
        connection = self.connect(port=port, alpn=["h2", "http/1.1"])
        self.assertEqual((yield deferToThread(self.get, connection)),
                         b"hello")
        self.assertEqual(connection.sock.selected_alpn_protocol(),
                         "http/1.1")

    @inlineCallbacks
    def test_tls11Refused(self):
        with warnings.catch_warnings():
            # Deprecated for being insecure, which is why it is refused.
            warnings.simplefilter("ignore", DeprecationWarning)
            connection = self.connect(ssl.TLSVersion.TLSv1_1)
        yield self.assertFailure(deferToThread(self.get, connection),
                                 ssl.SSLError)

    @inlineCallbacks
    def test_reloadKeepsOpenConnections(self):
        kept = self.connect()
        yield deferToThread(self.get, kept)
        old = kept.sock.getpeercert(binary_form=True)
        certificate, key = writeIdentity(self, self.ca)
        endpoint = self.contexts.endpoint
        for source, target in ((certificate, endpoint.certKey),
                               (key, endpoint.privateKey)):
            with open(source, "rb") as f, open(target, "wb") as g:
                g.write(f.read())
        self.assertTrue(self.contexts.reload())
        self.assertEqual((yield deferToThread(self.get, kept)), b"hello")
        self.assertEqual(kept.sock.getpeercert(binary_form=True), old)
        fresh = self.connect()
        yield deferToThread(self.get, fresh)
        self.assertNotEqual(fresh.sock.getpeercert(binary_form=True), old)

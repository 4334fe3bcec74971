"""
The TLS endpoint: what an C{ssl:} description may say, the files it loads,
and reloading them.
"""

from cryptography.x509.oid import NameOID
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.transport.connections import LISTEN_BACKLOG
from gsmcpd.transport.tls import (
    ReloadingContexts,
    TLSConfigError,
    TLSEndpoint,
    splitDescription,
)
from tests.idp import TestCA, writeIdentity


def commonName(certificate):
    """
    The subject's common name of a pyOpenSSL certificate, read through
    cryptography (pyOpenSSL's own X.509 accessors are deprecated).
    """
    return certificate.to_cryptography().subject.get_attributes_for_oid(
        NameOID.COMMON_NAME)[0].value


def servedName(contexts):
    return commonName(contexts.serverConnectionForTLS(None).get_certificate())


class DescriptionTests(SynchronousTestCase):
    def test_split(self):
        self.assertEqual(
            splitDescription(
                r"ssl:8443:privateKey=C\:\\k.pem:interface=\:\:1"),
            ("ssl", ["8443"], {"privateKey": r"C:\k.pem", "interface": "::1"}))

    def test_notTls(self):
        self.assertIsNone(TLSEndpoint.parse("tcp:8000:interface=127.0.0.1"))

    def test_parse(self):
        self.assertEqual(
            TLSEndpoint.parse("ssl:port=8443:privateKey=k.pem:certKey=c.pem:"
                              "extraCertChain=chain.pem:interface=127.0.0.1"),
            TLSEndpoint(port=8443, interface="127.0.0.1",
                        backlog=LISTEN_BACKLOG,
                        privateKey="k.pem", certKey="c.pem",
                        extraCertChain="chain.pem"))

    def test_certKeyDefaultsToPrivateKey(self):
        self.assertEqual(TLSEndpoint.parse("ssl:8443:privateKey=both.pem")
                         .certKey, "both.pem")

    def test_sslMethodRefused(self):
        error = self.assertRaises(
            TLSConfigError, TLSEndpoint.parse,
            "ssl:8443:privateKey=k.pem:sslmethod=TLSv1_METHOD")
        self.assertIn("sslmethod", str(error))

    def test_privateKeyRequired(self):
        self.assertRaises(TLSConfigError, TLSEndpoint.parse, "ssl:8443")

    def test_portRequired(self):
        self.assertRaises(TLSConfigError, TLSEndpoint.parse,
                          "ssl:privateKey=k.pem")


class ContextTests(SynchronousTestCase):
    def setUp(self):
        self.ca = TestCA()
        self.certificate, self.key = writeIdentity(self, self.ca)
        self.endpoint = TLSEndpoint(port=0, interface="127.0.0.1",
                                    backlog=50, privateKey=self.key,
                                    certKey=self.certificate)

    def test_loads(self):
        self.assertEqual(servedName(ReloadingContexts(self.endpoint)),
                         "localhost")

    def test_chain(self):
        chain = self.mktemp()
        with open(chain, "wb") as f:
            f.write(self.ca.pem())
        TLSEndpoint(port=0, interface="", backlog=50, privateKey=self.key,
                    certKey=self.certificate,
                    extraCertChain=chain).options()

    def test_missingFile(self):
        endpoint = TLSEndpoint(port=0, interface="", backlog=50,
                               privateKey=self.mktemp(),
                               certKey=self.certificate)
        self.assertRaises(TLSConfigError, ReloadingContexts, endpoint)

    def test_keyNotMatchingTheCertificate(self):
        _, otherKey = writeIdentity(self, self.ca)
        endpoint = TLSEndpoint(port=0, interface="", backlog=50,
                               privateKey=otherKey, certKey=self.certificate)
        self.assertIn("does not match", str(self.assertRaises(
            TLSConfigError, endpoint.options)))

    def test_reload(self):
        contexts = ReloadingContexts(self.endpoint)
        kept = contexts.serverConnectionForTLS(None)
        certificate, key = writeIdentity(self, self.ca, ("renewed.test",))
        for source, target in ((certificate, self.certificate),
                               (key, self.key)):
            with open(source, "rb") as f, open(target, "wb") as g:
                g.write(f.read())
        self.assertTrue(contexts.reload())
        self.assertEqual(servedName(contexts), "renewed.test")
        self.assertEqual(commonName(kept.get_certificate()), "localhost")

    def test_failedReloadKeepsServing(self):
        contexts = ReloadingContexts(self.endpoint)
        with open(self.key, "wb") as f:
            f.write(b"half-written")
        self.assertFalse(contexts.reload())
        self.assertEqual(servedName(contexts), "localhost")

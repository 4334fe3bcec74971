"""
Tests for L{gsmcpd.daemon.certificate}: what C{gsmcpd check} says of the
daemon's TLS certificate.
"""

from datetime import UTC, datetime, timedelta

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.certificate import certificatePath, covers, judgeCertificate

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def makeCertificate(path, names, notBefore, notAfter):
    """
    Write a self-signed certificate (and its key) for C{names} to C{path};
    answer C{path}.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "t")])
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(subject).public_key(key.public_key())
               .serial_number(1).not_valid_before(notBefore)
               .not_valid_after(notAfter))
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName(name) for name in names]), critical=False)
    certificate = builder.sign(key, hashes.SHA256())
    with open(path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
        f.write(certificate.public_bytes(serialization.Encoding.PEM))
    return path


class JudgeTests(SynchronousTestCase):

    def judge(self, names, host=None, days=(-1, 90)):
        path = makeCertificate(self.mktemp(), names,
                               NOW + timedelta(days=days[0]),
                               NOW + timedelta(days=days[1]))
        return judgeCertificate(
            f"ssl:8443:privateKey={path}:certKey={path}", host, NOW)

    def test_plainHttp(self):
        ok, detail, fix = judgeCertificate("tcp:8000", None, NOW)
        self.assertTrue(ok)
        self.assertIn("not used", detail)

    def test_validCertificateNamesItsHosts(self):
        ok, detail, fix = self.judge(["mcp.example.com"])
        self.assertTrue(ok)
        self.assertIn("for mcp.example.com; valid until 2027-03-01", detail)

    def test_expiresSoon(self):
        ok, detail, _ = self.judge(["mcp.example.com"], days=(-1, 3))
        self.assertTrue(ok)
        self.assertIn("(renew it soon)", detail)

    def test_expiredCertificateFails(self):
        ok, detail, fix = self.judge(["mcp.example.com"], days=(-90, -1))
        self.assertFalse(ok)
        self.assertEqual(fix, "renew the certificate")

    def test_noNames(self):
        ok, detail, _ = self.judge([])
        self.assertFalse(ok)
        self.assertIn("no subjectAltName", detail)

    def test_unreadableCertificateFails(self):
        ok, detail, _ = judgeCertificate(
            "ssl:8443:privateKey=/nonexistent/cert.pem", None, NOW)
        self.assertFalse(ok)
        self.assertIn("No such file", detail)

    def test_audienceHostNotCovered(self):
        ok, detail, fix = self.judge(["other.example.com"],
                                     "mcp.example.com")
        self.assertFalse(ok)
        self.assertIn("is for other.example.com, not mcp.example.com, the "
                      "host of --auth-audience", detail)
        self.assertEqual(fix, "issue it for mcp.example.com, or correct "
                         "--auth-audience")

    def test_audienceHostCovered(self):
        self.assertTrue(self.judge(["*.example.com"], "mcp.example.com")[0])

    def test_certificatePath(self):
        self.assertIsNone(certificatePath("tcp:8000"))
        self.assertEqual(certificatePath("ssl:443:privateKey=k.pem"), "k.pem")
        self.assertEqual(certificatePath("ssl:443:privateKey=k:certKey=c"),
                         "c")


class CoversTests(SynchronousTestCase):

    def test_exactAndCase(self):
        self.assertTrue(covers(["MCP.example.com"], "mcp.example.com."))
        self.assertFalse(covers(["mcp.example.com"], "db.example.com"))

    def test_wildcardCoversOneLabel(self):
        self.assertTrue(covers(["*.example.com"], "mcp.example.com"))
        self.assertFalse(covers(["*.example.com"], "a.mcp.example.com"))
        self.assertFalse(covers(["*.example.com"], "example.com"))

    def test_address(self):
        self.assertTrue(covers(["127.0.0.1"], "127.0.0.1"))
        self.assertTrue(covers(["::1"], "0:0::1"))
        self.assertFalse(covers(["localhost"], "127.0.0.1"))

    def test_noHostToCheck(self):
        self.assertTrue(covers(["anything"], None))

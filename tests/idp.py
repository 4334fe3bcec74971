"""
A test identity provider: signing keys made per run, tokens minted on
demand, and its discovery document and JWKS served as a web resource (in
memory through StubTreq, or over loopback TLS with a test CA made per run).

A test double: it signs whatever it is asked to, including the tokens an
attacker would forge.
"""

import base64
import datetime
import hashlib
import hmac
import ipaddress
import json

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID
from twisted.web.resource import Resource
from twisted.web.server import Site

from gsmcpd.transport.tls import ReloadingContexts, TLSEndpoint

AUDIENCE = "https://127.0.0.1:8443/mcp"
ISSUER = "https://idp.test/realms/gemstone"
CACHE_SECONDS = 300


class SigningKey:
    """
    One key pair, with the key id and algorithm the JWKS publishes.
    """

    _generators = {
        "RS256": lambda: rsa.generate_private_key(65537, 2048),
        "ES256": lambda: ec.generate_private_key(ec.SECP256R1()),
        "EdDSA": ed25519.Ed25519PrivateKey.generate,
    }

    def __init__(self, kid, algorithm="RS256"):
        self.kid = kid
        self.algorithm = algorithm
        self.private = self._generators[algorithm]()

    def publicPEM(self):
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM,
            serialization.PublicFormat.SubjectPublicKeyInfo)

    def jwk(self):
        algorithm = jwt.get_algorithm_by_name(self.algorithm)
        published = json.loads(algorithm.to_jwk(self.private.public_key()))
        published.update(kid=self.kid, use="sig", alg=self.algorithm)
        return published

    def sign(self, claims, **header):
        header = {"kid": self.kid, **header}
        return jwt.encode(claims, self.private, algorithm=self.algorithm,
                          headers={name: value for name, value in
                                   header.items() if value is not None})


class IdentityProvider:
    """
    An issuer with signing keys, minting tokens for L{AUDIENCE}.

    @ivar now: the time tokens are minted at (a test's C{Clock} time).
    """

    def __init__(self, issuer=ISSUER, audience=AUDIENCE, now=0.0):
        self.issuer = issuer
        self.audience = audience
        self.now = now
        self.keys = [SigningKey("rsa-1"), SigningKey("ec-1", "ES256"),
                     SigningKey("ed-1", "EdDSA")]
        self.generation = 1

    def jwks(self):
        return {"keys": [key.jwk() for key in self.keys]}

    def writeJwks(self, path):
        with open(path, "w") as f:
            json.dump(self.jwks(), f)
        return path

    def rotate(self):
        """
        Replace every key with a new one under a new key id.
        """
        self.generation += 1
        self.keys = [SigningKey(f"{key.kid.split('-')[0]}-{self.generation}",
                                key.algorithm) for key in self.keys]

    def claims(self, **overrides):
        claims = {"iss": self.issuer, "aud": self.audience,
                  "sub": "DataCurator", "scope": "gemstone:read",
                  "iat": int(self.now), "exp": int(self.now) + 300}
        claims.update(overrides)
        return {name: value for name, value in claims.items()
                if value is not None}

    def token(self, key=None, header=None, **claims):
        """
        A token signed by C{key} (default: the current RSA key); C{claims}
        override the defaults, a value of L{None} removes one.
        """
        key = self.keys[0] if key is None else key
        return key.sign(self.claims(**claims), **(header or {}))

    def resource(self, issuerPath="/realms/gemstone"):
        """
        The web side: OpenID discovery under C{issuerPath} and the JWKS.
        """
        return _IdentityProviderResource(self, issuerPath)


def unsignedToken(claims):
    """
    A token with C{alg: none}, as an attacker would send it.
    """
    return jwt.encode(claims, None, algorithm="none")


def hmacWithPublicKey(claims, key):
    """
    A token signed HS256 with a published public key as the secret: the key
    confusion forgery.
    """
    header = _segment({"alg": "HS256", "typ": "JWT", "kid": key.kid})
    body = _segment(claims)
    signature = hmac.new(key.publicPEM(), f"{header}.{body}".encode(),
                         hashlib.sha256).digest()
    return f"{header}.{body}." + base64.urlsafe_b64encode(
        signature).rstrip(b"=").decode()


def _segment(document):
    return base64.urlsafe_b64encode(json.dumps(document).encode()).rstrip(
        b"=").decode()


class _IdentityProviderResource(Resource):
    isLeaf = True

    def __init__(self, provider, issuerPath):
        super().__init__()
        self.provider = provider
        self.issuerPath = issuerPath.encode()
        self.jwksFetches = 0

    def render_GET(self, request):
        request.setHeader(b"content-type", b"application/json")
        request.setHeader(b"cache-control",
                          f"max-age={CACHE_SECONDS}".encode())
        if request.path == self.issuerPath + \
                b"/.well-known/openid-configuration":
            issuer = self.provider.issuer
            return json.dumps({
                "issuer": issuer, "jwks_uri": issuer + "/certs",
                "authorization_endpoint": issuer + "/auth",
                "token_endpoint": issuer + "/token"}).encode()
        if request.path == self.issuerPath + b"/certs":
            self.jwksFetches += 1
            return json.dumps(self.provider.jwks()).encode()
        request.setResponseCode(404)
        return b'{"error": "not found"}'


class TestCA:
    """
    A certificate authority made per run, and certificates it issues for
    loopback servers.
    """

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                             "gsmcpd test CA (per run)")])
        self.certificate = _build(name, name, self.key.public_key(),
                                  self.key, [
            (x509.BasicConstraints(ca=True, path_length=None), True),
            (x509.KeyUsage(False, False, False, False, False, True, True,
                           False, False), True)])

    def pem(self):
        return self.certificate.public_bytes(serialization.Encoding.PEM)

    def issue(self, names=("localhost",), addresses=("127.0.0.1",)):
        """
        A server certificate and its key, both PEM.
        """
        key = ec.generate_private_key(ec.SECP256R1())
        alternatives = [x509.DNSName(n) for n in names] + [
            x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
        certificate = _build(
            x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]),
            self.certificate.subject, key.public_key(), self.key, [
                (x509.SubjectAlternativeName(alternatives), False),
                (x509.BasicConstraints(ca=False, path_length=None), True),
                (x509.ExtendedKeyUsage(
                    [x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), False)])
        return (certificate.public_bytes(serialization.Encoding.PEM),
                key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))


def _build(subject, issuer, publicKey, signingKey, extensions):
    now = datetime.datetime.now(datetime.UTC)
    builder = x509.CertificateBuilder().subject_name(subject).issuer_name(
        issuer).public_key(publicKey).serial_number(
        x509.random_serial_number()).not_valid_before(
        now - datetime.timedelta(hours=1)).not_valid_after(
        now + datetime.timedelta(days=1))
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical)
    return builder.sign(signingKey, hashes.SHA256())



def writeIdentity(testCase, ca, names=("localhost",)):
    """
    Files holding a certificate C{ca} issued for C{names} and its key:
    C{(certificate path, key path)}.
    """
    paths = testCase.mktemp(), testCase.mktemp()
    for path, content in zip(paths, ca.issue(names), strict=True):
        with open(path, "wb") as f:
            f.write(content)
    return paths


def serveOverTLS(testCase, reactor, resource, ca, names=("localhost",),
                 serve=Site):
    """
    Serve C{resource} on a loopback port over TLS with a certificate from
    C{ca}, through the daemon's own TLS endpoint; stopped at cleanup.

    @param serve: makes the factory served from C{resource}.

    @return: a L{Deferred} firing with C{(port number, ReloadingContexts)}.
    """
    certificate, key = writeIdentity(testCase, ca, names)
    endpoint = TLSEndpoint(port=0, interface="127.0.0.1", backlog=50,
                           certKey=certificate, privateKey=key)
    contexts = ReloadingContexts(endpoint)
    listening = endpoint.endpoint(reactor, contexts).listen(serve(resource))

    def listened(port):
        testCase.addCleanup(port.stopListening)
        return port.getHost().port, contexts

    return listening.addCallback(listened)

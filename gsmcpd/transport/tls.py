"""
HTTPS: an C{ssl:} endpoint description served with TLS 1.2 and 1.3 only,
whose certificate and key are read again on C{SIGHUP}.

A reload swaps the context new connections are made with; a connection
already open keeps the one it was accepted with, so no session is dropped
when a certificate is renewed.  A reload that fails (a half-written file, a
key that does not match) is logged and the running certificate kept.
"""

import re

import attr
from OpenSSL import SSL
from OpenSSL.crypto import FILETYPE_PEM
from OpenSSL.crypto import Error as CryptoError
from twisted.internet.endpoints import SSL4ServerEndpoint
from twisted.internet.interfaces import IOpenSSLServerConnectionCreator, IReactorSSL
from twisted.internet.ssl import Certificate, CertificateOptions, KeyPair, TLSVersion
from twisted.logger import Logger
from zope.interface import implementer

from gsmcpd.transport.connections import LISTEN_BACKLOG

DESCRIPTION_KEYS = frozenset({"port", "interface", "backlog", "privateKey",
                              "certKey", "extraCertChain"})
_PEM_CERTIFICATE = re.compile(
    rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", re.DOTALL)


class TLSConfigError(ValueError):
    """
    The TLS endpoint or its files cannot be used; the message says why.
    """


def splitDescription(
        description: str) -> tuple[str, list[str], dict[str, str]]:
    """
    An endpoint description's fields, as Twisted reads them: separated by
    colons, a backslash escaping the next character.

    @return: C{(kind, positional fields, keyword fields)}.
    """
    fields: list[str] = []
    current: list[str] = []
    escaped = False
    for character in description:
        if escaped:
            current.append(character)
            escaped = False
        elif character == "\\":
            escaped = True
        elif character == ":":
            fields.append("".join(current))
            current = []
        else:
            current.append(character)
    fields.append("".join(current))
    kind = fields[0]
    positional: list[str] = []
    keywords: dict[str, str] = {}
    for field in fields[1:]:
        name, equals, value = field.partition("=")
        if equals:
            keywords[name] = value
        else:
            positional.append(field)
    return kind, positional, keywords


@attr.s(frozen=True, auto_attribs=True)
class TLSEndpoint:
    """
    What an C{ssl:} description says.
    """

    port: int
    interface: str
    backlog: int
    privateKey: str
    certKey: str
    extraCertChain: str | None = None

    @classmethod
    def parse(cls, description: str) -> "TLSEndpoint | None":
        """
        @return: the endpoint, or L{None} when C{description} is not C{ssl:}.
        @raise TLSConfigError: an C{ssl:} description that cannot be served.
        """
        kind, positional, keywords = splitDescription(description)
        if kind != "ssl":
            return None
        if positional:
            keywords.setdefault("port", positional[0])
        unknown = set(keywords) - DESCRIPTION_KEYS
        if unknown or len(positional) > 1:
            raise TLSConfigError(
                f"{description!r}: the ssl: endpoint takes "
                f"{', '.join(sorted(DESCRIPTION_KEYS))}; not "
                f"{', '.join(sorted(unknown) or positional[1:])} (TLS 1.2 "
                "and 1.3 are always the versions offered)")
        if "privateKey" not in keywords:
            raise TLSConfigError(f"{description!r}: privateKey=FILE is "
                                 "required")
        try:
            port, backlog = int(keywords["port"]), int(keywords.get(
                "backlog", LISTEN_BACKLOG))
        except (KeyError, ValueError):
            raise TLSConfigError(f"{description!r}: needs a numeric port")
        return cls(port=port, interface=keywords.get("interface", ""),
                   backlog=backlog, privateKey=keywords["privateKey"],
                   certKey=keywords.get("certKey", keywords["privateKey"]),
                   extraCertChain=keywords.get("extraCertChain"))

    def options(self) -> CertificateOptions:
        """
        Fresh L{CertificateOptions} from the files as they are now.

        @raise TLSConfigError: a file is missing, unreadable, or does not
            hold what it should.
        """
        try:
            keyPEM = _read(self.privateKey)
            certificatePEM = _read(self.certKey)
            chain = [Certificate.loadPEM(each) for each in
                     _PEM_CERTIFICATE.findall(_read(self.extraCertChain))] \
                if self.extraCertChain else []
            certificate = Certificate.loadPEM(certificatePEM)
            key = KeyPair.load(keyPEM, format=FILETYPE_PEM)
            if not certificate.getPublicKey().matches(key):
                raise TLSConfigError(f"{self.certKey!r}: the certificate "
                                     f"does not match {self.privateKey!r}")
            options = CertificateOptions(
                privateKey=key.original, certificate=certificate.original,
                extraCertChain=[each.original for each in chain],
                raiseMinimumTo=TLSVersion.TLSv1_2)
            options.getContext()
        except TLSConfigError:
            raise
        except (SSL.Error, CryptoError, ValueError) as e:
            raise TLSConfigError(f"the TLS certificate or key cannot be "
                                 f"used: {e}")
        return options

    def endpoint(self, reactor: IReactorSSL,
                 contexts: "ReloadingContexts") -> SSL4ServerEndpoint:
        return SSL4ServerEndpoint(reactor, self.port, contexts, self.backlog,
                                  self.interface)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise TLSConfigError(f"{path!r}: {e.strerror}")


@implementer(IOpenSSLServerConnectionCreator)
class ReloadingContexts:
    """
    The TLS context each new connection is made with, replaced by
    L{reload}.
    """

    log = Logger()

    def __init__(self, endpoint: TLSEndpoint) -> None:
        """
        @raise TLSConfigError: the files cannot be served at startup.
        """
        self.endpoint = endpoint
        self._options = endpoint.options()

    def serverConnectionForTLS(self, tlsProtocol: object) -> SSL.Connection:
        return SSL.Connection(self._options.getContext(), None)

    def reload(self) -> bool:
        """
        Read the certificate and key again; keep the running ones if they
        cannot be used.
        """
        try:
            self._options = self.endpoint.options()
        except TLSConfigError as e:
            self.log.error("TLS reload failed, still serving the previous "
                           "certificate: {why}", why=e)
            return False
        self.log.info("TLS certificate and key reloaded from {path}",
                      path=self.endpoint.certKey)
        return True

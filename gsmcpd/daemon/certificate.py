"""
What C{gsmcpd check} says of the daemon's TLS certificate: readable, in
date, and issued for the host clients reach.
"""

import ipaddress
from collections.abc import Iterable
from datetime import datetime, timedelta

from gsmcpd.transport.tls import splitDescription

EXPIRY_WARNING = timedelta(days=14)


Judgement = tuple[bool, str, str | None]
"""C{(ok, detail, fix)}."""


def judgeCertificate(endpoint: str, host: str | None,
                     now: datetime) -> Judgement:
    """
    C{(ok, detail, fix)} for the certificate of C{endpoint} at C{now};
    C{host} is the one clients reach (from --auth-audience), or L{None}.
    """
    certificate = certificatePath(endpoint)
    if certificate is None:
        return (True, "not used: the daemon speaks plain HTTP on this port "
                "(keep it on loopback or behind a TLS proxy)", None)
    try:
        names, notBefore, notAfter = readCertificate(certificate)
    except (OSError, ValueError) as e:
        return (False, f"{certificate}: {e}", "make the certificate file "
                "readable by the daemon's user and PEM-encoded")
    if now < notBefore or now > notAfter:
        return (False, f"{certificate} is valid from {notBefore:%Y-%m-%d} "
                f"to {notAfter:%Y-%m-%d}", "renew the certificate")
    if not names:
        return (False, f"{certificate} names no host (no subjectAltName)",
                "issue it for the host names clients use")
    if not covers(names, host):
        return (False, f"{certificate} is for {', '.join(names)}, not "
                f"{host}, the host of --auth-audience, so clients refuse it",
                f"issue it for {host}, or correct --auth-audience")
    soon = " (renew it soon)" if notAfter - now < EXPIRY_WARNING else ""
    return (True, f"for {', '.join(names)}; valid until "
            f"{notAfter:%Y-%m-%d}{soon}", None)


def covers(names: Iterable[str], host: str | None) -> bool:
    """
    Whether a certificate for C{names} (its subjectAltNames) is valid for
    C{host}: the name itself, a wildcard for its leftmost label, or the
    address; any host when there is none to check.
    """
    if host is None:
        return True
    host = host.lower().rstrip(".")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    for name in names:
        name = name.lower().rstrip(".")
        if address is not None:
            try:
                if ipaddress.ip_address(name) == address:
                    return True
            except ValueError:
                pass
        elif name == host or (name.startswith("*.") and "." in host
                              and host.split(".", 1)[1] == name[2:]):
            return True
    return False


def certificatePath(endpoint: str) -> str | None:
    """
    The certificate file of an C{ssl:} endpoint string, or L{None}.
    """
    kind, _, keywords = splitDescription(endpoint)
    if kind.lower() != "ssl":
        return None
    return keywords.get("certKey") or keywords.get("privateKey")


def readCertificate(path: str) -> tuple[list[str], datetime, datetime]:
    """
    C{(names, notBefore, notAfter)} of the first certificate in a PEM file.
    """
    from cryptography import x509
    with open(path, "rb") as f:
        certificate = x509.load_pem_x509_certificate(f.read())
    try:
        names = certificate.extensions.get_extension_for_class(
            x509.SubjectAlternativeName).value
        hosts = [str(each.value) for each in names]
    except x509.ExtensionNotFound:
        hosts = []
    return (hosts, certificate.not_valid_before_utc,
            certificate.not_valid_after_utc)

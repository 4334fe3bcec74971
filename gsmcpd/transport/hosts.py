"""
Which browser origins may call the daemon, and which names it answers to.

Both stop a web page from driving a local daemon.  C{Origin} is what a
browser says the calling page is; C{Host} is the name the page used to
reach us, which DNS rebinding makes the attacker's own name resolving to
loopback, so checking C{Host} stops what an C{Origin} check alone lets
through.
"""

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

import attr

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})

DEFAULT_PORTS = {"http": 80, "https": 443}


Origin = tuple[str, str, int | None]
"""An origin as compared: C{(scheme, host, port)}."""


def _origin(value: str) -> Origin | None:
    """
    C{(scheme, host, port)} of an origin or URL, lowercased, with the
    scheme's default port filled in; or L{None} if it is not one.
    """
    try:
        parts = urlsplit(value.strip())
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not parts.scheme or not host:
        return None
    scheme = parts.scheme.lower()
    return scheme, host, port or DEFAULT_PORTS.get(scheme)


@attr.s(frozen=True, auto_attribs=True)
class OriginPolicy:
    """
    The browser origins allowed to call.

    @ivar hosts: hosts allowed from any scheme and port.
    @ivar origins: C{(scheme, host, port)} allowed exactly.
    """

    hosts: frozenset[str]
    origins: frozenset[Origin]

    @classmethod
    def fromOptions(cls, allowed: Iterable[str]) -> "OriginPolicy":
        """
        From C{--allowed-origin} values: a bare host allows it on any port;
        a full origin (C{http://localhost:3000}) allows exactly that one.
        Loopback is allowed on any port unless an allowed origin pins a
        loopback host to a port.
        """
        allowed = list(allowed)
        origins = {origin for origin in map(_origin, (
            value for value in allowed if "://" in value))
            if origin is not None}
        hosts = {value.strip().strip("[]").lower() for value in allowed
                 if "://" not in value}
        if not any(host in LOOPBACK_HOSTS for _, host, _ in origins):
            hosts |= LOOPBACK_HOSTS
        return cls(frozenset(hosts), frozenset(origins))

    def allows(self, origin: str) -> bool:
        """
        Whether a request with this C{Origin} header value may be served.
        """
        parsed = _origin(origin)
        if parsed is None:
            return False
        return parsed[1] in self.hosts or parsed in self.origins


HOST_HEADER = re.compile(
    r"(?P<name>[A-Za-z0-9._-]+|\[(?P<ipv6>[0-9A-Fa-f:.]+)\])(:[0-9]{1,5})?")


def hostName(header: str) -> str | None:
    """
    The lowercased name in a C{Host} header value, without its port or an
    IPv6 address's brackets; L{None} if it is not one.
    """
    found = HOST_HEADER.fullmatch(header)
    if found is None:
        return None
    return (found.group("ipv6") or found.group("name")).lower()


@attr.s(frozen=True, auto_attribs=True)
class HostPolicy:
    """
    The names a request may address the daemon by: loopback, the address
    its connection reached, and C{--allowed-host} values.
    """

    names: frozenset[str]

    @classmethod
    def fromOptions(cls, allowed: Iterable[str]) -> "HostPolicy":
        return cls(LOOPBACK_HOSTS | {value.strip().strip("[]").lower()
                                     for value in allowed})

    def allows(self, header: str | None,
               localAddress: str | None) -> bool:
        """
        Whether a request with this C{Host} header value (L{None} when
        absent, as from an HTTP/1.0 client) reaching C{localAddress} may be
        served.
        """
        if header is None:
            return True
        name = hostName(header)
        return name is not None and (name in self.names
                                     or name == localAddress)

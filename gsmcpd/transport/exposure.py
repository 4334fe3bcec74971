"""
Who can reach the daemon: whether its endpoint is loopback-only and whether
it speaks TLS, the refusals that follow, and the URL clients use.

An MCP session runs Smalltalk as a GemStone user, so a port reachable from
the network without authentication hands the repository to anyone who can
reach it; and a bearer token sent in plaintext is a token anyone on the path
can replay.
"""

import ipaddress
import socket

import attr

from gsmcpd.transport.tls import splitDescription

ALL_INTERFACES = {"tcp": "0.0.0.0", "ssl": "0.0.0.0", "tcp6": "::"}
# Kinds that never listen on a network interface, or whose operator decided
# where they listen (systemd socket activation).
LOCAL_KINDS = {"unix", "systemd"}


class ExposureError(ValueError):
    """
    The endpoint would expose the daemon unsafely; the message names the fix.
    """


def isLoopback(interface: str) -> bool:
    if interface == "localhost":
        return True
    try:
        return ipaddress.ip_address(interface).is_loopback
    except ValueError:
        return False


@attr.s(frozen=True, auto_attribs=True)
class Listening:
    """
    What an endpoint description exposes.

    @ivar description: as given to C{--port}.
    @ivar kind: C{tcp}, C{tcp6}, C{ssl}, C{unix}, ...
    @ivar interface: the address listened on (all interfaces spelled out).
    @ivar local: only this machine can connect.
    @ivar tls: connections are TLS.
    """

    description: str
    kind: str
    interface: str | None
    local: bool
    tls: bool

    @classmethod
    def parse(cls, description: str) -> "Listening":
        """
        @return: what C{description} exposes. Twisted matches endpoint
            kinds without regard to case, so this does too; a unix socket
            or a socket systemd passed counts as local, and any kind this
            cannot judge as remote, so that an unfamiliar spelling never
            slips past the refusals.
        """
        kind, positional, keywords = splitDescription(description)
        kind = kind.lower()
        if kind not in ALL_INTERFACES:
            return cls(description, kind, None, local=kind in LOCAL_KINDS,
                       tls=False)
        interface = keywords.get("interface") or ALL_INTERFACES.get(kind)
        return cls(description, kind, interface,
                   local=interface is not None and isLoopback(interface),
                   tls=kind == "ssl")

    def check(self, authenticated: bool,
              allowUnauthenticatedRemote: bool) -> None:
        """
        @raise ExposureError: naming the fix, when the daemon would listen
            beyond this machine without authentication (unless the operator
            said they mean it), or take bearer tokens in plaintext over the
            network.
        """
        if self.local:
            return
        where = f"--port {self.description} " + (
            f"listens on {self.interface}" if self.interface is not None
            else f"is a {self.kind}: endpoint, which may listen beyond this "
            "machine")
        if authenticated and not self.tls:
            raise ExposureError(
                f"{where} in plaintext, so bearer tokens would cross the "
                "network readable: use an ssl: endpoint (docs/tls.rst)")
        if not authenticated and not allowUnauthenticatedRemote:
            raise ExposureError(
                f"{where}, reachable from the network, without "
                "authentication: set --auth-issuer and --auth-audience "
                "(docs/authentication.rst), listen on 127.0.0.1, or pass "
                "--allow-unauthenticated-remote if that is what you mean")

    def clientUrl(self, port: object, resource: str | None = None) -> str:
        """
        The URL clients connect to: the resource identifier when there is
        one, else built from the endpoint and the port it got.
        """
        if resource is not None:
            return resource
        if self.kind == "unix":
            return f"http://localhost/mcp (over the unix socket {port})"
        host = self.interface
        if host is None:
            # A socket systemd passed: its unit says where; this machine
            # is where a local client finds it.
            host = "localhost"
        elif host in ("0.0.0.0", "::"):
            host = socket.getfqdn()
        elif ":" in host:
            host = f"[{host}]"
        return f"{'https' if self.tls else 'http'}://{host}:{port}/mcp"

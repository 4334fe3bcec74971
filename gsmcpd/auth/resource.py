"""
This server's public face as an OAuth protected resource: its RFC 9728
metadata document, and the C{WWW-Authenticate} challenge that points a
refused client at it.
"""

from typing import Any
from urllib.parse import urlsplit

import attr

from gsmcpd.auth.tokens import InsufficientScope, NoToken

METADATA_PATH = "/.well-known/oauth-protected-resource"


def quoted(text: str) -> str:
    """
    An RFC 9110 quoted-string.
    """
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@attr.s(frozen=True, auto_attribs=True)
class Challenge:
    """
    How a request refused for its credentials is answered.

    @ivar status: 401 or 403.
    @ivar authenticate: the C{WWW-Authenticate} header's value.
    @ivar message: a sentence for the body; never the token.
    """

    status: int
    authenticate: str
    message: str


@attr.s(frozen=True, auto_attribs=True)
class ProtectedResource:
    """
    The resource identifier and what a client needs to know to get a token
    for it.

    @ivar resource: the resource identifier (C{--auth-audience}): the
        absolute URL of C{/mcp} as clients reach it.
    @ivar issuer: the authorization server.
    @ivar requiredScopes: scopes every token must carry.
    @ivar offeredScopes: further scopes worth asking for (those that open
        toolsets).
    @ivar name: a human-readable name for the resource, or L{None}.
    """

    resource: str
    issuer: str
    requiredScopes: frozenset = frozenset()
    offeredScopes: frozenset = frozenset()
    name: str | None = None

    @property
    def metadataUrl(self) -> str:
        """
        Where RFC 9728 says the metadata of L{resource} is: the well-known
        path inserted between its host and its path.
        """
        parts = urlsplit(self.resource)
        path = parts.path.rstrip("/")
        return f"{parts.scheme}://{parts.netloc}{METADATA_PATH}{path}"

    def metadata(self) -> dict[str, Any]:
        """
        The Protected Resource Metadata document.
        """
        document = {
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "scopes_supported": sorted(self.requiredScopes
                                       | self.offeredScopes),
            "bearer_methods_supported": ["header"],
        }
        if self.name:
            document["resource_name"] = self.name
        return document

    def challenge(self, error: Exception) -> Challenge:
        """
        The answer to a request refused with C{error}, an
        L{AuthenticationError}.
        """
        parameters = [f"resource_metadata={quoted(self.metadataUrl)}"]
        if isinstance(error, InsufficientScope):
            scopes = error.missing | self.requiredScopes
            parameters += ['error="insufficient_scope"',
                           f"scope={quoted(' '.join(sorted(scopes)))}",
                           f"error_description={quoted(str(error))}"]
            return Challenge(403, "Bearer " + ", ".join(parameters),
                             f"Forbidden: {error}")
        if self.requiredScopes:
            parameters.append(
                f"scope={quoted(' '.join(sorted(self.requiredScopes)))}")
        if not isinstance(error, NoToken):
            parameters += ['error="invalid_token"',
                           f"error_description={quoted(str(error))}"]
        return Challenge(401, "Bearer " + ", ".join(parameters),
                         f"Unauthorized: {error}")

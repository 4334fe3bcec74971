"""
Every MCP revision this server knows, in order, and each era's.  Nothing
else names a revision, nor compares two strings: later means later in
L{KNOWN}.
"""

KNOWN = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
         "2026-07-28")

MODERN_VERSION = KNOWN[4]
"""The stateless revision: no handshake, every request self-describing."""
LEGACY_VERSIONS = KNOWN[2:4]
"""The handshake revisions this server negotiates."""
LATEST_LEGACY_VERSION = LEGACY_VERSIONS[-1]
"""What C{initialize} answers a client asking for one it does not speak."""
SUPPORTED_VERSIONS = LEGACY_VERSIONS + (MODERN_VERSION,)
"""What C{server/discover} and every C{-32022} error list."""
HANDSHAKE_ERA_VERSIONS = KNOWN[:4]
"""A version header naming one keeps a request on the 2025 path (own gate)."""
TOLERATED_VERSION_HEADERS = (KNOWN[1],)
"""Never negotiated, but accepted in a session's request header: the
conformance suite and older SDKs send them, and the body means the same."""
PRIMED_STREAMS_SINCE = KNOWN[3]
"""Event streams open with a priming event (an id, no data) from it on, so a
client can resume one that ends before its first message."""


def atLeast(version: str | None, revision: str) -> bool:
    """Whether C{version} is C{revision} or later (an unknown one is not)."""
    return version in KNOWN and KNOWN.index(version) >= KNOWN.index(revision)


def negotiateVersion(requested: object) -> str:
    """Echo the client's protocol version if we speak it, else our latest."""
    if requested in LEGACY_VERSIONS:
        return requested
    return LATEST_LEGACY_VERSION

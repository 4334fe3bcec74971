"""
C{server/discover}: what this server is and speaks.  A 2026-07-28 client
asks first (it has no handshake) and may cache the answer; a 2025 client
may ask too.  Both get the same facts; each era names the server in its own
place (2026: C{_meta}; 2025: the body, as C{initialize} does).
"""

from gsmcpd.protocol.jsonrpc import JsonObject
from gsmcpd.protocol.versions import SUPPORTED_VERSIONS


def discoverAnswer(capabilities: JsonObject,
                   instructions: str | None = None) -> JsonObject:
    answer = {"supportedVersions": list(SUPPORTED_VERSIONS),
              "capabilities": capabilities}
    if instructions:
        answer["instructions"] = instructions
    return answer


def namedInBody(answer: JsonObject, serverInfo: JsonObject) -> JsonObject:
    """C{answer} naming the server in its body, as the 2025 era does."""
    return dict(answer, serverInfo=serverInfo)

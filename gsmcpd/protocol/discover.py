"""
C{server/discover}: what this server is and speaks, the same facts in both
eras; the 2026 one names the server in C{_meta}, the 2025 one in the body,
as C{initialize} does.
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

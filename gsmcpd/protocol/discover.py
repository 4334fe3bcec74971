"""
C{server/discover}: what this server is and speaks, asked before anything
else.

A 2026-07-28 client has no handshake, so it asks once (and may cache the
answer, see L{gsmcpd.protocol.eras.modern.results.CACHE_HINTS}); a 2025
client inside its session may ask too.  Both get the same facts: every
supported revision, the capabilities and the instructions, as that era
declares them; each era names the server in its own place (the 2026 one in
C{_meta}, the 2025 one in the body, as C{initialize} does).
"""

from gsmcpd.protocol.jsonrpc import JsonObject
from gsmcpd.protocol.versions import SUPPORTED_VERSIONS


def discoverAnswer(capabilities: JsonObject,
                   instructions: str | None = None) -> JsonObject:
    """
    @param capabilities: the server capabilities, as served in that era.
    @param instructions: the hint for the model, or L{None}.
    """
    answer = {"supportedVersions": list(SUPPORTED_VERSIONS),
              "capabilities": capabilities}
    if instructions:
        answer["instructions"] = instructions
    return answer


def namedInBody(answer: JsonObject, serverInfo: JsonObject) -> JsonObject:
    """
    C{answer} naming the server in its body, as the 2025 era does.
    """
    return dict(answer, serverInfo=serverInfo)

"""
C{server/discover}: what this server is and speaks, asked before anything
else.

A 2026-07-28 client has no handshake, so it asks once (and may cache the
answer, see L{gsmcpd.protocol.eras.modern.results.CACHE_HINTS}); a 2025 client inside
its session may ask too.  Both get the same facts: every supported
revision, the capabilities, who the server is and its instructions, each
era in its own shape (the 2026 one names the server in C{_meta}, the 2025
one in the body as C{initialize} does).
"""

from gsmcpd.protocol.jsonrpc import JsonObject

from gsmcpd.protocol.eras.modern.envelope import SERVER_INFO_KEY
from gsmcpd.protocol.versions import SUPPORTED_VERSIONS
from gsmcpd.protocol.eras.modern.results import complete


def discoverResult(serverInfo: JsonObject, capabilities: JsonObject,
                   instructions: str | None = None,
                   modern: bool = True) -> JsonObject:
    """
    @param serverInfo: C{{name, version[, title]}}.
    @param capabilities: the server capabilities, as served in that era.
    @param instructions: the hint for the model, or L{None}.
    @param modern: the 2026-07-28 shape, else the 2025 one.
    """
    answer = {"supportedVersions": list(SUPPORTED_VERSIONS),
              "capabilities": capabilities}
    if instructions:
        answer["instructions"] = instructions
    if not modern:
        return dict(answer, serverInfo=serverInfo)
    return complete("server/discover",
                    dict(answer, _meta={SERVER_INFO_KEY: serverInfo}))

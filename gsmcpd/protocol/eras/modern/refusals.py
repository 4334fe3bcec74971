"""
Which of a 2026-era call's failures before it ran are refusals, audited and
counted as C{refused:<kind>} (L{gsmcpd.observe.metrics.REFUSALS}); any other
is recorded as what its client is told.
"""

from typing import Any

from gsmcpd.observe.audit import CallRefused
from gsmcpd.protocol import kinds
from gsmcpd.protocol.jsonrpc import JsonRpcError
from gsmcpd.tools.templates.outcomes import ToolError


def asRefusal(error: JsonRpcError | ToolError, handle: str | None,
              principal: Any, sessions: Any) -> Exception:
    """
    C{error} as the L{CallRefused} it is, or itself when it is none: a
    handle unknown or another's (told alike, only the audit tells them
    apart), none, or over a share.
    """
    if isinstance(error, ToolError):
        kind = kinds.NO_SUCH_SESSION if error.kind == "refused" else None
    else:
        kind = error.data.get("kind") if isinstance(error.data, dict) \
            else None
    if kind == kinds.SHARE_CAP:
        return CallRefused(kind, error)
    if kind != kinds.NO_SUCH_SESSION:
        return error
    if handle is None:
        return CallRefused("handleRequired", error)
    owner = getattr(sessions.work.get(handle), "principal", None)
    return CallRefused("foreignHandle" if owner is not None and (
        principal is None or owner.identity != principal.identity)
        else "unknownHandle", error)

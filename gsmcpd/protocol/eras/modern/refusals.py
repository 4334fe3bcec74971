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


def refusalOf(error: JsonRpcError | ToolError, handle: str | None,
              principal: Any, sessions: Any) -> str | None:
    """
    The refusal C{error} is, or L{None}: a handle unknown or another's
    (told alike, only the audit tells them apart), none, or over a share.
    """
    if isinstance(error, ToolError):
        if error.kind != "refused":
            return None
    elif not isinstance(error.data, dict):
        return None
    elif error.data.get("kind") == kinds.SHARE_CAP:
        return kinds.SHARE_CAP
    elif error.data.get("kind") != kinds.NO_SUCH_SESSION:
        return None
    if handle is None:
        return "handleRequired"
    owner = getattr(sessions.work.get(handle), "principal", None)
    return "foreignHandle" if owner is not None and (
        principal is None or owner.identity != principal.identity) \
        else "unknownHandle"


def asRefusal(error: JsonRpcError | ToolError, handle: str | None,
              principal: Any, sessions: Any) -> Exception:
    """C{error} as the L{CallRefused} it is, or itself when it is none."""
    kind = refusalOf(error, handle, principal, sessions)
    return error if kind is None else CallRefused(kind, error)

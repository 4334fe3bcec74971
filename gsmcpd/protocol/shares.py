"""
A caller over its share (L{gsmcpd.sessions.shares}) is told, in either era,
the C{shareCap} kind, the C{cap} option and its C{limit}: a call with
C{-32602} before anything is queued, a session with C{-32001} as a full
server's C{sessionLimit} is.
"""

from gsmcpd.protocol import kinds
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, SERVER_ERROR, JsonRpcError
from gsmcpd.sessions.shares import (
    CALLS_PER_IDENTITY,
    CALLS_PER_SESSION,
    SESSIONS_PER_IDENTITY,
    ShareExhausted,
)

WAIT_FOR_CALLS = ("Wait for one to finish (tasks/get shows a task's state) "
                  "or cancel one (tasks/cancel, notifications/cancelled), "
                  "then call again.")

CLOSE_ONE = ("Close a session you no longer need (close_session), or pass "
             "the handle of one you hold as 'session', then try again.")
END_ONE = ("End an MCP session of yours you no longer need (its client's "
           "DELETE), then try again.")
"""What an agent can do about its share of sessions: 2026, and 2025."""

WHAT_IS_HELD = {
    CALLS_PER_SESSION: "This GemStone session already has {limit} calls in "
                       "flight (queued or running, tasks included), its "
                       "share",
    CALLS_PER_IDENTITY: "You already have {limit} calls in flight across "
                        "your GemStone sessions (queued or running, tasks "
                        "included), your share",
    SESSIONS_PER_IDENTITY: "You already hold {limit} GemStone sessions, your "
                           "share of this server's (the rest are kept for "
                           "others)",
}


def shareRefusal(exhausted: ShareExhausted,
                 whatToDo: str = WAIT_FOR_CALLS) -> JsonRpcError:
    """The error for a call or session over its share, saying C{whatToDo}."""
    held = WHAT_IS_HELD[exhausted.cap].format(limit=exhausted.limit)
    code = SERVER_ERROR if exhausted.cap == SESSIONS_PER_IDENTITY \
        else INVALID_PARAMS
    return JsonRpcError(
        code, f"{held} (--{exhausted.cap} {exhausted.limit}). {whatToDo}",
        {"kind": kinds.SHARE_CAP, "cap": exhausted.cap,
         "limit": exhausted.limit})

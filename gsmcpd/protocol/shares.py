"""
A caller over its fair share (L{gsmcpd.sessions.shares}), told so in
either era: a JSON-RPC error an agent can act on, naming the cap.

A refusal for a share is a L{JsonRpcError} whose C{data.kind} is
C{shareCap}, the refusal kind the metrics count it under
(L{gsmcpd.observe.metrics.REFUSALS}); C{data.cap} names the option that
sets the cap and C{data.limit} its value.  A call over its share is
refused with C{-32602}, before anything is queued; a session over its
identity's share with C{-32001}, as a full server's C{sessionLimit} is.
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
"""What an agent can do about holding its share of sessions: in the
2026-07-28 era, and in the 2025 revisions."""

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
    """
    The error for a call or session over its share.

    @param whatToDo: for a session, what the agent can do about it in its
        era (close a session, end an MCP session); a call's is
        L{WAIT_FOR_CALLS}.
    """
    held = WHAT_IS_HELD[exhausted.cap].format(limit=exhausted.limit)
    code = SERVER_ERROR if exhausted.cap == SESSIONS_PER_IDENTITY \
        else INVALID_PARAMS
    return JsonRpcError(
        code, f"{held} (--{exhausted.cap} {exhausted.limit}). {whatToDo}",
        {"kind": kinds.SHARE_CAP, "cap": exhausted.cap,
         "limit": exhausted.limit})

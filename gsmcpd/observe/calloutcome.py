"""
What one call came to, as a typed value: what its record counts and
audits, and what its era frames for its client.

The call path makes a L{CallOutcome} once, from the call's failure
(L{gsmcpd.protocol.recording.outcomeOf}) or its result (L{resultOutcome});
the metrics, the audit trail and the era read its fields, so no layer
builds a JSON-RPC response for another to take apart again.
"""

from typing import Any

import attr

COMMIT_TOOL = "commit"
COMMITTED_META = "gsmcpd/committed"
"""The key of a result's C{_meta} that says the stone committed while any
other tool's call ran (code it ran sent the commit): C{true}, or C{null}
when the view moved and the stone cannot say whether by a commit."""
DISCARDED_META = "gsmcpd/discarded"
"""The key that says instead that code it ran moved the view and left
nothing the session held (an abort)."""
CHANGED_META = "gsmcpd/changed"
"""The key that says, of a call whose view stayed, that the session held
no uncommitted change before it and does after: the change is the call's."""
INPUT_REQUIRED = "input_required"
"""The C{resultType} of a 2026-era round that asks the client."""

OK = "ok"
TOOL_ERROR = "toolError"
ERROR = "error"
ASKED_FOR_INPUT = "askedForInput"
CANCELLED = "cancelled"

UNSETTLED = frozenset({"deadline", "pinned", "sessionGone"})
"""The error kinds of a call the server ended before its GemStone call
answered: for a C{commit}, whether it committed is not known."""


@attr.s(frozen=True, slots=True, auto_attribs=True)
class CallOutcome:
    """
    How one call ended.

    @ivar ended: L{OK}, L{TOOL_ERROR} (a result with C{isError}), L{ERROR}
        (a JSON-RPC error), L{ASKED_FOR_INPUT} (a 2026-era round that asks
        the client: a question, not an error) or L{CANCELLED} (nobody
        waits for an answer).
    @ivar kind: the error's C{data.kind} (C{jsonrpc} when it names none),
        or the tool error's kind (C{other} when it names none).
    @ivar code: the JSON-RPC error's code.
    @ivar result: the result value, for L{OK} and L{TOOL_ERROR}.
    @ivar handle: the session handle a result names (C{open_session},
        C{close_session}), typed here so nobody reads it back out.
    """

    ended: str
    kind: str | None = None
    code: int | None = None
    result: dict[str, Any] | None = None
    handle: str | None = None

    @property
    def meta(self) -> dict[str, Any]:
        """
        The C{_meta} of its result, or an empty one.
        """
        meta = (self.result or {}).get("_meta")
        return meta if isinstance(meta, dict) else {}

    def commit(self, tool: str | None) -> str | None:
        """
        How a commit a call of C{tool} made ended: a C{commit}'s as
        L{commitOutcome} says; for any other tool C{committed} when its
        result says the stone committed while it ran (L{COMMITTED_META}),
        C{unknown} when it says the stone may have, else L{None}.
        """
        if tool == COMMIT_TOOL:
            return self.commitOutcome()
        if COMMITTED_META not in self.meta:
            return None
        return "committed" if self.meta[COMMITTED_META] is True \
            else "unknown"

    def commitOutcome(self) -> str | None:
        """
        What the stone answered a C{commit} that came to this:
        C{committed}, C{conflict} (a tool error naming the conflicts) or
        C{failed} (any other answer); C{unknown} for a commit the server
        ended before the stone answered (its deadline, its gem gone: it
        may have committed); L{None} for a C{commit} that never reached
        the stone (refused, a protocol error, a question to the client).
        """
        if self.ended == ERROR and self.kind in UNSETTLED:
            return "unknown"
        if self.ended not in (OK, TOOL_ERROR):
            return None
        structured = (self.result or {}).get("structuredContent") or {}
        if self.ended == OK:
            return "committed" if structured.get("committed") else "failed"
        return "conflict" if "conflicts" in (structured.get("error") or {}) \
            else "failed"


NO_ANSWER = CallOutcome(CANCELLED)
"""A call nobody waits for an answer to."""
ASKED = CallOutcome(ASKED_FOR_INPUT)
"""A 2026-era round that asks the client."""


def resultOutcome(value: dict[str, Any]) -> CallOutcome:
    """
    What a call whose result is C{value} came to: a question to the client,
    a tool's error, or a whole answer, with the handle it names (what
    C{open_session} and C{close_session} answer), read here once.
    """
    if value.get("resultType") == INPUT_REQUIRED:
        return ASKED
    named = (value.get("structuredContent") or {}).get("session")
    handle = named if isinstance(named, str) else None
    if value.get("isError"):
        failure = (value.get("structuredContent") or {}).get("error")
        kind = failure.get("kind") if isinstance(failure, dict) else None
        return CallOutcome(TOOL_ERROR, kind or "other", result=value,
                           handle=handle)
    return CallOutcome(OK, result=value, handle=handle)

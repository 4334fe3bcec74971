"""
What a client reads in an error's C{data.kind}: a closed set, declared
here once, so an agent can branch on a kind without parsing prose, and a
new kind is a decision made in one place (and in docs/protocol.rst).

A JSON-RPC error whose C{data} names a kind outside L{KINDS} cannot be
made (L{gsmcpd.protocol.jsonrpc.JsonRpcError} refuses it), and a test reads
every kind the runtime code spells against this module.  A tool's own
failure is a result, not an error: its C{structuredContent.error.kind} is
one of L{gsmcpd.tools.templates.outcomes.ERROR_KINDS}, closed in the same
way (L{gsmcpd.tools.templates.outcomes.ToolError}).
"""

SESSION_LIMIT = "sessionLimit"
"""Every GemStone session slot is taken (2025 C{initialize})."""
SERVER_STOPPING = "serverStopping"
"""The daemon is draining: no new session opens on it."""
LOGIN_FAILED = "loginFailed"
"""The GemStone login failed; the server log says why."""
STONE_NOT_ANSWERING = "stoneNotAnswering"
"""The stone did not answer a login within C{--stone-deadline}."""
SESSION_GONE = "sessionGone"
"""The call's gem died; its session is closed."""
NO_SUCH_SESSION = "noSuchSession"
"""A 2026 C{session} handle names no live session of the caller's."""
DEADLINE = "deadline"
"""The call ran past C{--call-timeout} and was ended."""
PINNED = "pinned"
"""The call held the oldest commit record under real backlog too long."""
TAMPERED_STATE = "tamperedState"
"""A 2026 C{requestState} altered, foreign, expired or already used."""
SHARE_CAP = "shareCap"
"""A caller over its fair share (calls in flight, sessions held)."""
AUDIT_UNAVAILABLE = "auditUnavailable"
"""The audit trail cannot be written: no tool call runs until it can."""

KINDS = frozenset({SESSION_LIMIT, SERVER_STOPPING, LOGIN_FAILED,
                   STONE_NOT_ANSWERING, SESSION_GONE, NO_SUCH_SESSION,
                   DEADLINE, PINNED, TAMPERED_STATE, SHARE_CAP,
                   AUDIT_UNAVAILABLE})
"""Every C{error.data.kind} the daemon answers."""

ENDED = frozenset({DEADLINE, PINNED})
"""The kinds of a call the server ended (the policy that ended it; a call
its client cancelled is not answered at all)."""

"""
What a client reads in an error's C{data.kind}: a closed set, declared here
and in docs/protocol.rst, so an agent branches without parsing prose
(L{gsmcpd.protocol.jsonrpc.JsonRpcError} refuses any other, and a test any
kind the code spells that is not here).  A tool's own failure is a result:
L{gsmcpd.tools.templates.outcomes.ERROR_KINDS}.
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
"""A call the server ended (its client's cancelled call gets no answer)."""

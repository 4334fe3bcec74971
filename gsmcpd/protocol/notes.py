"""
The C{[session]} note: the line a tool's result ends with when what the
tool did lives in the session (uncommitted) or died with it (a throwaway
session's, logged out).
"""

from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.base import Tool

SESSION_NOTE = (
    "[session] Uncommitted changes: commit keeps them, abort discards them; "
    "ending the session (DELETE, idle timeout, server restart) loses them.")
"""Appended to the result of a tool that can change something (one not
annotated read-only) while the session holds uncommitted changes: what a
read-only tool answers cannot have added to them."""
THROWAWAY_NOTE = (
    "[session] ran in a throwaway session, logged out after this call: "
    "nothing it changed or left in the session was kept; open_session to "
    "keep your work")
"""Appended instead to the result of such a tool run in a throwaway
session (a 2026-era call without a handle), which no later call uses."""


def sessionNotes(tool: Tool, needsCommit: bool | None,
                 session: IWorkSession | None) -> list[str]:
    """
    The C{[session]} note a tool's result ends with, if any: only a tool
    that can change something has one to make.

    @param session: the work session it ran in, or L{None}.
    """
    if tool.annotations.get("readOnlyHint"):
        return []
    if session is not None and session.throwaway:
        return [THROWAWAY_NOTE]
    return [SESSION_NOTE] if needsCommit else []

"""
The C{[session]} note: the line a tool's result ends with when what the
tool did lives in the session (uncommitted) or died with it (a throwaway
session's, logged out), and when code it ran moved the session's view.
"""

from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.base import Tool
from gsmcpd.tools.templates.outcomes import STILL, ViewMove

VIEW_TOOLS = frozenset({"abort", "commit", "refresh"})
"""The tools whose whole point is to move the view: what they did is their
answer, and C{commit} records its own commit."""
COMMITTED_NOTE = (
    "[session] Committed: code this call ran committed the session's "
    "transaction, so its changes and those made before it are in the "
    "repository (recorded as the session's last commit; see status). Reads "
    "and object ids from before it no longer count.")
MOVED_NOTE = (
    "[session] The view moved: code this call ran aborted or refreshed the "
    "session's transaction (an abort discards uncommitted changes), or the "
    "stone revoked its view (see the error). Reads and object ids from "
    "before it no longer count.")
MAYBE_COMMITTED_NOTE = (
    "[session] The view moved and it may have committed: code this call "
    "ran committed or aborted the session's transaction, and the stone "
    "cannot say which (recorded as a commit whose outcome is unknown; call "
    "status, or read what it changed, to check). Reads and object ids from "
    "before it no longer count.")

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
                 session: IWorkSession | None,
                 moved: ViewMove = STILL) -> list[str]:
    """
    The C{[session]} notes a tool's result ends with, if any: whether code
    it ran moved the view (as the stone said, L{viewNote}); then only a
    tool that can change something has one to make.

    @param session: the work session it ran in, or L{None}.
    """
    notes = viewNote(tool, moved)
    if tool.annotations.get("readOnlyHint"):
        return notes
    if session is not None and session.throwaway:
        return notes + [THROWAWAY_NOTE]
    return notes + ([SESSION_NOTE] if needsCommit else [])


def viewNote(tool: Tool, moved: ViewMove) -> list[str]:
    """
    The note saying the view moved while C{tool} ran, committed or not;
    none for a tool that moves it by design (L{VIEW_TOOLS}).
    """
    if not moved.moved or tool.name in VIEW_TOOLS:
        return []
    return [MAYBE_COMMITTED_NOTE if moved.committed is None
            else COMMITTED_NOTE if moved.committed else MOVED_NOTE]

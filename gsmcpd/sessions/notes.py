"""
The C{[session]} notes a tool's result ends with: what it did lives in the
session (uncommitted) or died with it (a throwaway session), or code it
ran moved the session's view.
"""

from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.tools.base import Tool
from gsmcpd.tools.templates.outcomes import STILL, ViewMove

VIEW_TOOLS = frozenset({"abort", "commit", "refresh"})
"""Tools whose point is to move the view: what they did is their answer."""
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
"""For a tool not annotated read-only (only those can have added to the
changes) while the session holds uncommitted changes."""
THROWAWAY_NOTE = (
    "[session] ran in a throwaway session, logged out after this call: "
    "nothing it changed or left in the session was kept; open_session to "
    "keep your work")
"""Instead, for such a tool run in a throwaway session (no handle)."""


def sessionNotes(tool: Tool, needsCommit: bool | None,
                 session: IWorkSession | None,
                 moved: ViewMove = STILL) -> list[str]:
    """The view's note, then the session's for a tool that can change it."""
    notes = viewNote(tool, moved)
    if tool.annotations.get("readOnlyHint"):
        return notes
    if session is not None and session.throwaway:
        return notes + [THROWAWAY_NOTE]
    return notes + ([SESSION_NOTE] if needsCommit else [])


def viewNote(tool: Tool, moved: ViewMove) -> list[str]:
    """The note saying the view moved, unless C{tool} moves it by design."""
    if not moved.moved or tool.name in VIEW_TOOLS:
        return []
    return [MAYBE_COMMITTED_NOTE if moved.committed is None
            else COMMITTED_NOTE if moved.committed else MOVED_NOTE]

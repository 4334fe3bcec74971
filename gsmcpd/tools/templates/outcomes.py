"""
What running a template can come to, besides its value: a closed set, so
every caller handles the same few cases and none of them reads a
L{gsmcpd.gci.errors.GciError}.
"""

from typing import Any

import attr

ERROR_KINDS = ("compileError", "refused", "notFound", "invalidParams",
               "sessionLimit", "other")


@attr.s(frozen=True, auto_attribs=True)
class ViewMove:
    """
    How a session's view moved while a template ran, as the stone told the
    envelope, whatever sent it (the template, or code it ran).

    @ivar moved: whether the view moved (a commit, an abort, a continue):
        what the session read or was shown before no longer counts.
    @ivar committed: whether a commit moved it; L{None} when the stone
        cannot say (the last commit's result was C{#success} before and
        after: it committed, or aborted), so it is recorded as a commit
        whose outcome is unknown.
    """

    moved: bool = False
    committed: bool | None = False

    @classmethod
    def of(cls, document: dict[str, Any]) -> "ViewMove":
        """
        The move an envelope's document reports.
        """
        if not document.get("viewMoved"):
            return STILL
        committed = document.get("committed")
        return cls(True, None if committed is None else committed is True)

    def then(self, later: "ViewMove") -> "ViewMove":
        """
        This move followed by C{later}: one call's moves, as one (a commit
        if either committed, else unknown if either may have).
        """
        if True in (self.committed, later.committed):
            committed = True
        elif None in (self.committed, later.committed):
            committed = None
        else:
            committed = False
        return ViewMove(self.moved or later.moved, committed)


STILL = ViewMove()
"""The view did not move."""


@attr.s(auto_exc=True, auto_attribs=True)
class ToolError(Exception):
    """
    A tool failed in a way the client can read and act on: a Smalltalk
    error, a refusal or a missing subject, or a check of the tool's own.

    @ivar kind: one of L{ERROR_KINDS}, so a client can branch without
        parsing prose.
    @ivar needsCommit: whether the session held uncommitted changes when a
        template failed with it; L{None} when no template ran.
    @ivar moved: how the view moved before the template failed with it.
    """

    kind: str = attr.ib(validator=attr.validators.in_(ERROR_KINDS))
    message: str
    details: dict | None = None
    needsCommit: bool | None = attr.ib(default=None, eq=False, repr=False)
    moved: ViewMove = attr.ib(default=STILL, eq=False, repr=False)


class ResultOverLimit(ToolError):
    """
    The template's answer was larger than the daemon accepts; the envelope
    answered this error in its place.
    """


@attr.s(auto_exc=True, auto_attribs=True, str=False)
class CallBroken(Exception):
    """
    A GemStone break interrupted the call; the session and its uncommitted
    changes are intact.
    """

    number: int

    def __str__(self) -> str:
        return (f"The call was interrupted by a GemStone break (error "
                f"{self.number}); the session and its uncommitted changes "
                f"are intact.")


@attr.s(auto_exc=True, auto_attribs=True, str=False)
class GemGone(Exception):
    """
    The session's gem died: the MCP session must close.

    @ivar number: the GemStone error number; C{reason} is for the log only
        (it may name hosts).
    """

    number: int
    reason: str = ""

    def __str__(self) -> str:
        return f"the gem died (GemStone error {self.number})"


def stackText(stack: dict) -> str:
    """
    An error's stack as a GemStone developer reads one: a frame a line,
    innermost first, C{SmallInteger (Number) >> /} where self's class is
    not the method's, with the line number and that line, then the frame's
    arguments and temporaries.

    @param stack: the envelope's C{{"frames": [...], "omitted": n}}; a
        frame the byte cap stopped short says C{"omittedVariables": n}.
    """
    lines = ["Stack (innermost first):"]
    for frame in stack["frames"]:
        lines.append(f"  {_frameName(frame)} (line {frame['line']}): "
                     f"{frame['source']}")
        lines.extend(f"      {each['name']} = {each['value']}"
                     for each in frame["variables"])
        if frame.get("omittedVariables"):
            lines.append(f"      ...and {frame['omittedVariables']} more variables")
    if stack["omitted"]:
        lines.append(f"  ...and {stack['omitted']} more frames")
    return "\n".join(lines)


def _frameName(frame: dict) -> str:
    block, inBlock, method = frame["method"].rpartition("[] in ")
    owner, found, selector = method.partition(">>")
    if not found or owner == frame["receiverClass"]:
        return frame["method"]
    return f"{block}{inBlock}{frame['receiverClass']} ({owner})>>{selector}"


def errorKindOf(number: int) -> str:
    """
    The tool error kind of a Smalltalk error number.
    """
    return "compileError" if 1000 <= number < 2000 else "other"


ASYNC_EVENTS = {
    6009: "the stone asked this session to abort (it was outside a "
          "transaction, and its view holds an old commit record); its "
          "changes are intact: abort once you do not need them, so the "
          "stone can reclaim the record",
    6010: "another GemStone session signalled this one; the session and "
          "its changes are intact",
    6012: "the stone asked this session to finish its transaction (commit, "
          "abort or continue it); its changes are intact",
    3031: "the stone revoked this session's view of the repository (asked "
          "to abort outside a transaction, it did not in time): abort "
          "before going on; its uncommitted changes are lost",
}
"""The events a stone sends a session that GemStone reports as the error
of whatever call runs (gcierr.ht: RT_ERR_SIGNAL_ABORT,
RT_ERR_SIGNAL_GEMSTONE_SESSION, RT_ERR_SIGNAL_FINISH_TRANSACTION,
ABORT_ERR_LOST_OT_ROOT), and what they mean for the session."""


VIEW_LOST = 3031
"""The event that takes the session's view, and its uncommitted changes,
away (ABORT_ERR_LOST_OT_ROOT)."""


def eventMove(number: int) -> ViewMove:
    """
    How an asynchronous event moved the session's view: a lost view is a
    move that committed nothing and left no change held; any other leaves
    it where it was.
    """
    return ViewMove(True, False) if number == VIEW_LOST else STILL


def eventNote(number: int) -> str:
    """
    What to add to an error's message when its number is an asynchronous
    event's, not the tool's own failure; empty otherwise.
    """
    event = ASYNC_EVENTS.get(number)
    return "" if event is None else (
        f"\nNot the tool's error: an asynchronous GemStone event "
        f"interrupted the call: {event}.")


FAILURES = (ToolError, CallBroken, GemGone)
"""Every way running a template can fail, for callers that only log it."""

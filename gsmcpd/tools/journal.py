"""
What one session changed since its transaction began: what its commit will
publish.

The mutation tools record each change here; a commit reads it twice: to ask
the user to confirm what is about to be committed (with
C{--confirm-destructive}), and, once it succeeded, to tell the clients
subscribed to the changed classes' resources.  An abort, like a commit,
starts a new, empty journal.  How a session's last commit ended is kept
as a L{LastCommit}, for C{status} to tell a client that lost the answer.

C{list_changes} reads it too, so it keeps what C{revert_method} needs (a
method's source before each change) and the tools whose calls left changes
it cannot itemise (code run by C{execute_code}, a test, an expression):
the list never claims to be complete when it may not be.
"""

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import attr

from gsmcpd.tools.ledger import Key

if TYPE_CHECKING:
    from gsmcpd.tools.base import Tool

SUMMARY_LINES = 20
"""The most changes a journal's summary names, one a line; then how many
more."""
CLASS_RESOURCES = ("gemstone://class/{className}/definition",
                   "gemstone://class/{className}/source")
"""The browsing toolset's resources that show one class: a change to the
class changes what they read."""


@attr.s(frozen=True, auto_attribs=True)
class Change:
    """
    @ivar what: a verb phrase: C{compiled}, C{deleted}, C{defined}, ...
    @ivar subject: what it was done to, as a person reads it
        (C{Account>>withdraw:}, C{class Account}).
    @ivar className: the class it changed, or L{None} (a dictionary).
    @ivar method: the ledger's key of the method it changed, or L{None}.
    @ivar previous: that method's source before the change, L{None} when
        it was new.
    @ivar category: that method's category before the change, when known.
    """

    what: str
    subject: str
    className: str | None = None
    method: Key | None = None
    previous: str | None = None
    category: str | None = None


@attr.s(frozen=True, auto_attribs=True)
class LastCommit:
    """
    How a session's last commit ended, as the stone answered it.

    @ivar outcome: C{committed}, C{conflict} or C{failed}; C{unknown}
        when the server ended it (its deadline, its gem gone) before the
        stone answered.
    @ivar at: when, in seconds since the epoch.
    @ivar changes: what it committed (or tried to): the journal's summary
        when it began.
    """

    outcome: str
    at: float
    changes: tuple[str, ...] = ()

    def described(self) -> dict[str, Any]:
        """
        As C{status} answers it: the time in ISO 8601, UTC.
        """
        return {"outcome": self.outcome, "at": datetime.fromtimestamp(
            self.at, UTC).isoformat(timespec="seconds"),
            "changes": list(self.changes)}


def itemised(tools: Iterable["Tool"]) -> list["Tool"]:
    """
    C{tools}, declared as tools whose every change the journal lists (or
    that change nothing), so their calls never make the list incomplete.
    """
    return [attr.evolve(each, listsChanges=True) for each in tools]


class ChangeJournal:
    """
    The changes of one session's present transaction, in order.

    @ivar observers: called with the resource URIs each commit changed.
    @ivar summary: one line per change, for a person to confirm a commit
        by, at most L{SUMMARY_LINES}, then how many more.  Kept as the
        changes are (they are few) rather than made when read: every
        call's record reads it, from the layer above, as data.
    """

    def __init__(self, observers: Iterable[Callable[[list[str]], object]] = ()
                 ) -> None:
        self._changes: list[Change] = []
        self.observers: Sequence[Callable[[list[str]], object]] = \
            tuple(observers)
        self.unlisted: list[str] = []
        self.summary: tuple[str, ...] = ()
        self._needsCommit = False

    @property
    def needsCommit(self) -> bool:
        """
        Whether the session held uncommitted changes after the last call
        that said.
        """
        return self._needsCommit

    def __len__(self) -> int:
        return len(self._changes)

    def __iter__(self) -> Iterator[Change]:
        return iter(self._changes)

    def record(self, what: str, subject: str, className: str | None = None,
               **ofMethod: Any) -> None:
        """
        Record a change; a method's takes C{method}, C{previous} and
        C{category} (L{Change}).
        """
        self._changes.append(Change(what, subject, className, **ofMethod))
        self._summarise()

    def firstChangeOf(self, key: Key) -> Change | None:
        """
        This transaction's first change of the method C{key}: its
        C{previous} is the source the view holds, or L{None}.
        """
        return next((each for each in self._changes if each.method == key),
                    None)

    def reverted(self, key: Key, subject: str, className: str) -> None:
        """
        The method C{key} is back as the view holds it: its changes are no
        longer to revert, but the class was still written (a commit writes
        it, and may conflict over it).
        """
        self._changes = [each for each in self._changes
                         if each.method != key]
        self.record("reverted", subject, className)

    def callEnded(self, tool: "Tool", needsCommit: bool | None,
                  broken: bool = False) -> None:
        """
        C{tool}'s call ended with the session needing a commit or not
        (L{None}: not known), or C{broken} by a GemStone break.  A tool is
        named in L{unlisted} when it may have changed what this journal
        does not list: a tool whose changes it does not list (one that runs
        code) when the session needs a commit after it and did not before,
        or when it is not even declared read-only; any tool not declared
        read-only broken off before it answered.
        """
        readOnly = tool.annotations.get("readOnlyHint")
        if broken and not readOnly or needsCommit and not tool.listsChanges \
                and (not self._needsCommit or not readOnly):
            if tool.name not in self.unlisted:
                self.unlisted.append(tool.name)
        if needsCommit is not None:
            self._needsCommit = needsCommit

    def _summarise(self) -> None:
        """
        Make L{summary} again, for the changes now held.
        """
        lines = [f"{change.what} {change.subject}"
                 for change in self._changes[:SUMMARY_LINES]]
        if len(self._changes) > SUMMARY_LINES:
            lines.append(f"and {len(self._changes) - SUMMARY_LINES} more")
        self.summary = tuple(lines)

    def changedClasses(self) -> list[str]:
        return sorted({change.className for change in self._changes
                       if change.className is not None})

    def changedResources(self) -> list[str]:
        """
        The URIs whose content the journal's changes alter.
        """
        return [template.format(className=className)
                for className in self.changedClasses()
                for template in CLASS_RESOURCES]

    def ended(self) -> list[Change]:
        """
        The transaction ended (commit or abort): start afresh.

        @return: the changes it held.
        """
        changes, self._changes = self._changes, []
        self.unlisted, self._needsCommit = [], False
        self._summarise()
        return changes

    def viewMoved(self, committed: bool | None,
                  needsCommit: bool | None) -> None:
        """
        The session's view moved: a commit published these changes, one
        that may have been a commit or an abort and left no change held is
        told as one (a needless re-read costs less than a stale one), and
        an abort (no change held after it) dropped them.
        """
        if committed or committed is None and needsCommit is False:
            self.committed()
        elif needsCommit is False:
            self.ended()

    def committed(self) -> None:
        """
        The transaction committed: tell the observers which resources its
        changes altered, and start afresh.
        """
        uris = self.changedResources()
        self.ended()
        for observer in self.observers:
            observer(uris)

"""
What one session changed since its transaction began: what its commit will
publish.

The mutation tools record each change here; a commit reads it twice: to ask
the user to confirm what is about to be committed (with
C{--confirm-destructive}), and, once it succeeded, to tell the clients
subscribed to the changed classes' resources.  An abort, like a commit,
starts a new, empty journal.  How a session's last commit ended is kept
as a L{LastCommit}, for C{status} to tell a client that lost the answer.
"""

from datetime import datetime, timezone

import attr

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
    """

    what: str
    subject: str
    className: str | None = None


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

    def described(self):
        """
        As C{status} answers it: the time in ISO 8601, UTC.
        """
        return {"outcome": self.outcome, "at": datetime.fromtimestamp(
            self.at, timezone.utc).isoformat(timespec="seconds"),
            "changes": list(self.changes)}


class ChangeJournal:
    """
    The changes of one session's present transaction, in order.

    @ivar observers: called with the resource URIs each commit changed.
    """

    def __init__(self):
        self._changes = []
        self.observers = ()

    def __len__(self):
        return len(self._changes)

    def record(self, what, subject, className=None):
        self._changes.append(Change(what, subject, className))

    def summary(self, limit=20):
        """
        One line per change, for a person to confirm a commit by; at most
        C{limit}, then how many more.
        """
        lines = [f"{change.what} {change.subject}"
                 for change in self._changes[:limit]]
        if len(self._changes) > limit:
            lines.append(f"and {len(self._changes) - limit} more")
        return lines

    def changedClasses(self):
        return sorted({change.className for change in self._changes
                       if change.className is not None})

    def changedResources(self):
        """
        The URIs whose content the journal's changes alter.
        """
        return [template.format(className=className)
                for className in self.changedClasses()
                for template in CLASS_RESOURCES]

    def ended(self):
        """
        The transaction ended (commit or abort): start afresh.

        @return: the changes it held.
        """
        changes, self._changes = self._changes, []
        return changes

    def committed(self):
        """
        The transaction committed: tell the observers which resources its
        changes altered, and start afresh.
        """
        uris = self.changedResources()
        self.ended()
        for observer in self.observers:
            observer(uris)

"""
The simulated stone's repository: versioned objects and per-session views.

Values are stored under path tuples, e.g. C{('global', 'UserGlobals', 'Foo')};
later models (classes, methods, test results) add their own key shapes.  The
repository keeps every committed version, so a session reading at the commit
its view was taken sees exactly what a GemStone session would.

A key is how the simulator stores a value, not what GemStone conflicts on:
the repository's C{grain} names the GemStone objects a write changes (a
class's method dictionary for a method, say: L{grain}), and two commits
conflict when they change one of the same objects, as GemStone's
write-write check intersects write sets.
"""

import copy
import pickle
import threading

import attr

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.grain import objectsWritten

ABSENT = object()
"""The value of a key that does not exist (or was removed) at some commit."""


@attr.s
class Repository:
    """
    The committed state: a commit counter, each key's version history, and
    the objects each commit changed.

    @ivar grain: C{grain(key, existed, exists)} names the objects a write
        of C{key} changes, given whether it had a value before and has one
        after: what commits conflict on (L{grain.objectsWritten}).
    """

    grain = attr.ib(default=objectsWritten)
    commitNumber = attr.ib(default=0)
    _history = attr.ib(factory=dict)     # key -> [(commitNumber, value), ...]
    _byPrefix = attr.ib(factory=dict)    # each proper prefix of a key -> its keys
    _changed = attr.ib(factory=list)     # [(commitNumber, frozenset of objects), ...]
    _lock = attr.ib(factory=threading.RLock)

    def read(self, key, view):
        """
        The value C{key} had at commit C{view}, or L{ABSENT}.
        """
        with self._lock:
            for number, value in reversed(self._history.get(key, ())):
                if number <= view:
                    return value
        return ABSENT

    def keys(self, view, prefix):
        """
        The keys starting with C{prefix} that exist at commit C{view}.
        """
        with self._lock:
            candidates = list(self._byPrefix.get(tuple(prefix), ()))
        return [k for k in candidates if self.read(k, view) is not ABSENT]

    def objectsChanged(self, writes, view):
        """
        The objects C{writes} (key to value or L{ABSENT}), made on a view
        taken at commit C{view}, change, in a stable order.
        """
        objects = {}
        for key, value in writes.items():
            objects.update(dict.fromkeys(self.grain(
                key, self.read(key, view) is not ABSENT, value is not ABSENT)))
        return list(objects)

    def changedSince(self, objects, view):
        """
        The C{objects} a commit after C{view} changed.
        """
        with self._lock:
            changed = set().union(*(each for number, each in self._changed if number > view))
        return [each for each in objects if each in changed]

    def commit(self, writes, view, stale=()):
        """
        Apply C{writes} (key to value or L{ABSENT}) made on a view taken at
        commit C{view}.

        @param stale: objects known to conflict already (a view moved over
            them: see L{Transaction.continueTransaction}).
        @return: C{(True, newCommitNumber)}, or C{(False, conflictingObjects)}
            when another commit since C{view} changed one of the objects
            these writes change.
        """
        with self._lock:
            objects = self.objectsChanged(writes, view)
            conflicts = list(dict.fromkeys(
                [*self.changedSince(objects, view), *(each for each in objects if each in stale)]))
            if conflicts:
                return False, conflicts
            if writes:
                self.commitNumber += 1
                self._changed.append((self.commitNumber, frozenset(objects)))
                for key, value in writes.items():
                    if key not in self._history:
                        for length in range(len(key)):
                            self._byPrefix.setdefault(key[:length], set()).add(key)
                    # A copy of ABSENT would be a new object: a removal
                    # committed must stay a removal.
                    self._history.setdefault(key, []).append((
                        self.commitNumber,
                        value if value is ABSENT else copy.deepcopy(value)))
            return True, self.commitNumber


@attr.s
class Transaction:
    """
    One session's view of the repository and its uncommitted writes.

    Reads see the write set over the view.  A committed value read through
    the view is a private copy, kept for the life of the view so identity
    holds; changing it in place counts as a write, as it does in GemStone.
    A failed commit leaves the session stuck (GemStone refuses
    C{continueTransaction}) until it aborts.  C{commitResult} is what
    C{System transactionConflicts} answers under C{#commitResult}: set by a
    commit, C{readOnly} after a continue (measured by GemTalk), and left as
    it was by an abort (no public source says; see
    C{docs/gemstone-fidelity.rst}).  A commit-locked user's
    session, or one commit-locked by C{System disableCommitsWithReason:}
    (C{commitsDisabledFor} says why), may change objects but never commit
    them.
    """

    repository = attr.ib()
    view = attr.ib()
    commitsDisabledFor = attr.ib(default=None, kw_only=True)
    writes = attr.ib(factory=dict)
    conflicts = attr.ib(factory=dict)
    commitFailed = attr.ib(default=False)
    commitResult = attr.ib(default="success")
    """What C{System transactionConflicts at: #commitResult} names, as
    GemTalk measured on 3.7 (GemTalk/mcp_server docs/GemStone_Notes.md):
    C{success} after a commit, C{retryFailure} after one that conflicted,
    C{readOnly} after a C{continueTransaction} that kept the writes,
    C{failure} after one that could not."""
    staleWrites = attr.ib(factory=set)
    """Objects this session changes that a commit its view moved over
    changed too (see L{continueTransaction})."""
    remembered = attr.ib(factory=dict)
    """What a reader derived from this view (resolved globals); forgotten
    at every write and view move."""
    _copies = attr.ib(factory=dict)      # key -> (private copy, its pickle when read)

    def read(self, key):
        """
        The value this session sees for C{key}, or L{ABSENT}.
        """
        if key in self.writes:
            return self.writes[key]
        if key not in self._copies:
            value = self.repository.read(key, self.view)
            if value is ABSENT:
                return ABSENT
            value = copy.deepcopy(value)
            self._copies[key] = (value, _snapshot(value))
        return self._copies[key][0]

    def write(self, key, value):
        self.writes[key] = value
        self.remembered.clear()

    def keys(self, prefix):
        """
        The keys under C{prefix} this session sees.
        """
        present = set(self.repository.keys(self.view, prefix))
        for key, value in self.writes.items():
            if key[:len(prefix)] == prefix:
                (present.discard if value is ABSENT else present.add)(key)
        return sorted(present)

    def _changes(self):
        changes = {key: value for key, (value, before) in self._copies.items()
                   if _snapshot(value) != before}
        changes.update(self.writes)
        return changes

    @property
    def needsCommit(self):
        return bool(self._changes())

    def commit(self):
        """
        Commit the write set: C{True}, or C{False} with C{conflicts} set.

        @raise errors.SmalltalkError: the session's user is commit-locked
            (TransactionError 2249).
        """
        if self.commitsDisabledFor is not None:
            raise errors.commitsDisabled(self.commitsDisabledFor)
        ok, detail = self.repository.commit(self._changes(), self.view, self.staleWrites)
        if not ok:
            self.commitFailed = True
            self.commitResult = "retryFailure"
            self.conflicts = {"Write-Write": detail}
            return False
        self.abort()
        self.commitResult = "success"
        return True

    def abort(self):
        self.remembered.clear()
        self.staleWrites.clear()
        self.writes.clear()
        self._copies.clear()
        self.conflicts = {}
        self.commitFailed = False
        self.view = self.repository.commitNumber

    def continueTransaction(self):
        """
        Move the view to the newest commit, keeping the write set.

        @return: L{False} when a commit since the old view changed an
            object the write set changes: the view moves anyway, and those
            writes can no longer commit (the next commit fails with those
            objects as conflicts).
        """
        changes = self._changes()
        stale = self.repository.changedSince(
            self.repository.objectsChanged(changes, self.view), self.view)
        self.staleWrites.update(stale)
        self.writes.update(changes)
        self.remembered.clear()
        self._copies.clear()
        self.view = self.repository.commitNumber
        self.commitResult = "failure" if stale else "readOnly"
        return not stale

    @property
    def commitsBehind(self):
        return self.repository.commitNumber - self.view


def _snapshot(value):
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)

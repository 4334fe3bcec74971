"""
View hygiene: keeping each session's view from pinning the repository.

A view is also a commit record the stone cannot dispose of, so a session
that never moves its view holds the whole repository's backlog open.  No
tool moves the view behind the client's back, with one exception, made
here: between calls, never with one in flight, a session at least
C{maxCommitsBehind} commits behind (or the stone's own
C{StnSignalAbortCrBacklog}, if lower) gets one C{continueTransaction}, which
keeps its uncommitted work; its next result says so and names the reads
that went stale, so the blind-write guardrail makes them be read again.

Two views no refresh reaches end the session's work instead: a view that
cannot be moved (after a failed commit) is released once it has stayed too
far behind for C{stuckViewGrace}; a call that holds the repository's oldest
commit record while the backlog is real is ended after
C{pinnedViewGrace}.  Neither is a time limit on a quiet stone.
"""

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import attr
from twisted.internet.defer import Deferred, TimeoutError, inlineCallbacks
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.tools.base import ToolCall, ToolError
from gsmcpd.tools.ledger import describeKey
from gsmcpd.tools.templates.outcomes import FAILURES

if TYPE_CHECKING:
    # A work session holds its view's state (ViewState, defined here).
    from gsmcpd.sessions.registry import SessionRegistry
    from gsmcpd.sessions.work import WorkSession

Steps = Generator[Deferred[Any], Any, None]
"""An inlineCallbacks pass: it yields GemStone calls, answers nothing."""

HYGIENE_INTERVAL = 60.0
CHECK_TIME_LIMIT = 10.0
"""Seconds one session's check may take before the pass goes on without
it (its call, if running, runs on; if queued, it is withdrawn)."""
CACHE_NAME_LIMIT = 31
"""The shared cache takes names of 1 to 31 characters."""


@attr.s(auto_attribs=True)
class ViewState:
    """
    What view hygiene knows of one session.

    @ivar stoneSession: the GemStone session number.
    @ivar signalAbortBacklog: the stone's own backlog limit.
    @ivar stuckSince: when its view was found unmovable.
    @ivar pinnedSince: since when a call in flight has held the oldest
        commit record under backlog.
    @ivar notices: lines for the client's next tool result (e.g. that the
        server refreshed its view).
    """

    stoneSession: int | None = None
    signalAbortBacklog: int | None = None
    stuckSince: float | None = None
    pinnedSince: float | None = None
    notices: list[str] = attr.Factory(list)


def gemName(port: str, handle: str, prefix: str = "gsmcp") -> str:
    """
    C{gsmcp:<port>:<first 8 of the session id>}, cut to the cache's limit
    by shortening the prefix, never the identifying fields.
    """
    fields = f":{port}:{handle[:8]}"
    room = CACHE_NAME_LIMIT - len(fields)
    return (prefix[:max(room, 0)] + fields)[-CACHE_NAME_LIMIT:]


def refreshNotice(behind: int, stale: list[Any],
                  writesCanCommit: bool = True) -> str:
    """
    What the client is told on its next result after a refresh; when a
    commit since the old view changed what the session changed
    (continueTransaction answered false), that its changes can no longer
    commit.
    """
    notice = (f"[session] The server moved this session's view to the newest "
              f"commit between your calls: it was {behind} commits behind, "
              f"which holds old commit records open for the whole stone. ")
    if writesCanCommit:
        notice += "Your uncommitted changes are kept."
    else:
        notice += ("Your uncommitted changes are kept but can no longer "
                   "commit: another session committed a change to the same "
                   "objects since your old view. abort discards them; then "
                   "redo the change.")
    if stale:
        notice += (" These reads are now stale; read them again before "
                   "changing them: "
                   + ", ".join(describeKey(key) for key in stale) + ".")
    return notice


class GemPreparation:
    """
    Names each new session's gem in the shared cache, and learns the
    stone's own backlog limit, before the session is registered.

    @param port: answers the daemon's listening port, for the gem's name.
    """

    log = Logger()

    def __init__(self, port: Callable[[], str] = lambda: "0") -> None:
        self._port = port

    @inlineCallbacks
    def __call__(self, session: "WorkSession") -> Steps:
        call = ToolCall(session.gem)
        name = gemName(self._port(), session.handle)
        try:
            # One round trip: name the gem, learn the stone's backlog limit.
            state = yield call.runTemplate("open_session", {"name": name})
            self.log.info("session {handle}: gem named {name!r} in the "
                          "shared cache", handle=session.label,
                          name=state["name"])
        except FAILURES as e:
            self.log.warn("session {handle}: preparing its gem: {error}",
                          handle=session.label, error=e)
            return
        session.view.stoneSession = state["session"]
        session.view.signalAbortBacklog = state["signalAbortBacklog"]


class ViewHygiene:
    """
    Keeps views moving: the daemon runs L{maintain} each
    L{HYGIENE_INTERVAL}.

    @ivar maxCommitsBehind: the configured limit, or L{None} for no
        refreshes.
    """

    log = Logger()

    def __init__(self, registry: "SessionRegistry", clock: IReactorTime,
                 maxCommitsBehind: int | None = 20,
                 stuckViewGrace: float = 600.0,
                 pinnedViewGrace: float = 600.0,
                 control: IGemSession | None = None) -> None:
        self._registry = registry
        self._control = control
        self._clock = clock
        self.maxCommitsBehind = maxCommitsBehind
        self.stuckViewGrace = stuckViewGrace
        self.pinnedViewGrace = pinnedViewGrace

    def limitFor(self, session: "WorkSession") -> int | None:
        """
        The effective limit: the lower of ours and the stone's.
        """
        if self.maxCommitsBehind is None:
            return None
        return min(limit for limit in (self.maxCommitsBehind,
                                       session.view.signalAbortBacklog)
                   if limit is not None)

    @inlineCallbacks
    def maintain(self) -> Steps:
        """
        One pass: check every session with no call in flight, one at a time
        so a thousand sessions cost the stone a trickle rather than a burst,
        then whether a call in flight pins the oldest commit record.
        """
        if self.maxCommitsBehind is None:
            return
        busy: list[WorkSession] = []
        for session in self._registry.work:
            if session.busy:
                busy.append(session)
            elif self._registry.work.get(session.handle) is session:
                yield self._limited(self.check(session), session)
        if busy and self._control is not None:
            yield self.checkPinned(busy)

    def _limited(self, check: Deferred[None], session: "WorkSession"
                 ) -> Deferred[None]:
        """
        C{check}, given up after L{CHECK_TIME_LIMIT}: one session whose gem
        stopped answering must not stop maintenance for the others.
        """
        def gaveUp(failure: Failure) -> None:
            failure.trap(TimeoutError)
            self.log.warn("session {handle}: its view check did not finish "
                          "within {limit:g}s; going on without it",
                          handle=session.label, limit=CHECK_TIME_LIMIT)

        return check.addTimeout(CHECK_TIME_LIMIT, self._clock).addErrback(
            gaveUp)

    @inlineCallbacks
    def checkPinned(self, busy: list["WorkSession"]) -> Steps:
        """
        Ask, from the daemon's own session (a busy one cannot be asked),
        who holds the oldest commit record; end a call that has held it
        under real backlog for C{pinnedViewGrace}.
        """
        control = ToolCall(self._control)
        try:
            # Our own session must not be the one holding the oldest record.
            yield control.runTemplate("continue_transaction", {})
            state = yield control.runTemplate("backlog_state", {})
        except FAILURES as e:
            self.log.warn("reading the commit-record backlog: {error}",
                          error=e)
            return
        now = self._clock.seconds()
        backlog, pinners = state["backlog"], state["oldestPinnedBy"]
        for session in busy:
            limit, view = self.limitFor(session), session.view
            if backlog is None or pinners is None or limit is None or \
                    backlog < limit or view.stoneSession not in pinners:
                view.pinnedSince = None
                continue
            if view.pinnedSince is None:
                view.pinnedSince = now
            elif now - view.pinnedSince >= self.pinnedViewGrace:
                for run in session.inFlight():
                    run.end("pinned", self._pinnedMessage(backlog))

    def _pinnedMessage(self, backlog: int) -> Callable[[str], str]:
        grace = self.pinnedViewGrace
        return lambda how: (
            f"The request held the repository's oldest commit record for "
            f"over {grace:g}s while {backlog} commit records waited on it, "
            f"and was ended by {how}.")

    @inlineCallbacks
    def check(self, session: "WorkSession") -> Steps:
        """
        Refresh C{session}'s view if it is too far behind.
        """
        call = ToolCall(session.gem, session.ledger)
        try:
            state = yield call.runTemplate("session_state", {})
        except FAILURES as e:
            self.log.warn("session {handle}: reading its view: {error}",
                          handle=session.label, error=e)
            return
        session.view.pinnedSince = None
        behind, limit = state["commitsBehind"], self.limitFor(session)
        if behind is None or limit is None or behind < limit:
            session.view.stuckSince = None
            return
        if session.busy:
            return
        try:
            moved = yield call.runTemplate("continue_transaction", {})
        except ToolError as e:
            self._stuck(session, behind, e)
            return
        session.view.stuckSince = None
        stale = session.ledger.viewMoved()
        session.notify(
            refreshNotice(behind, stale, moved["continued"]))
        self.log.info("session {handle}: view refreshed ({behind} commits "
                      "behind)", handle=session.label, behind=behind)

    def _stuck(self, session: "WorkSession", behind: int, error: ToolError
               ) -> None:
        now = self._clock.seconds()
        if session.view.stuckSince is None:
            session.view.stuckSince = now
            self.log.warn("session {handle}: its view cannot be moved "
                          "({error}); it is {behind} commits behind",
                          handle=session.label, error=error.message,
                          behind=behind)
        elif now - session.view.stuckSince >= self.stuckViewGrace:
            self._registry.close(
                session.handle, f"its view could not be moved (after a "
                f"failed commit) and stayed {behind} commits behind for "
                f"{now - session.view.stuckSince:.0f}s", code="view_stuck")

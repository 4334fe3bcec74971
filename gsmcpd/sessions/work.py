"""
A work session: one GemStone session the daemon holds, and what it keeps
of it, whoever uses it.

A 2025 client's MCP session works in one (L{gsmcpd.sessions.client}), a
2026 handle names one, and the warm pool keeps throwaway ones for calls
made without a handle (L{gsmcpd.sessions.warm}).  Its state belongs to the
sessions layer's policies (lifetime, view hygiene, breaks); the layers
above read it through L{IWorkSession}.
"""

import secrets
from collections.abc import Callable, Iterable
from typing import Any

from twisted.internet.defer import Deferred
from zope.interface import implementer

from gsmcpd.auth.tokens import Principal
from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.gci.session import shielded
from gsmcpd.sessions.breaks import CallState, RunningCall
from gsmcpd.sessions.hygiene import ViewState
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.lifetime import Liveness
from gsmcpd.tools.journal import ChangeJournal, LastCommit
from gsmcpd.tools.ledger import ReadLedger


def userOf(principal: Principal | None) -> str | None:
    """
    The GemStone user a session of C{principal} logs in as: L{None} (the
    daemon's, or the worker user) without authentication.
    """
    return None if principal is None else principal.user


def newHandle() -> str:
    """
    A session handle: 128 bits from the operating system's CSPRNG.
    """
    return secrets.token_hex(16)


def couldBeHandle(text: str) -> bool:
    """
    Whether C{text} has the shape of a handle L{newHandle} mints (this
    daemon's, another daemon's, or one from before a restart).
    """
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text)


@implementer(IWorkSession)
class WorkSession:
    """
    One GemStone session, held by handle.

    @ivar handle: the opaque key the registry holds it by.
    @ivar gem: the L{gsmcpd.gci.interfaces.IGemSession} its calls run on.
    @ivar principal: who it was opened for (or lent to, L{lendTo}), or
        L{None} without authentication.
    @ivar throwaway: whether it serves one call (a 2026-era call without
        a handle): its commits are locked and it is logged out after the
        call, so nothing the call changed or left in it is kept.
    @ivar ledger: what was read in its present view, for the blind-write
        guardrail; it lives here, in the daemon, not the stone.
    @ivar journal: what it changed since its transaction began, to confirm
        a commit by and to announce once committed.
    @ivar view: view hygiene's state (L{ViewState}).
    @ivar calls: the calls in flight (L{CallState}).
    @ivar liveness: the lifetime policy's state (L{Liveness}).
    @ivar lastCommit: how its last commit ended (a L{LastCommit}), or
        L{None} before one.
    """

    def __init__(self, handle: str, gem: IGemSession,
                 principal: Principal | None = None, now: float = 0.0,
                 throwaway: bool = False,
                 onCommit: Iterable[Callable[[list[str]], object]] = ()
                 ) -> None:
        """
        @param now: when it opened, on the registry's clock.
        @param onCommit: called with the resource URIs each commit changed.
        """
        self.handle = handle
        self.gem = gem
        self.principal = principal
        self.throwaway = throwaway
        self.ledger = ReadLedger()
        self.journal = ChangeJournal(onCommit)
        self.view = ViewState()
        self.calls = CallState()
        self.liveness = Liveness(now, now, now)
        self.lastCommit: LastCommit | None = None

    @property
    def label(self) -> str:
        """
        How logs name this session: a prefix of its handle, which is not
        enough to use it.
        """
        return self.handle[:8]

    @property
    def busy(self) -> bool:
        """
        Whether a call of this session is queued or running.
        """
        return bool(self.gem.busy)

    def admit(self, run: RunningCall) -> None:
        self.calls.running[run.requestId] = run

    def release(self, run: RunningCall) -> None:
        if self.calls.running.get(run.requestId) is run:
            del self.calls.running[run.requestId]

    def callFor(self, requestId: Any) -> RunningCall | None:
        return self.calls.running.get(requestId)

    def inFlight(self) -> list[RunningCall]:
        return list(self.calls.running.values())

    def callEnding(self) -> None:
        """
        The server began ending one of its calls (its gem may still be
        taking the break): it is not lent for another read.
        """
        self.calls.ended = True

    def active(self, now: float) -> None:
        """
        Its client made a request at C{now}.
        """
        self.liveness.lastActivity = now

    def lendTo(self, principal: Principal | None) -> None:
        """
        An idle warm session goes to a call of C{principal}.
        """
        self.principal = principal

    def notify(self, line: str) -> None:
        """
        Tell its client C{line} with its next tool result.
        """
        self.view.notices.append(line)

    def takeNotices(self) -> list[str]:
        notices, self.view.notices = self.view.notices, []
        return notices

    def transactionEnded(self) -> None:
        self.ledger.viewMoved()
        self.journal.ended()

    def commitEnded(self, outcome: str, at: float,
                    changes: Iterable[Any] = ()) -> None:
        """
        A commit in it ended as the stone answered, C{committed},
        C{conflict} or C{failed}, or C{unknown} (ended before the stone
        answered), at C{at} (seconds since the epoch), having tried to
        commit C{changes}; whether or not its client heard.
        """
        self.lastCommit = LastCommit(outcome, at, tuple(changes))

    @property
    def replacing(self) -> bool:
        """
        Whether its GemStone session is being replaced.
        """
        return self.calls.replacing is not None

    def replacementBegan(self) -> None:
        """
        Its GemStone session is being replaced: its next request waits
        (L{awaitReplacement}).
        """
        self.calls.replacing = Deferred()

    def gemReplaced(self, gem: IGemSession) -> None:
        """
        Its GemStone session was replaced (its call took no break): the
        new one's view is the newest commit, and its work is gone.
        """
        self.gem = gem
        self.transactionEnded()

    def replacementOver(self) -> None:
        """
        Its replacement is over (in place, or the session closed): what
        waited on it goes on.
        """
        waiting, self.calls.replacing = self.calls.replacing, None
        if waiting is not None:
            waiting.callback(None)

    def awaitReplacement(self) -> "Deferred[None] | None":
        waiting = self.calls.replacing
        return None if waiting is None else shielded(waiting)

"""
Fair shares: no one client can take the stone from the others.

A call that becomes a task answers its POST at once, so connection caps
never bound what one client queues; and one identity could open every
GemStone session slot.  So the daemon caps the calls in flight (queued or
running, tasks included) per work session and per identity, and the
GemStone sessions an identity holds: its 2025 sessions, its 2026 handles,
the throwaway sessions lent to its calls and the logins under way for it,
but not the idle warm spares (nor their logins), which are the server's.
A new call or session over a cap is refused before anything is queued or
logged in (L{ShareExhausted}).

An identity is the person a token names (its principal's C{identity}).
Without authentication every client is the one unknown caller, the daemon
serves one user, and a share of it would only be a smaller
C{--max-sessions}: only the per-session cap applies.
"""

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import attr

from gsmcpd.auth.tokens import Principal
from gsmcpd.sessions.work import WorkSession

CALLS_PER_SESSION = "calls-per-session"
CALLS_PER_IDENTITY = "calls-per-identity"
SESSIONS_PER_IDENTITY = "sessions-per-identity"
"""Each cap by the option that sets it, as a refusal names it."""


class ShareExhausted(Exception):
    """
    A new call or session would take its caller past a share.

    @ivar cap: which (L{CALLS_PER_SESSION}, L{CALLS_PER_IDENTITY} or
        L{SESSIONS_PER_IDENTITY}).
    @ivar limit: the share.
    """

    def __init__(self, cap: str, limit: int) -> None:
        super().__init__(f"{cap} {limit}")
        self.cap = cap
        self.limit = limit


class RequestInFlight(Exception):
    """
    A new call's request id is its work session's running call's: its
    cancellation, answer and record would be mistaken for that one's.
    """


@attr.s(frozen=True, auto_attribs=True)
class FairShares:
    """
    The caps, each L{None} for none.

    @ivar callsPerSession: calls in flight on one work session.
    @ivar callsPerIdentity: calls in flight on all of one identity's work
        sessions.
    @ivar sessionsPerIdentity: GemStone sessions one identity holds.
    """

    callsPerSession: int | None = None
    callsPerIdentity: int | None = None
    sessionsPerIdentity: int | None = None

    def described(self, authenticated: bool) -> str:
        """
        Which caps apply, as C{gsmcpd check} says: the shares per identity
        count a token's identity, so without authentication only the
        per-session one does.
        """
        perSession = f"{_capped(self.callsPerSession)} calls in flight a " \
            "session"
        if not authenticated:
            return (f"{perSession}; the shares per identity "
                    f"(--{CALLS_PER_IDENTITY}, --{SESSIONS_PER_IDENTITY}) "
                    "apply only with bearer-token auth: without it every "
                    "client is one caller")
        return (f"{perSession}, {_capped(self.callsPerIdentity)} an "
                f"identity; {_capped(self.sessionsPerIdentity)} GemStone "
                "sessions an identity")


def _capped(cap: int | None) -> str:
    return "no cap on" if cap is None else str(cap)


NO_CAPS = FairShares()
"""No cap at all: the shares of a registry given none."""


def identityOf(principal: Principal | None) -> str | None:
    """
    Whom a share is counted for: the token's identity, or L{None} (no
    identity share) without authentication.
    """
    return None if principal is None else principal.identity


class Shares:
    """
    What each identity holds, against the caps.

    The registry tells it of each session it registers and closes, and of
    each login it starts; the warm pool of each session that idles there
    (the server's, in no identity's share) and each it lends; the call
    path asks before a new session or call.

    @ivar caps: the L{FairShares}.
    """

    def __init__(self, caps: FairShares = NO_CAPS) -> None:
        self.caps = caps
        self._sessions: defaultdict[str | None, set[WorkSession]] = \
            defaultdict(set)
        self._opening: Counter[str | None] = Counter()

    def registered(self, session: WorkSession) -> None:
        """
        C{session} was logged in for its principal.
        """
        identity = identityOf(session.principal)
        if identity is not None:
            self._sessions[identity].add(session)

    def closed(self, session: WorkSession) -> None:
        """
        C{session} no longer counts for its principal: its login was
        given back, it idles in the warm pool, or it is lent to another
        (L{lent}).
        """
        identity = identityOf(session.principal)
        held = self._sessions.get(identity)
        if held is not None:
            held.discard(session)
            if not held:
                del self._sessions[identity]

    def lent(self, session: WorkSession, principal: Principal | None
             ) -> None:
        """
        An idle warm C{session} goes to a call of C{principal}: it counts
        in that identity's share from now on, not its last borrower's
        (both log in as the same GemStone user, yet are not one caller).
        """
        self.closed(session)
        session.lendTo(principal)
        self.registered(session)

    def held(self, principal: Principal | None) -> int:
        """
        How many GemStone sessions C{principal}'s identity holds, logins
        under way included.
        """
        identity = identityOf(principal)
        return self._opening[identity] + len(
            self._sessions.get(identity, ()))

    def inFlight(self, principal: Principal | None) -> int:
        """
        How many calls of C{principal}'s identity are in flight.
        """
        return sum(len(session.inFlight())
                   for session in self._sessions.get(identityOf(principal),
                                                     ()))

    def admitSession(self, principal: Principal | None) -> None:
        """
        Refuse a new session past its identity's share.

        @raise ShareExhausted: for L{SESSIONS_PER_IDENTITY}.
        """
        cap = self.caps.sessionsPerIdentity
        if cap is not None and identityOf(principal) is not None and \
                self.held(principal) >= cap:
            raise ShareExhausted(SESSIONS_PER_IDENTITY, cap)

    def opening(self, principal: Principal | None) -> Callable[[], None]:
        """
        A login for C{principal} begins, once L{admitSession} let it: it
        counts until the answer that it is over.

        @return: what to call once the login is over (its session then
            registered, or not), once.
        """
        identity = identityOf(principal)
        if identity is None:
            return lambda: None
        self._opening[identity] += 1
        over: list[bool] = []

        def ended() -> None:
            if not over:
                over.append(True)
                self._opening[identity] -= 1
                if not self._opening[identity]:
                    del self._opening[identity]
        return ended

    def admitCall(self, work: WorkSession | None,
                  principal: Principal | None, requestId: Any = None
                  ) -> None:
        """
        Refuse a new call, request C{requestId}, whose id is in flight in
        its work session (L{None}: a call yet to be lent one), then one
        past the share of that session or of its identity.

        @raise RequestInFlight: for the id.
        @raise ShareExhausted: for L{CALLS_PER_SESSION} or
            L{CALLS_PER_IDENTITY}.
        """
        if work is not None and work.callFor(requestId) is not None:
            raise RequestInFlight(requestId)
        perSession = self.caps.callsPerSession
        if perSession is not None and work is not None and \
                len(work.inFlight()) >= perSession:
            raise ShareExhausted(CALLS_PER_SESSION, perSession)
        perIdentity = self.caps.callsPerIdentity
        if perIdentity is not None and identityOf(principal) is not None \
                and self.inFlight(principal) >= perIdentity:
            raise ShareExhausted(CALLS_PER_IDENTITY, perIdentity)


"""
The work sessions a 2026-era call without a handle runs in: a throwaway
one (commits locked, logged out when the call ends), lent once the call is
admitted (L{Lender.forCall}); and the sessions C{open_session} opens.  Its
refusals are this layer's own errors, which the protocol layer words.  (A
handle's session is found by its era, by reading the live sessions, and
the call admitted as it runs.)
"""

from collections.abc import Callable
from typing import Any

import attr
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from gsmcpd.auth.tokens import Principal
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.shares import RequestInFlight, ShareExhausted
from gsmcpd.sessions.work import WorkSession

Lent = tuple[IWorkSession, Callable[[], Any]]
"""A call's work session, and what to call when the call is over."""


@attr.s(auto_exc=True, auto_attribs=True)
class NotAdmitted(Exception):
    """
    A call refused before a session is lent for it (C{error}).
    """

    error: RequestInFlight | ShareExhausted


class Lender:
    """The work sessions 2026-era calls run in, from the registry."""

    def __init__(self, sessions: SessionRegistry):
        self.sessions = sessions

    def forCall(self, principal: Principal | None, clientInfo: Any,
                requestId: object, why: str) -> Deferred[Lent]:
        """
        The L{Lent} throwaway session (logged out for C{why}) a call
        without a handle runs in, the call admitted before it is lent.

        @raise NotAdmitted: for a caller over its share of calls.
        @raise ShareExhausted: for an identity at its share of sessions;
            or any failure of L{borrowed}.
        """
        try:
            self.sessions.shares.admitCall(None, principal, requestId)
        except (RequestInFlight, ShareExhausted) as e:
            raise NotAdmitted(e)
        return self.borrowed(principal, clientInfo, why)

    def borrowed(self, principal: Principal | None, clientInfo: Any,
                 why: str) -> Deferred[Lent]:
        """
        A throwaway session with a fresh view for one call (a spare of the
        request's GemStone user, never used, or a new login), and what
        ends it (a logout for C{why}, a spare logged in ahead when the call
        ended cleanly).

        @raise ShareExhausted: for an identity at its share of sessions (a
            lent one counts while its call runs); or any failure of
            L{loggedIn}.
        """
        self.sessions.shares.admitSession(principal)
        taking = self.sessions.warm.take(principal)
        if taking is None:
            opening = self.loggedIn(principal, clientInfo, throwaway=True)
        else:
            opening = taking.addCallback(
                lambda session: session or self.loggedIn(
                    principal, clientInfo, throwaway=True))
        return self.lent(opening, lambda session:
                         self.sessions.warm.giveBack(session, why))

    def loggedIn(self, principal: Principal | None, clientInfo: Any,
                 throwaway: bool = False) -> Deferred[WorkSession]:
        """
        A new GemStone session as the request's GemStone user.

        @raise SessionLimitReached: or L{ShareExhausted}, or
            L{ServerStopping}; its login's failure through the
            L{Deferred}.
        """
        return self.sessions.opener.open(principal, clientInfo, throwaway)

    def lent(self, opening: Deferred[Any],
             end: Callable[[IWorkSession], Any]) -> Deferred[Lent]:
        """
        The session C{opening} fires with, and what ends it when its call
        is over (C{end}, with the session).
        """
        # The login runs to its end whoever stops waiting for it (a client
        # that hangs up): its slot is held until then, and the session it
        # opens for nobody is closed.
        borrowing: Deferred[Lent] = Deferred()

        def opened(session: IWorkSession) -> Any:
            if borrowing.called:
                return self.sessions.close(
                    session.handle, "its client stopped waiting for it",
                    code="abandoned")
            borrowing.callback((session, lambda: end(session)))

        def failed(failure: Failure) -> None:
            if not borrowing.called:
                borrowing.errback(failure)
        opening.addCallbacks(opened, failed)
        return borrowing

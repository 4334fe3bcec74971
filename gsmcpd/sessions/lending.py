"""
Which work session a 2026-era call runs in, found and admitted in one step
(L{Lender.forCall}): its handle's, or a throwaway one (commits locked,
logged out when the call ends) lent once the call is admitted.  Its
refusals are this layer's own errors, which the protocol layer words.
"""

from collections.abc import Callable
from typing import Any

import attr
from twisted.internet.defer import Deferred, succeed
from twisted.python.failure import Failure

from gsmcpd.auth.tokens import Principal
from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.sessions.shares import RequestInFlight, ShareExhausted
from gsmcpd.sessions.work import WorkSession

Lent = tuple[IWorkSession, Callable[[], Any] | None]
"""A call's work session, and what to call when the call is over (L{None}:
nothing, it outlives the call)."""


@attr.s(auto_exc=True, auto_attribs=True)
class NoSuchHandle(Exception):
    """A handle that names no session its caller may use."""

    handle: str


@attr.s(auto_exc=True, auto_attribs=True)
class NotAdmitted(Exception):
    """
    A call refused before anything is queued or lent (C{error}), in the
    session C{work} it would have run in (L{None}: one yet to be lent).
    """

    work: IWorkSession | None
    error: RequestInFlight | ShareExhausted


class Lender:
    """The work sessions 2026-era calls run in, from the registry."""

    def __init__(self, sessions: SessionRegistry):
        self.sessions = sessions

    def forCall(self, handle: str | None, principal: Principal | None,
                clientInfo: Any, requestId: object, why: str
                ) -> Deferred[Lent]:
        """
        The L{Lent} session a call with C{handle} (or none: a throwaway
        one, logged out for C{why}) runs in, the call admitted in it
        (before a throwaway one is lent).

        @raise NoSuchHandle: for a handle its caller may not use.
        @raise NotAdmitted: for a request id in flight there, or a caller
            over its share of calls.
        @raise ShareExhausted: for an identity at its share of sessions;
            or any failure of L{borrowed}.
        """
        if handle is None:
            self._admitted(None, principal, requestId)
            return self.borrowed(principal, clientInfo, why)
        # Callbacks rather than a generator: a call's one step into this
        # layer.
        found = self.sessions.working(handle, principal)
        if isinstance(found, Deferred):
            return found.addCallback(self._found, handle, principal,
                                     requestId)
        return succeed(self._found(found, handle, principal, requestId))

    def _found(self, session: WorkSession | None, handle: str,
               principal: Principal | None, requestId: object) -> Lent:
        if session is None:
            raise NoSuchHandle(handle)
        self._admitted(session, principal, requestId)
        return session, None

    def _admitted(self, work: WorkSession | None,
                  principal: Principal | None, requestId: object) -> None:
        try:
            self.sessions.shares.admitCall(work, principal, requestId)
        except (RequestInFlight, ShareExhausted) as e:
            raise NotAdmitted(work, e)

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

"""
The live work sessions, keyed by their opaque handles.
"""

from collections.abc import Iterator

from twisted.internet.interfaces import IReactorTime

from gsmcpd.sessions.interfaces import IWorkSession
from gsmcpd.sessions.shares import Shares
from gsmcpd.sessions.work import WorkSession


class WorkSessions:
    """
    The live work sessions by handle: what the registry logged in and has
    not closed, whoever uses each (a 2025 client, a 2026 handle, the warm
    pool).

    @ivar byHandle: the live work sessions by handle, read as they are (a
        2026 call's era finds its handle's session there).
    """

    def __init__(self, clock: IReactorTime, shares: Shares) -> None:
        """
        @param shares: told of each session added, counted in its
            identity's share until it is given back.
        """
        self._clock = clock
        self._shares = shares
        self.byHandle: dict[str, WorkSession] = {}

    def __len__(self) -> int:
        return len(self.byHandle)

    def __iter__(self) -> Iterator[WorkSession]:
        return iter(list(self.byHandle.values()))

    def get(self, handle: str) -> WorkSession | None:
        """The live work session C{handle} names, or L{None}."""
        return self.byHandle.get(handle)

    def add(self, session: WorkSession) -> None:
        """
        C{session} is logged in and prepared: it serves from now on.
        """
        self.byHandle[session.handle] = session
        self._shares.registered(session)

    def remove(self, session: WorkSession) -> None:
        """
        C{session} is closing: no request finds it from now on.
        """
        del self.byHandle[session.handle]

    def touch(self, session: IWorkSession) -> None:
        """
        C{session}'s client made a request: it is active.
        """
        session.active(self._clock.seconds())

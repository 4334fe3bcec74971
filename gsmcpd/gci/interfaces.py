"""
The seams between the MCP layer and GemStone sessions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twisted.internet.defer import Deferred
from zope.interface import Attribute, Interface

if TYPE_CHECKING:
    from gsmcpd.gci.debugcalls import Stopped


class IGemSession(Interface):
    """
    One GemStone session whose calls run off the reactor thread.
    """

    name = Attribute("How logs name this session.")
    busy = Attribute("Whether a call is queued or running.")
    gone = Attribute("The fatal GciError that ended the session, or None.")

    def execute(source: str, maxBytes: int) -> Deferred[bytes]:
        """
        Execute Smalltalk source (a str); a Deferred firing with the
        byte-format result, or failing with a GciError.
        """

    def interrupt(hard: bool) -> None:
        """
        Break the call running now, if any; callable on the reactor thread.
        """

    def callState(d: Deferred[bytes]) -> str | None:
        """
        "running" or "queued" for the call whose result is C{d}, or None
        when it is over.
        """

    def endCall(d: Deferred[bytes], hard: bool) -> str | None:
        """
        End the call whose result is C{d}: break it if it runs, withdraw it
        if it is queued.  Answers "broken", "withdrawn" or None.
        """

    def abandon(reason: str) -> None:
        """
        Give up on the session: withdraw every queued call now; log out
        whenever the stuck call returns.
        """

    def logout() -> Deferred[None]:
        """
        Log out after every queued call; a Deferred firing with None.
        """


class IDebugSession(IGemSession):
    """
    A GemStone session that can run code so that it stops (a breakpoint, a
    halt, an Error nothing handles) and keep the stopped GsProcess for its
    client to step, continue or clear.
    """

    paused = Attribute("A frozenset of the OOPs of the GsProcesses its "
                       "debugged runs left stopped.")

    def executeDebug(source: str,
                     process: int | None = None) -> Deferred[Stopped | None]:
        """
        Execute Smalltalk source with debugging enabled: a Deferred firing
        with a Stopped when the run (or the stopped C{process} the source
        steps) stops and is kept, None when it finished.
        """

    def continueDebug(process: int) -> Deferred[Stopped | None]:
        """
        Resume the stopped C{process}: as L{executeDebug}.
        """

    def clearDebug(process: int) -> Deferred[None]:
        """
        End the stopped C{process}.
        """


class ISessionPool(Interface):
    """
    Where GemStone sessions come from, and the cap on how many.
    """

    def open(name: str, user: str | None = None) -> Deferred[IGemSession]:
        """
        A Deferred firing with a logged-in IGemSession (as GemStone user
        C{user}, or the pool's default user); raises SessionLimitReached
        synchronously, without a login, when full, and ServerStopping once
        told to refuseNew.
        """

    def refuseNew() -> None:
        """
        Open no new session from now on: the daemon is draining.
        """

    def close(gem: IGemSession) -> Deferred[None]:
        """
        Log C{gem} out and free its slot; a Deferred.
        """

    def replace(gem: IGemSession, name: str,
                user: str | None = None) -> Deferred[IGemSession]:
        """
        Abandon C{gem} and log a new session in (as C{user}), in its slot; a
        Deferred firing with the new IGemSession.
        """

    def closeAll() -> Deferred[object]:
        """
        Log every session out; a Deferred.
        """

"""
Gem replacement: a work session whose call took neither break gets a fresh
GemStone session in place of the one abandoned, which is stopped from the
daemon's own session so that its login comes back.
"""

from collections.abc import Callable

from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.gci.interfaces import IGemSession, ISessionPool
from gsmcpd.sessions.interfaces import ISessionCloser, IWorkSession
from gsmcpd.sessions.logins import Logins
from gsmcpd.sessions.table import WorkSessions
from gsmcpd.sessions.work import WorkSession, userOf


class GemReplacement:
    """
    Replaces abandoned GemStone sessions, and stops abandoned gems.
    """

    log = Logger()

    def __init__(self, pool: ISessionPool, work: WorkSessions,
                 logins: Logins, closer: ISessionCloser,
                 stopGem: Callable[[int], object] | None = None) -> None:
        """
        @param stopGem: called with the stone session number of a gem that
            had to be abandoned (its call took neither break), to stop it
            from another session; it would otherwise hold a login until it
            ends.
        """
        self._pool = pool
        self._work = work
        self._logins = logins
        self._closer = closer
        self._stopGem = stopGem

    def stopAbandoned(self, session: IWorkSession) -> None:
        """
        Stop C{session}'s gem, which took no break, from another session.
        """
        stoneSession = session.view.stoneSession
        if self._stopGem is not None and stoneSession is not None:
            maybeDeferred(self._stopGem, stoneSession).addErrback(
                lambda f: self.log.failure("stopping an abandoned gem", f))

    def replace(self, session: IWorkSession, reason: str) -> Deferred[None]:
        """
        Give C{session} a fresh GemStone session in place of one that had to
        be abandoned (a call that took no break); a session closed since
        only has its gem stopped.

        @return: a L{Deferred} firing when the new one is logged in and
            prepared; if either fails the session is closed, since a gem
            its preparation refused (no commit lock, say) is never served.
        """
        old = session.gem
        work = self._work.get(session.handle)
        closed = work is not session
        self.log.warn("session {handle}: {doing} its GemStone session: "
                      "{reason}", handle=session.label, reason=reason,
                      doing="closed, stopping" if closed else "replacing")
        self.stopAbandoned(session)
        if work is None or closed:
            # Closed while its call was being ended: nobody would log a
            # replacement out, and the stopped gem's logout can run.
            return succeed(None)
        live: WorkSession = work  # the session itself, as registered
        logging = self._pool.replace(old, name=session.handle[:8],
                                     user=userOf(session.principal))

        def replaced(gem: IGemSession) -> Deferred[None]:
            live.gemReplaced(gem)
            return self._logins.prepared(live).addCallback(
                lambda _: None).addErrback(failed, "could not be prepared")

        def failed(failure: Failure, why: str) -> Deferred[None]:
            self.log.failure("session {handle}: its replacement GemStone "
                             "session {why}", failure, handle=session.label,
                             why=why)
            return self._closer.close(
                session.handle, f"its replacement GemStone session {why}",
                code="replacement_failed")

        def done(result: None) -> None:
            live.replacementOver()
            return result

        live.replacementBegan()
        over: Deferred[None] = logging.addCallbacks(
            replaced, failed, errbackArgs=("could not be logged in",))
        return over.addBoth(done)

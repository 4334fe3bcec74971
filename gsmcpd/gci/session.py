"""
One GemStone session, its own thread, and a FIFO of calls.

GCI allows one call in flight per session, and a GemStone call can block
for as long as the Smalltalk runs.  So each L{GemSession} owns a thread that
makes every blocking call on its session in turn; the reactor thread only
enqueues work and receives results as L{Deferred}s.  Two requests from one
client queue here; two clients never wait for each other.
"""

import collections
import threading

import attr
from twisted.internet.defer import Deferred, fail, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IGemSession


@attr.s(frozen=True, auto_attribs=True, repr=False)
class LoginParameters:
    """
    What GciTsLogin needs.  C{repr} leaves the passwords out.
    """

    stoneNrs: str
    gemNrs: str | None
    user: str
    password: str
    hostUser: str | None = None
    hostPassword: str | None = None
    flags: int = 0

    def __repr__(self):
        return (f"LoginParameters(stoneNrs={self.stoneNrs!r}, "
                f"gemNrs={self.gemNrs!r}, user={self.user!r})")


class SessionGone(GciError):
    """
    A call was made on a session whose gem already died, logged out, or was
    abandoned.
    """


class CallWithdrawn(Exception):
    """
    A queued call was withdrawn before it started.
    """


def shielded(d):
    """
    A L{Deferred} with C{d}'s result that its holder may cancel without
    cancelling C{d}: for work that must run to its end (a logout, a call
    only a break can end) whoever stops waiting for it.
    """
    answer = Deferred()
    d.chainDeferred(answer)
    return answer


@attr.s(eq=False, auto_attribs=True)
class _Call:
    work: object
    deferred: Deferred
    evenIfGone: bool = False


_STOP = object()


@implementer(IGemSession)
class GemSession:
    """
    A GciTs session driven from its own thread.

    @ivar name: how logs and the thread name this session.
    @ivar inFlight: how many calls are queued or running (reactor side).
    """

    log = Logger()

    def __init__(self, library, login, reactor, name):
        self._library = library
        self._login = login
        self._reactor = reactor
        self.name = name
        self.inFlight = 0
        self._handle = None
        self._gone = None
        self._abandoned = False
        self._lock = threading.Condition()
        self._queue = collections.deque()
        self._running = None
        self._thread = threading.Thread(
            target=self._serve, name=f"gem {name}", daemon=True)
        self._thread.start()

    @property
    def busy(self):
        """
        Whether a call is queued or running on this session.
        """
        return self.inFlight > 0

    @property
    def gone(self):
        """
        The fatal L{GciError} that ended this session, or L{None}.
        """
        return self._gone

    def login(self):
        """
        Log the session in; fires with L{None}.
        """
        return self._submit(self._doLogin)

    def execute(self, source, maxBytes):
        """
        Execute Smalltalk source; fires with the byte-format result.

        @param source: the Smalltalk source as L{str}.
        """
        encoded = source.encode("utf-8")
        return self._submit(
            lambda: self._library.executeFetchBytes(
                self._handle, encoded, maxBytes))

    def logout(self):
        """
        Log out after every queued call, then end the thread.

        Fires with L{None} whether or not the stone accepted the logout: the
        session is over either way.  An abandoned session logs out whenever
        its stuck call returns; nobody waits for that.
        """
        if self._abandoned:
            return succeed(None)
        d = self._submit(self._doLogout, evenIfGone=True, withdrawable=False)
        with self._lock:
            self._queue.append(_STOP)
            self._lock.notify()
        return d

    def interrupt(self, hard):
        """
        Break the call running now; a no-op when none is.

        Safe from the reactor thread: GciTsBreak is the one GemStone call
        documented as callable while another thread is inside a call.
        """
        if self._handle is None or self._gone is not None:
            return
        try:
            self._library.breakSession(self._handle, hard)
        except GciError as e:
            # The call, or the session, may have ended since we looked.
            self.log.debug("{session}: break not delivered: {error}",
                           session=self.name, error=e)

    def callState(self, d):
        """
        C{"running"} or C{"queued"} for the call whose result C{d} is, or
        L{None} when it is over.
        """
        with self._lock:
            if self._running is not None and self._running.deferred is d:
                return "running"
            if any(c is not _STOP and c.deferred is d for c in self._queue):
                return "queued"
        return None

    def endCall(self, d, hard):
        """
        End the call whose result C{d} is: break it if it is running,
        withdraw it if it is still queued (it fails with L{CallWithdrawn}).

        @return: C{"broken"}, C{"withdrawn"}, or L{None} when it is over.
        """
        with self._lock:
            if self._running is not None and self._running.deferred is d:
                running = True
            else:
                running = False
                queued = [c for c in self._queue
                          if c is not _STOP and c.deferred is d]
                for call in queued:
                    self._queue.remove(call)
        if running:
            self.interrupt(hard)
            return "broken"
        if queued:
            self.inFlight -= len(queued)
            d.errback(CallWithdrawn())
            return "withdrawn"
        return None

    def abandon(self, reason):
        """
        Give up on this session: its running call took no break.  Every
        queued call is withdrawn now; the thread logs out and ends whenever
        the stuck call returns.
        """
        error = SessionGone(number=0, message=reason, fatal=True)
        with self._lock:
            self._abandoned = True
            self._gone = self._gone or error
            withdrawn = [c for c in self._queue if c is not _STOP]
            self._queue.clear()
            self._queue.append(_Call(self._doLogout, Deferred(), True))
            self._queue.append(_STOP)
            self._lock.notify()
        self.inFlight += 1 - len(withdrawn)
        for call in withdrawn:
            call.deferred.errback(CallWithdrawn(reason))

    def _submit(self, work, evenIfGone=False, withdrawable=True):
        """
        Queue C{work} for the session's thread.

        Cancelling the answer withdraws a call that has not started (unless
        it must run, as a logout must); a running call runs on, and the
        session stays busy until it returns, since only a break ends it.
        """
        if self._abandoned:
            return fail(SessionGone(number=0, message="abandoned",
                                    fatal=True))
        d = Deferred(self._withdraw if withdrawable else None)
        self.inFlight += 1
        with self._lock:
            self._queue.append(_Call(work, d, evenIfGone))
            self._lock.notify()
        return d

    def _withdraw(self, d):
        with self._lock:
            queued = [c for c in self._queue
                      if c is not _STOP and c.deferred is d]
            for call in queued:
                self._queue.remove(call)
        self.inFlight -= len(queued)

    def _returned(self, call, outcome):
        """
        A call came back from the thread: the session is that much less
        busy, whether or not its caller still waits for the answer.
        """
        self.inFlight -= 1
        if call.deferred.called:
            return
        if isinstance(outcome, Failure):
            call.deferred.errback(outcome)
        else:
            call.deferred.callback(outcome)

    def _serve(self):
        while True:
            with self._lock:
                while not self._queue:
                    self._lock.wait()
                call = self._queue.popleft()
                if call is _STOP:
                    return
                self._running = call
            try:
                if self._gone is not None and not call.evenIfGone:
                    raise SessionGone(
                        number=self._gone.number, message=self._gone.message,
                        fatal=True)
                result = call.work()
            except GciError as e:
                self._afterError(e)
                outcome = Failure()
            except BaseException:
                outcome = Failure()
            else:
                outcome = result
            with self._lock:
                self._running = None
            self._reactor.callFromThread(self._returned, call, outcome)

    def _afterError(self, error):
        if error.fatal:
            self._gone = error
        elif error.context and self._handle is not None:
            # Execution runs with debugging enabled, so a failed call leaves
            # its GsProcess suspended in the gem until it is cleared.
            try:
                self._library.clearStack(self._handle, error.context)
            except GciError as e:
                self.log.warn("{session}: clearing a failed call's stack: "
                              "{error}", session=self.name, error=e)

    def _doLogin(self):
        self._handle = self._library.login(
            self._login.stoneNrs, self._login.gemNrs, self._login.hostUser,
            self._login.hostPassword, self._login.user, self._login.password,
            self._login.flags)

    def _doLogout(self):
        handle, self._handle = self._handle, None
        if handle is None or (self._gone is not None and not self._abandoned):
            return
        try:
            self._library.logout(handle)
        except GciError as e:
            self.log.warn("{session}: logout: {error}", session=self.name,
                          error=e)

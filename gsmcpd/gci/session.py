"""
One GemStone session, its own thread, and a FIFO of calls.

GCI allows one call in flight per session, and a GemStone call can block
for as long as the Smalltalk runs.  So each L{GemSession} owns a thread that
makes every blocking call on its session in turn; the reactor thread only
enqueues work and receives results as L{Deferred}s.  Two requests from one
client queue here; two clients never wait for each other.
"""

import queue
import threading
from collections.abc import Callable
from typing import Any

import attr
from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorFromThreads
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from gsmcpd.gci.breaker import Breaker
from gsmcpd.gci.debugcalls import DEBUG_FLAGS, Stopped, stopOrFinish
from gsmcpd.gci.deliveries import ResultDeliveries
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IDebugSession
from gsmcpd.gci.library import GciLibrary, Handle
from gsmcpd.gci.login import SOURCE_CLASS as SOURCE_CLASS
from gsmcpd.gci.login import LoginParameters as LoginParameters


class SessionGone(GciError):
    """
    A call was made on a session whose gem already died, logged out, or was
    abandoned.
    """


class CallWithdrawn(Exception):
    """
    A queued call was withdrawn before it started.
    """


_QUEUED, _RUNNING, _WITHDRAWN = "queued", "running", "withdrawn"


def shielded(d: Deferred) -> Deferred:
    """
    A L{Deferred} with C{d}'s result that its holder may cancel without
    cancelling C{d}: for work that must run to its end (a logout, a call
    only a break can end) whoever stops waiting for it.
    """
    answer: Deferred = Deferred()
    d.chainDeferred(answer)
    return answer


@attr.s(eq=False, auto_attribs=True, slots=True)
class _GciCall:
    """
    One call on its way through a session's thread; C{work} L{None} is the
    thread's cue to end.  C{state} moves from queued to running (on the
    session's thread) or to withdrawn (on the reactor's), never both: the
    session's guard makes each move.
    """

    work: object
    deferred: Deferred | None
    evenIfGone: bool = False
    state: str | None = _QUEUED


@implementer(IDebugSession)
class GemSession:
    """
    A GciTs session driven from its own thread.

    The thread takes calls from a C{SimpleQueue} (no Python-level lock or
    condition per call on either side) and hands results back through
    L{ResultDeliveries}.  Calls not yet over are kept by their result's
    L{Deferred} on the reactor side, so one can be found to break or
    withdraw.

    A L{Breaker} sends its breaks, each only while the call it names runs.
    GciTsLogout frees the handle, so the handle changes, a call ends, and
    every break is sent, under C{_handleLock} (taken on the session's and
    the breaker's threads only): a logout begins once no break is in
    flight, no break starts once one has begun, and a break in flight
    holds the next call back, never hits it.

    @ivar name: how logs and the thread name this session.
    @param deliveries: shared with other sessions (the pool's); by default
        the session's own.
    """

    log = Logger()

    def __init__(self, library: GciLibrary, login: LoginParameters,
                 reactor: IReactorFromThreads, name: str,
                 deliveries: ResultDeliveries | None = None) -> None:
        self._library = library
        self._login = login
        self._reactor = reactor
        self._deliveries = deliveries or ResultDeliveries(reactor)
        self.name = name
        self._handle: Handle | None = None
        self._handleLock = threading.Lock()
        self._breaker: Breaker[_GciCall] = Breaker(self._sendBreak, name)
        self._sourceClass = 0
        self._gone: GciError | None = None
        self._abandoned = False
        self._guard = threading.Lock()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._calls: dict[Deferred, _GciCall] = {}
        self._stop: _GciCall | None = None
        self._running: _GciCall | None = None
        self._paused: set[int] = set()
        self._thread = threading.Thread(
            target=self._serve, name=f"gem {name}", daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """Whether a call is queued or running on this session."""
        return bool(self._calls)

    @property
    def gone(self) -> GciError | None:
        """The fatal L{GciError} that ended this session, or L{None}."""
        return self._gone

    def login(self) -> Deferred:
        """
        Log the session in (and find its Utf8 class); fires with L{None}.
        """
        return self._submit(self._doLogin)

    def execute(self, source: str, maxBytes: int) -> Deferred:
        """
        Execute Smalltalk source; fires with the byte-format result.

        @param source: the Smalltalk source as L{str}.
        """
        encoded = source.encode("utf-8")
        return self._submit(
            lambda: self._library.executeFetchBytes(
                self._loggedIn(), encoded, self._sourceClass, maxBytes))

    @property
    def paused(self) -> frozenset[int]:
        """The OOPs of the GsProcesses this session's debugged runs left
        stopped; none once its logout began or its gem died, which end them."""
        return frozenset(() if self._stop or self._gone else self._paused)

    def executeDebug(self, source: str,
                     process: int | None = None) -> Deferred[Stopped | None]:
        """
        Execute C{source} so that it can stop: a L{Stopped} when it (or
        the stopped C{process} it steps) stops, L{None} when it finished.
        """
        encoded = source.encode("utf-8")
        return self._debugCall(process, lambda: self._library.executeDebug(
            self._loggedIn(), encoded, self._sourceClass, DEBUG_FLAGS))

    def continueDebug(self, process: int) -> Deferred[Stopped | None]:
        """Resume the stopped C{process} as it is (GciTsContinueWith)."""
        return self._debugCall(process, lambda: self._library.continueWith(
            self._loggedIn(), process, DEBUG_FLAGS))

    def clearDebug(self, process: int) -> Deferred[None]:
        """End the stopped C{process} (GciTsClearStack)."""
        self._paused.discard(process)
        return self._submit(
            lambda: self._library.clearStack(self._loggedIn(), process))

    def _debugCall(self, process: int | None,
                   work: Callable[[], object]) -> Deferred[Stopped | None]:
        if process is not None:
            self._paused.discard(process)  # it runs, until it stops again
        return self._submit(lambda: stopOrFinish(work)).addCallback(self._kept)

    def _kept(self, outcome: Stopped | None) -> Stopped | None:
        self._paused.update([outcome.process] if outcome else [])
        return outcome

    def _loggedIn(self) -> Handle:
        """On the session's thread: the handle a call is made on."""
        if self._handle is None:
            raise SessionGone(number=0, message="not logged in", fatal=True)
        return self._handle

    def logout(self) -> Deferred:
        """
        Log out after every queued call, then end the thread.

        Fires with L{None} whether or not the stone accepted the logout: the
        session is over either way.  An abandoned session logs out whenever
        its stuck call returns; nobody waits for that.
        """
        if self._abandoned:
            return succeed(None)
        d = self._submit(self._doLogout, evenIfGone=True, withdrawable=False)
        self._endThread()
        return d

    def _endThread(self) -> None:
        self._stop = _GciCall(None, None)
        self._queue.put(self._stop)

    def interrupt(self, hard: bool) -> None:
        """
        Break the call running now; a no-op when none is, or once the
        session's logout has begun, and for any later call.

        Returns at once: the break is sent by the session's L{Breaker}
        (GciTsBreak is the one GemStone call documented as callable while
        another thread is inside a call, but it can block on a wedged
        gem).
        """
        if (running := self._running) is not None:
            self._breaker.request(running, hard)

    def _sendBreak(self, call: _GciCall, hard: bool) -> None:
        # On the breaker's thread.  The session's thread holds the lock
        # only to change the handle or end a call, never across a call.
        with self._handleLock:
            if self._handle is None or self._gone is not None or \
                    call.state is not _RUNNING:
                return
            try:
                self._library.breakSession(self._handle, hard)
            except GciError as e:
                # The call may have ended, or the gem died, since we looked.
                self.log.debug("{session}: break not delivered: {error}",
                               session=self.name, error=e)

    def callState(self, d: Deferred) -> str | None:
        """
        C{"running"} or C{"queued"} for the call whose result C{d} is, or
        L{None} when it is over.
        """
        call = self._calls.get(d)
        return None if call is None else call.state

    def endCall(self, d: Deferred, hard: bool) -> str | None:
        """
        End the call whose result C{d} is: break it if it is running,
        withdraw it if it is still queued (it fails with L{CallWithdrawn}).

        @return: C{"broken"}, C{"withdrawn"}, or L{None} when it is over.
        """
        call = self._calls.get(d)
        if call is None:
            return None
        if self._withdraw(call):
            d.errback(CallWithdrawn())
            return "withdrawn"
        if call.state is _RUNNING:
            self._breaker.request(call, hard)
            return "broken"
        return None

    def _withdraw(self, call: _GciCall) -> bool:
        """
        Withdraw C{call} if its thread has not taken it yet; a withdrawn
        call no longer keeps the session busy.  (The stop marker is in no
        table: it has no deferred.)
        """
        with self._guard:
            if call.state is not _QUEUED:
                return False
            call.state = _WITHDRAWN
        if call.deferred is not None:
            self._calls.pop(call.deferred, None)
        return True

    def abandon(self, reason: str) -> None:
        """
        Give up on this session: its running call took no break.  Every
        queued call is withdrawn now; the thread logs out and ends whenever
        the stuck call returns.
        """
        error = SessionGone(number=0, message=reason, fatal=True)
        self._abandoned = True
        self._gone = self._gone or error
        withdrawn = [call.deferred for call in list(self._calls.values())
                     if self._withdraw(call) and call.deferred is not None]
        if self._stop is not None:
            self._withdraw(self._stop)
        self._queue.put(_GciCall(self._doLogout, None, True))
        self._endThread()
        for d in withdrawn:
            d.errback(CallWithdrawn(reason))

    def _submit(self, work: Callable[[], Any], evenIfGone: bool = False,
                withdrawable: bool = True) -> Deferred:
        """
        Queue C{work} for the session's thread.

        Cancelling the answer withdraws a call that has not started (unless
        it must run, as a logout must); a running call runs on, and the
        session stays busy until it returns, since only a break ends it.
        """
        d: Deferred = Deferred(self._cancelled if withdrawable else None)
        if self._abandoned:
            d.errback(SessionGone(number=0, message="abandoned", fatal=True))
            return d
        call = _GciCall(work, d, evenIfGone)
        self._calls[d] = call
        self._queue.put(call)
        return d

    def _cancelled(self, d: Deferred) -> None:
        call = self._calls.get(d)
        if call is not None:
            self._withdraw(call)

    def _over(self, call: _GciCall, outcome: object) -> None:
        """
        On the reactor thread: C{call} is over with C{outcome}, whether or
        not its caller still waits for it.
        """
        if call.deferred is None:
            if isinstance(outcome, Failure):
                self.log.failure("{session}: logging out after abandoning "
                                 "it", outcome, session=self.name)
            return
        del self._calls[call.deferred]
        if call.deferred.called:
            return
        if isinstance(outcome, Failure):
            call.deferred.errback(outcome)
        else:
            call.deferred.callback(outcome)

    def _serve(self) -> None:
        while True:
            call = self._queue.get()
            with self._guard:
                if call.state is not _QUEUED:
                    continue
                call.state = _RUNNING
                self._running = call
            if call.work is None:
                return
            try:
                if self._gone is not None and not call.evenIfGone:
                    raise SessionGone(
                        number=self._gone.number, message=self._gone.message,
                        fatal=True)
                outcome = call.work()
            except GciError as e:
                self._afterError(e)
                outcome = Failure()
            except BaseException:
                outcome = Failure()
            self._deliveries.put(self._over, call, outcome)
            with self._handleLock:  # after any break in flight for it
                call.state = self._running = None

    def _afterError(self, error: GciError) -> None:
        if error.fatal:
            # The gem is gone, but its GciSession (and its socket) lives
            # until GciTsLogout frees it: now, whenever the session is
            # closed, if it ever is.
            self._gone = error
            self._release()
            return
        process = error.suspendedProcess
        if process is not None and self._handle is not None:
            # Execution runs with debugging enabled, so a failed call may
            # leave its GsProcess suspended in the gem until it is cleared.
            try:
                self._library.clearStack(self._handle, process)
            except GciError as e:
                self.log.warn("{session}: clearing a failed call's stack: "
                              "{error}", session=self.name, error=e)

    def _doLogin(self) -> None:
        handle, warning = self._library.login(
            self._login.stoneNrs, self._login.gemNrs, self._login.hostUser,
            self._login.hostPassword, self._login.user, self._login.password,
            self._login.flags)
        if warning is not None:
            self.log.warn("{session}: logged in with a warning: {error}",
                          session=self.name, error=warning)
        try:
            self._sourceClass = self._library.resolveSymbol(
                handle, SOURCE_CLASS)
        except GciError:
            # A login that fails leaves nothing logged in.
            self._logoutHandle(handle)
            raise
        with self._handleLock:
            self._handle = handle

    def _doLogout(self) -> None:
        self._release()
        self._breaker.stop()

    def _release(self) -> None:
        """
        On the session's thread: log the handle out, if it still is in.
        """
        with self._handleLock:
            handle, self._handle = self._handle, None
        if handle is not None:
            self._logoutHandle(handle)

    def _logoutHandle(self, handle: Handle) -> None:
        try:
            self._library.logout(handle)
        except GciError as e:
            # Expected once the gem is gone (4100): the handle is freed.
            (self.log.warn if self._gone is None else self.log.info)(
                "{session}: logout: {error}", session=self.name, error=e)

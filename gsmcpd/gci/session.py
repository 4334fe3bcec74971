"""
One GemStone session, its own thread, and a FIFO of calls.

GCI allows one call in flight per session, and a GemStone call can block
for as long as the Smalltalk runs.  So each L{GemSession} owns a thread that
makes every blocking call on its session in turn; the reactor thread only
enqueues work and receives results as L{Deferred}s.  Two requests from one
client queue here; two clients never wait for each other.
"""

import collections
import queue
import threading
import weakref

import attr
from twisted.internet.defer import Deferred, succeed
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


_QUEUED, _RUNNING, _WITHDRAWN = "queued", "running", "withdrawn"


def shielded(d):
    """
    A L{Deferred} with C{d}'s result that its holder may cancel without
    cancelling C{d}: for work that must run to its end (a logout, a call
    only a break can end) whoever stops waiting for it.
    """
    answer = Deferred()
    d.chainDeferred(answer)
    return answer


@attr.s(eq=False, auto_attribs=True, slots=True)
class _Call:
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


class _Deliveries:
    """
    Results on their way from the gem threads to the reactor.  The reactor
    is woken once for every result that arrives before it runs, rather
    than once a result: under load that saves a write, a read and a thread
    switch a call.
    """

    log = Logger()

    def __init__(self, reactor):
        self._reactor = reactor
        self._results = collections.deque()
        self._scheduled = False

    def put(self, fire, *args):
        """
        From any thread: call C{fire(*args)} on the reactor thread.
        """
        self._results.append((fire, args))
        if not self._scheduled:
            # Two threads may both get here: the second drain finds
            # nothing, which is harmless.
            self._scheduled = True
            self._reactor.callFromThread(self._drain)

    def _drain(self):
        # Reset before popping: a result appended from now on either is
        # popped below or schedules a drain of its own.
        self._scheduled = False
        results = self._results
        while results:
            fire, args = results.popleft()
            try:
                fire(*args)
            except Exception:
                self.log.failure("delivering a GemStone call's result")


_deliveries = weakref.WeakKeyDictionary()


def _deliveriesFor(reactor):
    found = _deliveries.get(reactor)
    if found is None:
        found = _deliveries[reactor] = _Deliveries(reactor)
    return found


@implementer(IGemSession)
class GemSession:
    """
    A GciTs session driven from its own thread.

    The thread takes calls from a C{SimpleQueue} (no Python-level lock or
    condition per call on either side) and hands results back through the
    reactor's shared L{_Deliveries}.  Calls not yet over are kept by their
    result's L{Deferred} on the reactor side, so one can be found to break
    or withdraw.

    @ivar name: how logs and the thread name this session.
    """

    log = Logger()

    def __init__(self, library, login, reactor, name):
        self._library = library
        self._login = login
        self._reactor = reactor
        self._deliveries = _deliveriesFor(reactor)
        self.name = name
        self._handle = None
        self._gone = None
        self._abandoned = False
        self._guard = threading.Lock()
        self._queue = queue.SimpleQueue()
        self._calls = {}
        self._stop = None
        self._thread = threading.Thread(
            target=self._serve, name=f"gem {name}", daemon=True)
        self._thread.start()

    @property
    def busy(self):
        """
        Whether a call is queued or running on this session.
        """
        return bool(self._calls)

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
        self._endThread()
        return d

    def _endThread(self):
        self._stop = _Call(None, None)
        self._queue.put(self._stop)

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
        call = self._calls.get(d)
        return None if call is None else call.state

    def endCall(self, d, hard):
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
            self.interrupt(hard)
            return "broken"
        return None

    def _withdraw(self, call):
        """
        Withdraw C{call} if its thread has not taken it yet; a withdrawn
        call no longer keeps the session busy.  (The stop marker is in no
        table: it has no deferred.)
        """
        with self._guard:
            if call.state is not _QUEUED:
                return False
            call.state = _WITHDRAWN
        self._calls.pop(call.deferred, None)
        return True

    def abandon(self, reason):
        """
        Give up on this session: its running call took no break.  Every
        queued call is withdrawn now; the thread logs out and ends whenever
        the stuck call returns.
        """
        error = SessionGone(number=0, message=reason, fatal=True)
        self._abandoned = True
        self._gone = self._gone or error
        withdrawn = [call for call in list(self._calls.values())
                     if self._withdraw(call)]
        if self._stop is not None:
            self._withdraw(self._stop)
        self._queue.put(_Call(self._doLogout, None, True))
        self._endThread()
        for call in withdrawn:
            call.deferred.errback(CallWithdrawn(reason))

    def _submit(self, work, evenIfGone=False, withdrawable=True):
        """
        Queue C{work} for the session's thread.

        Cancelling the answer withdraws a call that has not started (unless
        it must run, as a logout must); a running call runs on, and the
        session stays busy until it returns, since only a break ends it.
        """
        d = Deferred(self._cancelled if withdrawable else None)
        if self._abandoned:
            d.errback(SessionGone(number=0, message="abandoned", fatal=True))
            return d
        call = _Call(work, d, evenIfGone)
        self._calls[d] = call
        self._queue.put(call)
        return d

    def _cancelled(self, d):
        call = self._calls.get(d)
        if call is not None:
            self._withdraw(call)

    def _over(self, call, outcome):
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

    def _serve(self):
        while True:
            call = self._queue.get()
            with self._guard:
                if call.state is not _QUEUED:
                    continue
                call.state = _RUNNING
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
            call.state = None
            self._deliveries.put(self._over, call, outcome)

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

"""
The session registry: the live work sessions, keyed by an opaque handle,
and the 2025 clients' sessions working in them.

The 2025 transport hands a client session's handle out as
C{MCP-Session-Id}, the 2026 era as the C{session} argument of its tools;
nothing below the transport knows either.
"""

from twisted.internet.defer import Deferred, DeferredList, maybeDeferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.pool import SessionLimitReached
from gsmcpd.gci.session import shielded
from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.logformat import describeClient
from gsmcpd.observe.metrics import UNOBSERVED
from gsmcpd.sessions.breaks import breakUntilOut
from gsmcpd.sessions.client import ClientSession
from gsmcpd.sessions.shares import NO_CAPS, Shares
from gsmcpd.sessions.warm import WarmSessions, lockCommits
from gsmcpd.sessions.work import WorkSession, newHandle, userOf
from gsmcpd.tools.templates.outcomes import ToolError


class LoginNotAnswered(Exception):
    """
    The stone did not answer a session's login within the registry's
    C{loginDeadline}; the login itself runs on to its end.
    """

    def __init__(self, deadline):
        super().__init__(f"the stone did not answer a login in {deadline:g}s")
        self.deadline = deadline


class SessionRegistry:
    """
    The live work sessions, each holding a GemStone session from the pool,
    and the 2025 client sessions, each working in one of them.

    @ivar streamLossGrace: seconds a session whose client hung up its stream
        keeps its GemStone session, in case the client reattaches.
    @ivar prepare: called with each new L{WorkSession} before it is
        registered (to name its gem, say); may answer a L{Deferred}.
    @ivar onClose: called with each session as it is closed.
    @ivar onCommit: called with the resource URIs each commit changed.
    @ivar stopGem: called with the stone session number of a gem that had
        to be abandoned (its call took neither break), to stop it from
        another session; it would otherwise hold a login until it ends.
    @ivar warm: the idle throwaway sessions, never used, logged in ahead
        for the next call without a handle of their GemStone user
        (L{WarmSessions}).
    @ivar loginDeadline: seconds a client waits for its login before it is
        told the stone is not answering (L{LoginNotAnswered}), or L{None}.
    @ivar shares: what each identity holds against its fair shares
        (L{Shares}).
    """

    log = Logger()

    def __init__(self, pool, clock, streamLossGrace=10.0, prepare=None,
                 stopGem=None, onClose=(), metrics=UNOBSERVED, warmReads=0,
                 onCommit=(), loginDeadline=None, shares=NO_CAPS):
        self._pool = pool
        self.loginDeadline = loginDeadline
        self._metrics = metrics
        self._clock = clock
        self.streamLossGrace = streamLossGrace
        self._sessions = {}
        self._clients = {}
        self._graceTimers = {}
        self.onClose = list(onClose)
        self.onCommit = tuple(onCommit)
        # Without a preparation a session is served as it logged in.
        self.prepare = (lambda session: None) if prepare is None else prepare
        self.stopGem = stopGem
        self.warm = WarmSessions(self, clock, warmReads)
        self.onClose.append(self.warm.forget)
        self.shares = Shares(shares, self.warm.holds)

    def __len__(self):
        return len(self._sessions)

    def __iter__(self):
        return iter(list(self._sessions.values()))

    def open(self, principal=None, clientInfo=None, throwaway=False):
        """
        Log a GemStone session in: as the GemStone user C{principal} names,
        with authentication.

        @param clientInfo: what its client said it is, for the log.
        @param throwaway: whether it serves one call
            (L{WorkSession.throwaway}).

        @return: a L{Deferred} firing with the registered L{WorkSession}.
        @raise gsmcpd.gci.pool.SessionLimitReached: synchronously when the
            pool is full and no spare, idle or logging in, can give up
            its slot; no login is attempted.
        @raise gsmcpd.sessions.shares.ShareExhausted: synchronously when
            C{principal}'s identity holds its share of sessions.
        """
        self.shares.admitSession(principal)
        try:
            d = self.logIn(principal, clientInfo, throwaway)
        except SessionLimitReached:
            # A spare's slot frees once it is logged out (a spare still
            # logging in, once its login is over); the login is then
            # attempted at once, before anything else runs, so no other
            # opener can take that slot first.
            d = self.warm.evict()
            if d is None:
                self._metrics.logins.labels("refused").inc()
                raise
            d.addBoth(lambda _: self.logIn(principal, clientInfo, throwaway))
        loginOver = self.shares.opening(principal)
        return self._withinDeadline(d.addBoth(lambda outcome: (
            loginOver(), outcome)[1]))

    def logIn(self, principal=None, clientInfo=None, throwaway=False):
        """
        L{open} without shares, eviction or deadline, for the warm pool's
        spares: the server's, awaited by nobody (L{WarmSessions}).
        """
        handle = newHandle()
        d = self._pool.open(name=handle[:8], user=userOf(principal))

        def opened(gem):
            session = WorkSession(handle, gem, principal,
                                  self._clock.seconds(), throwaway,
                                  self.onCommit)
            prepared = self._prepared(session)
            # A session its preparation refused (no commit lock, say) is
            # never served: its GemStone session goes back.
            prepared.addErrback(lambda failure: self._pool.close(gem).addBoth(
                lambda _: failure))
            return prepared.addCallback(lambda _: register(session))

        def register(session):
            self._metrics.logins.labels("ok").inc()
            self._sessions[handle] = session
            self.shares.registered(session)
            self.log.info("session {handle} opened for {client}",
                          handle=session.label,
                          client=clipped(describeClient(clientInfo)))
            return session

        return d.addCallback(opened).addErrback(self._loginFailed)

    def _prepared(self, session):
        """
        Prepare a new (or replacement) GemStone session before it serves:
        for a throwaway session, the stone's commit lock (L{lockCommits}),
        so that nothing its calls do is kept, not even a commit the user's
        own code sends; then the daemon's preparation (whose own lock,
        --read-only's, has the last word on the reason given).
        """
        if not session.throwaway:
            return maybeDeferred(self.prepare, session)
        return lockCommits(session).addCallback(
            lambda _: self.prepare(session))

    def openClient(self, protocolVersion, clientInfo, clientCapabilities=None,
                   principal=None):
        """
        Open a 2025 client's session: a work session (L{open}) and the
        client's protocol state beside it.

        @return: a L{Deferred} firing with the registered L{ClientSession}.
        @raise gsmcpd.gci.pool.SessionLimitReached: as L{open}.
        """
        def registered(work):
            client = ClientSession(work, protocolVersion, clientInfo,
                                   clientCapabilities, self._clock.seconds)
            self._clients[work.handle] = client
            return client

        return self.open(principal, clientInfo).addCallback(registered)

    def _withinDeadline(self, opening):
        """
        What a client waits on for C{opening}: it, or L{LoginNotAnswered}
        once C{loginDeadline} passes.  The login is not abandoned: its slot
        stays taken until it really ends (so the cap holds and no slot
        leaks), and a session it opens for nobody is closed at once.
        """
        if self.loginDeadline is None:
            return opening
        answer = Deferred()

        def late():
            if not answer.called:
                self.log.warn("the stone has not answered a login for "
                              "{deadline:g}s; its client is told so",
                              deadline=self.loginDeadline)
                answer.errback(LoginNotAnswered(self.loginDeadline))

        timer = self._clock.callLater(self.loginDeadline, late)

        def ended(outcome):
            if timer.active():
                timer.cancel()
            if not answer.called:
                (answer.errback if isinstance(outcome, Failure)
                 else answer.callback)(outcome)
            elif isinstance(outcome, WorkSession):
                return self.close(outcome.handle, "its login answered after "
                                  "its client stopped waiting",
                                  code="abandoned")
            return None

        opening.addBoth(ended)
        return answer

    def _loginFailed(self, failure):
        """
        Count and log a login that failed (the client is told less: the
        log keeps the GemStone error's reason).
        """
        self._metrics.logins.labels("failed").inc()
        if failure.check(GciError):
            self.log.error("GemStone login failed: {error} ({reason})",
                           error=failure.value, reason=failure.value.reason)
        elif failure.check(ToolError):
            # A step of the daemon's own: minting the user's one-time
            # password, or preparing the session (its gem's name, the
            # commit lock of a throwaway or --read-only session).
            self.log.error("GemStone login failed: the daemon could not "
                           "mint the user's one-time password or prepare "
                           "the new session: {error}",
                           error=failure.value.message)
        return failure

    def get(self, handle):
        """The live work session C{handle} names, or L{None}."""
        return self._sessions.get(handle)

    def client(self, handle):
        """The live 2025 client session C{handle} names, or L{None}."""
        return self._clients.get(handle)

    def clients(self):
        """The live 2025 client sessions."""
        return list(self._clients.values())

    def touch(self, session):
        """
        The client did something: it is active, and any verdict pending on
        a lost stream is retracted.
        """
        session.liveness.lastActivity = self._clock.seconds()
        self._retract(session)

    def _retract(self, session):
        timer = self._graceTimers.pop(session.handle, None)
        if timer is not None:
            timer.cancel()

    def openStream(self, client, makeStream):
        """
        Give C{client} a new event stream.  A client reopens its stream on
        its own, so this retracts a stream-loss verdict but is not activity.

        @param makeStream: called with the stream's generation and what to
            call when its client loses it; answers the stream.
        """
        self._retract(client)
        return client.attachStream(
            lambda generation: makeStream(
                generation, lambda stream: self._streamLost(client, stream)))

    def _streamLost(self, client, stream):
        # A superseded stream, or one of a session already closed, is no
        # longer what keeps its session: losing it decides nothing.
        if (self._clients.get(client.handle) is not client
                or client.stream is not stream):
            return
        client.stream = None
        self.log.info("session {handle}: its client {how} the event stream",
                      handle=client.label,
                      how="stopped reading" if stream.endedBy == "slow"
                      else "closed")
        if self.streamLossGrace == 0:
            self._graceOver(client)
        else:
            self._graceTimers[client.handle] = self._clock.callLater(
                self.streamLossGrace, self._graceOver, client)

    def _graceOver(self, client):
        self._graceTimers.pop(client.handle, None)
        if client.stream is None and not client.work.busy:
            self.close(client.handle, f"its client closed its event stream "
                       f"and did not come back within "
                       f"{self.streamLossGrace:g}s", code="stream_lost")

    def close(self, handle, reason, code="other"):
        """
        Unmap the session and log its GemStone session out.  The client is
        told nothing: its next request gets 404.

        @param reason: a sentence, for the log.
        @param code: the same as a short word, for the metrics' label (one
            of L{gsmcpd.observe.metrics.SESSION_ENDINGS}).
        """
        session = self._sessions.get(handle)
        if session is None:
            return succeed(None)
        # Counted first: an unknown code raises before anything changed.
        self._metrics.sessionClosed(code)
        del self._sessions[handle]
        client = self._clients.pop(handle, None)
        self._retract(session)
        self.log.info("session {handle} closed: {reason}",
                      handle=session.label, reason=reason, code=code)
        if client is not None and client.stream is not None:
            client.stream.end()
        for observer in self.onClose:
            observer(session)
        busy = session.busy
        closing = self._pool.close(session.gem)
        # Its identity's share holds it until its login is given back.
        closing.addBoth(
            lambda result: (self.shares.closed(session), result)[1])
        if busy and not any(run.ending
                            for run in session.calls.running.values()):
            # Its logout queues behind what runs: break that, and stop its
            # gem if it takes no break, so the login comes back.  A call
            # already being ended is left to its own escalation (which ends
            # in L{replaceGem}): two breaks at once crash libgcits.
            stopBreaking = breakUntilOut(
                session.gem, self._clock,
                lambda: self._stopAbandoned(session))
            closing.addBoth(lambda result: (stopBreaking(), result)[1])
        return shielded(closing)

    def _stopAbandoned(self, session):
        stoneSession = session.view.stoneSession
        if self.stopGem is not None and stoneSession is not None:
            maybeDeferred(self.stopGem, stoneSession).addErrback(
                lambda f: self.log.failure("stopping an abandoned gem", f))

    def replaceGem(self, session, reason):
        """
        Give C{session} a fresh GemStone session in place of one that had to
        be abandoned (a call that took no break); a session closed since
        only has its gem stopped.

        @return: a L{Deferred} firing when the new one is logged in and
            prepared; if either fails the session is closed, since a gem
            its preparation refused (no commit lock, say) is never served.
        """
        old = session.gem
        closed = self._sessions.get(session.handle) is not session
        self.log.warn("session {handle}: {doing} its GemStone session: "
                      "{reason}", handle=session.label, reason=reason,
                      doing="closed, stopping" if closed else "replacing")
        self._stopAbandoned(session)
        if closed:
            # Closed while its call was being ended: nobody would log a
            # replacement out, and the stopped gem's logout can run.
            return succeed(None)
        d = self._pool.replace(old, name=session.handle[:8],
                               user=userOf(session.principal))

        def replaced(gem):
            session.gemReplaced(gem)
            return self._prepared(session).addErrback(
                failed, "could not be prepared")

        def failed(failure, why):
            self.log.failure("session {handle}: its replacement GemStone "
                             "session {why}", failure, handle=session.label,
                             why=why)
            return self.close(session.handle, f"its replacement GemStone "
                              f"session {why}", code="replacement_failed")

        def done(result):
            session.calls.replacing = None
            waiting.callback(None)
            return result

        waiting = Deferred()
        session.calls.replacing = waiting
        d.addCallbacks(replaced, failed,
                       errbackArgs=("could not be logged in",)).addBoth(done)
        return d

    def closeAll(self, reason, code="other"):
        """
        Close every session; fires when every GemStone session is out.
        """
        closing = [self.close(handle, reason, code)
                   for handle in list(self._sessions)]
        return DeferredList(closing + [self._pool.closeAll()],
                            consumeErrors=True)

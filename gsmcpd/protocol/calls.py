"""
The one path a GemStone-backed request takes, whatever carried it.

A L{CallRunner} owns such a request from start to end: its deadline, its
cancellation, the race between its answer, its cancellation and the
abandonment of its GemStone session, the death of the gem, and what the
client is told when the server ended it.  A transport only gates, parses,
hands the message over (with an L{ICallSink} when it answers as a stream)
and renders what comes back.
"""

from twisted.internet.defer import DeferredList, FirstError, inlineCallbacks
from twisted.logger import Logger

from gsmcpd.observe.metrics import UNOBSERVED
from gsmcpd.protocol.jsonrpc import SERVER_ERROR, JsonRpcError
from gsmcpd.sessions.breaks import RunningCall
from gsmcpd.tools.templates.outcomes import GemGone


class SessionGoneError(JsonRpcError):
    """
    The session's gem died; the session is closed as this is sent.
    """

    def __init__(self, gone):
        super().__init__(
            SERVER_ERROR,
            f"The GemStone session ended (GemStone error {gone.number}); "
            "this MCP session is closed. Initialize a new session.",
            {"kind": "sessionGone", "number": gone.number})


class CallRunner:
    """
    Answers requests for a L{gsmcpd.protocol.dispatch.Dispatcher}, running
    the GemStone-backed ones as L{RunningCall}s.

    @ivar requestTimeout: the per-request deadline in seconds, or L{None}.
    """

    log = Logger()

    def __init__(self, dispatcher, registry, clock, pending,
                 requestTimeout=None, metrics=UNOBSERVED):
        self.dispatcher = dispatcher
        self._metrics = metrics
        self._registry = registry
        self._clock = clock
        self._pending = pending
        self.requestTimeout = requestTimeout

    def handle(self, session, message, sink=None):
        """
        Answer one request or notification on C{session}.

        @param sink: the call's own stream (an L{ICallSink}), when the
            transport answers this request as one.
        @return: a L{Deferred} firing with the response, or with L{None}
            when there is none to send (a notification, or a request the
            client cancelled).
        """
        if message.kind == "notification":
            if message.method == "notifications/cancelled":
                self.cancel(session, message.params)
            return self.dispatcher.handle(session, message)
        if message.method not in self.dispatcher.gemstoneMethods:
            # Answered from memory: nothing to end, nothing to stream.
            return self.dispatcher.handle(session, message)
        return self._run(session, message, sink)

    def cancel(self, session, params):
        """
        The client cancelled a request: end it if it is still running.
        """
        run = session.calls.running.get(params.get("requestId"))
        if run is not None:
            self.log.info("session {handle}: the client cancelled request "
                          "{id!r}: {reason}", handle=session.handle,
                          id=run.requestId, reason=params.get("reason"))
            run.end("cancelled")

    @inlineCallbacks
    def _run(self, session, message, sink):
        name = message.params.get("name")
        known = isinstance(name, str) and self.dispatcher.tools.get(name)
        timer = self._metrics.callStarted(name if known else message.method,
                                          self._clock)
        run = RunningCall(session, message.id, self._registry, self._clock,
                          sink, self._pending)
        session.calls.running[message.id] = run
        if self.requestTimeout is not None:
            run.setDeadline(self.requestTimeout)
        answered = self.dispatcher.handle(session, message, run)

        def callOver(result):
            run.finished()
            return result

        answered.addBoth(callOver)
        try:
            response, _ = yield DeferredList(
                [answered, run.abandoned, run.cancelled],
                fireOnOneCallback=True, fireOnOneErrback=True,
                consumeErrors=True)
        except FirstError as e:
            failure = e.subFailure
            failure.trap(GemGone)
            response = yield self._sessionGone(session, message,
                                               failure.value)
        finally:
            session.calls.running.pop(message.id, None)
        if run.why == "cancelled":
            timer.finished(None, run.step)
            return None
        ended = run.endedMessage()
        if ended is not None:
            response = JsonRpcError(
                SERVER_ERROR, ended, {"kind": run.why, "step": run.step}
            ).asResponse(message.id)
        timer.finished(response, run.step)
        return response

    @inlineCallbacks
    def _sessionGone(self, session, message, gone):
        self.log.error(
            "session {handle}: its gem died ({error}; reason: {reason})",
            handle=session.handle, error=gone, reason=gone.reason)
        yield self._registry.close(session.handle, "its gem died")
        return SessionGoneError(gone).asResponse(message.id)

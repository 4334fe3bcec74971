"""
How long a session lives: the idle deadline, the liveness probe, the
streamless timeout, the absolute cap.

A session is a GemStone login holding a transaction view, so ending it
throws its uncommitted work away, and a stone has few logins to spare.  The
problem is telling a client that has gone from one that is merely quiet:
a session with an open stream is probed with a ping before it is reaped; a
session that never opened a stream is released soon after its last request;
a session whose client hangs up its stream gets a short grace to come back
(L{gsmcpd.sessions.clients.ClientSessions}); a 2026-07-28 session behind
a handle, which has no stream to tell, idles out sooner than a 2025 one
with a stream, so a client that never closes its handles does not hold the
stone's logins for half an hour each.  A session with a call in
flight is never reaped as idle, and a maintenance pass that runs wildly
late (the host was suspended) forgives rather than reaping everyone at once.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attr
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from gsmcpd.sessions.interfaces import (
    ClientAnsweredError,
    ClientDidNotAnswer,
    IClientRequests,
)

if TYPE_CHECKING:
    # The registry's parts hold each session's Liveness, defined here.
    from gsmcpd.sessions.client import ClientSession
    from gsmcpd.sessions.registry import SessionRegistry
    from gsmcpd.sessions.work import WorkSession

MAINTENANCE_INTERVAL = 10.0
"""Seconds between passes; mechanism, not policy."""
SUSPEND_LATENESS = 60.0
"""A pass this much later than scheduled means the host was suspended."""


class PolicyError(ValueError):
    """
    The lifetime settings cannot work together; the message names them.
    """


@attr.s(frozen=True, auto_attribs=True)
class LifetimePolicy:
    """
    The lifetime settings, in seconds; L{None} turns one off.

    @ivar idleTimeout: a session with a stream is reaped this long after its
        last request (unless a probe found it gone sooner).
    @ivar probeAfter: a session with a stream idle this long is sent a ping;
        no answer on its current stream releases it early.
    @ivar streamlessIdleTimeout: a session that has no stream is reaped
        this long after its last request.
    @ivar streamLossGrace: a session whose client hung up its stream is
        released this long after, unless the client comes back.
    @ivar maxLifetime: an absolute cap on a session's life.
    @ivar handleIdleTimeout: a session behind a 2026-07-28 handle is reaped
        this long after its last request.
    """

    idleTimeout: float | None = 1800.0
    probeAfter: float | None = 1500.0
    streamlessIdleTimeout: float = 60.0
    streamLossGrace: float = 10.0
    maxLifetime: float | None = None
    handleIdleTimeout: float | None = 300.0

    def validate(self, nameOf: Callable[[str], str] = lambda field: field
                 ) -> "LifetimePolicy":
        """
        @param nameOf: how the user knows a field of this policy (an
            option, say); the message names the fields that way.
        @raise PolicyError: naming the settings at odds.
        """
        for name in ("idleTimeout", "probeAfter", "maxLifetime",
                     "handleIdleTimeout"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise PolicyError(f"{nameOf(name)} must be positive or none")
        if self.streamlessIdleTimeout <= 0:
            raise PolicyError(f"{nameOf('streamlessIdleTimeout')} must be "
                              "positive: it is the floor for clients that "
                              "open no stream")
        if self.streamLossGrace < 0:
            raise PolicyError(f"{nameOf('streamLossGrace')} cannot be "
                              "negative")
        if self.idleTimeout is None and self.probeAfter is None:
            raise PolicyError(
                f"with {nameOf('idleTimeout')} none, {nameOf('probeAfter')}"
                " is what ends a session whose client has gone; it cannot "
                "be none too")
        if self.idleTimeout is not None:
            if self.probeAfter is not None and \
                    self.probeAfter >= self.idleTimeout:
                raise PolicyError(
                    f"{nameOf('probeAfter')} ({self.probeAfter:g}s) must be "
                    f"less than {nameOf('idleTimeout')} "
                    f"({self.idleTimeout:g}s), or the probe never runs")
            if self.streamlessIdleTimeout > self.idleTimeout:
                raise PolicyError(
                    f"{nameOf('streamlessIdleTimeout')} cannot exceed "
                    f"{nameOf('idleTimeout')}")
        return self


@attr.s(auto_attribs=True)
class Liveness:
    """
    What the lifetime policy knows of one session.

    @ivar createdAt: when it opened; C{lastActivity}: its last request.
    @ivar answeredProbeAt: when the client last answered a ping; it proves
        the client live without counting as activity.
    @ivar probeGeneration: the stream generation an unanswered ping went
        down, or L{None}.
    """

    createdAt: float
    lastActivity: float
    answeredProbeAt: float
    probeGeneration: int | None = None


class Reaper:
    """
    The maintenance pass: probes idle sessions and releases gone ones.

    @ivar interval: seconds between two passes.
    """

    log = Logger()

    def __init__(self, registry: "SessionRegistry", pending: IClientRequests,
                 policy: LifetimePolicy, clock: IReactorTime,
                 interval: float = MAINTENANCE_INTERVAL) -> None:
        self._registry = registry
        self._pending = pending
        self._policy = policy
        self._clock = clock
        self.interval = interval
        self._lastPass: float | None = None

    def maintain(self) -> None:
        """
        One pass over every session; the daemon runs one each L{interval}.
        """
        now = self._clock.seconds()
        late = 0.0 if self._lastPass is None \
            else now - self._lastPass - self.interval
        self._lastPass = now
        if late > SUSPEND_LATENESS:
            self.log.warn("maintenance ran {late:.0f}s late (host suspended?)"
                          "; forgiving every session that much idle time",
                          late=late)
            for session in self._registry.work:
                liveness = session.liveness
                liveness.lastActivity = min(now, liveness.lastActivity + late)
            return
        for session in self._registry.work:
            if session.busy:
                continue
            verdict = self._verdict(session, self._registry.clients.get(
                session.handle), now)
            if verdict is not None:
                code, reason = verdict
                self._registry.close(session.handle, reason, code=code)

    def _verdict(self, session: "WorkSession", client: "ClientSession | None",
                 now: float) -> tuple[str, str] | None:
        """
        C{(code, reason)} to close C{session} (a work session, worked in by
        the 2025 C{client} or, for L{None}, behind a handle) for, or
        L{None}.
        """
        policy = self._policy
        idle = now - session.liveness.lastActivity
        if policy.maxLifetime is not None and \
                now - session.liveness.createdAt >= policy.maxLifetime:
            return "lifetime", (f"it reached the {policy.maxLifetime:g}s "
                                "lifetime cap")
        if client is not None and client.stream is None:
            if idle >= policy.streamlessIdleTimeout:
                return "idle_streamless", (
                    f"idle {idle:.0f}s with no event stream (limit "
                    f"{policy.streamlessIdleTimeout:g}s)")
            return None
        if client is None and policy.handleIdleTimeout is not None:
            if idle >= policy.handleIdleTimeout:
                return "idle_handle", (
                    f"idle {idle:.0f}s behind its handle (limit "
                    f"{policy.handleIdleTimeout:g}s)")
            return None
        if policy.idleTimeout is not None and idle >= policy.idleTimeout:
            return "idle", f"idle {idle:.0f}s (limit {policy.idleTimeout:g}s)"
        liveness = session.liveness
        quiet = now - max(liveness.lastActivity, liveness.answeredProbeAt)
        if policy.probeAfter is not None and quiet >= policy.probeAfter and \
                liveness.probeGeneration is None and \
                client is not None and client.stream is not None:
            self._probe(client)
        return None

    def _probe(self, client: "ClientSession") -> None:
        session = client.work
        generation = client.stream.generation
        session.liveness.probeGeneration = generation

        def answered(result: Any) -> None:
            session.liveness.probeGeneration = None
            session.liveness.answeredProbeAt = self._clock.seconds()

        def unanswered(failure: Failure) -> None:
            failure.trap(ClientDidNotAnswer)
            session.liveness.probeGeneration = None
            stream = client.stream
            if self._registry.work.get(session.handle) is not session:
                return
            if stream is not None and stream.generation == generation:
                self._registry.close(
                    session.handle, "it did not answer a ping on its "
                    "current event stream", code="ping_unanswered")
            else:
                self.log.info("session {handle}: a ping lost to a stream "
                              "handover was discarded; the next pass sends "
                              "another", handle=session.label)

        d = self._pending.send(client, "ping")
        d.addErrback(lambda f: f.trap(ClientAnsweredError))
        d.addCallbacks(answered, unanswered)

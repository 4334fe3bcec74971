"""
A call as observed: its audit line, its metrics and its outcome, started
(L{CallStart}, by the sessions layer once the call is admitted) and ended
(by its record, L{ObservedCall}) by one object each, so the call path
reaches this layer once from each.
"""

from typing import Any

import attr
from twisted.internet.interfaces import IReactorTime

from gsmcpd.observe.audit import AuditLog, CallFacts
from gsmcpd.observe.calloutcome import CallOutcome, resultOutcome
from gsmcpd.observe.metrics import UNOBSERVED, CallTimer, Metrics


@attr.s(auto_attribs=True)
class CallObserver:
    """
    Where calls are counted (C{metrics}) and audited (C{audit}: an
    L{AuditLog}, or L{None}: no trail).
    """

    clock: IReactorTime
    audit: AuditLog | None = None
    metrics: Metrics = UNOBSERVED

    def started(self, name: str, facts: CallFacts | None,
                namedByResult: bool = False) -> "ObservedCall":
        """
        A call of C{name} about to run, its audit line (of C{facts}, when
        given) written first, then counted in.

        @param namedByResult: its work session is the one its result
            names (C{open_session}): its end's line names that one.
        @raise AuditUnavailable: the line cannot be written: the call
            must not run.
        """
        callId = None
        if facts is not None and self.audit is not None:
            callId = self.audit.callStarted(facts)
        return ObservedCall(self, facts, callId, namedByResult,
                            self.metrics.callStarted(name, self.clock),
                            self.clock.seconds())

    def refused(self, kind: str, facts: CallFacts | None,
                callId: str | None = None) -> None:
        """
        Count a call refused as C{kind}, and audit it when C{facts}
        describe it (C{callId}: its C{callStarted} line's, if written).
        """
        self.metrics.refused(kind)
        if self.audit is not None and facts is not None:
            self.audit.refusal(facts, kind, callId)


@attr.s(frozen=True, slots=True, auto_attribs=True)
class CallStart:
    """
    How a call is observed from its start (L{CallObserver.started}'s
    arguments): started where it runs, once admitted.
    """

    observer: CallObserver
    name: str
    facts: CallFacts | None
    namedByResult: bool = False

    def started(self) -> "ObservedCall":
        """
        The call about to run, its audit line written first.

        @raise AuditUnavailable: the line cannot be written: the call
            must not run.
        """
        return self.observer.started(self.name, self.facts,
                                     self.namedByResult)


@attr.s(slots=True, auto_attribs=True)
class ObservedCall:
    """
    One call from its start to its end, timed from its start.
    """

    observer: CallObserver
    facts: CallFacts | None
    callId: str | None
    namedByResult: bool
    timer: CallTimer
    started: float

    def ended(self, outcome: CallOutcome | dict[str, Any], tool: str | None,
              step: str | None = None) -> str | None:
        """
        The call came to C{outcome} (typed, or its result, read here),
        escalated as far as C{step}: timed, counted and audited.

        @return: how a commit a call of C{tool} made ended (see
            L{CallOutcome.commit}), or L{None}.
        """
        ended = outcome if isinstance(outcome, CallOutcome) \
            else resultOutcome(outcome)
        self.timer.finished(ended, step)
        observer, facts = self.observer, self.facts
        if facts is not None and observer.audit is not None:
            if self.namedByResult:
                handle = ended.handle
                facts = attr.evolve(
                    facts, handle=handle,
                    session=None if handle is None else handle[:8])
            observer.audit.callEnded(facts, self.callId, ended,
                                     observer.clock.seconds() - self.started)
        return ended.commit(tool)

    def refused(self, kind: str) -> None:
        """
        The call was refused after all, as C{kind}: counted and audited as
        a refusal, not as a call.
        """
        self.timer.refused()
        self.observer.refused(kind, self.facts, self.callId)

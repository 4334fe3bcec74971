"""
The audit trail: one structured event per tool call and per commit, saying
who did what as which GemStone user, and how it ended.

It records sizes and digests, never contents: a source text's SHA-256
proves what ran without putting other people's code (or a secret pasted
into it) in the log.  With C{--audit-log} the events go to a file of their
own (L{gsmcpd.observe.auditfile}), one JSON object a line, each carrying
the digest of the line before it (L{gsmcpd.observe.auditchain}), reopened
on C{SIGHUP} so logrotate can move it away (no C{copytruncate}, which loses
the lines written meanwhile).

A call is recorded before it runs (C{callStarted}) and when it ends
(C{toolCall}, under the same C{callId}); a call refused before it ran has
only the second.  Its C{outcome} is one of a closed set: C{ok},
C{error:<kind>}, C{protocolError:<code>}, C{noAnswer}, C{refused:<kind>}
(L{REFUSALS}) and C{askedForInput}.  The audit takes plain values
(L{CallFacts}), never a higher layer's objects; a refusal raised anywhere
on the call path is a L{CallRefused}, which the call path records.
"""

import hashlib
import json
import secrets
from collections.abc import Iterable
from typing import Any, Protocol, overload

import attr
from twisted.logger import Logger

from gsmcpd.observe.auditfile import AUDIT_NAMESPACE, AuditFile
from gsmcpd.observe.calloutcome import (
    CANCELLED,
    CHANGED_META,
    COMMIT_TOOL,
    DISCARDED_META,
    ERROR,
    TOOL_ERROR,
    CallOutcome,
)
from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.metrics import REFUSALS

SOURCE_ARGUMENTS: dict[str | None, str] = {
    "execute_code": "code", "profile_code": "code", "inspect": "expression",
    "compile_method": "source", "debug_run": "code", "debug_eval": "code",
    "breakpoint_set": "condition"}
"""Tools whose argument is Smalltalk source, digested in the event (a
breakpoint's condition runs in the stone at each break)."""
CODE_ARGUMENTS = ("code", "expression")
"""The arguments of the tools that run code, whose change a call's
result must show (they run reads as often as writes)."""
COMPILE_PREFIX = "compile_"


def argumentSizes(arguments: dict[str, Any]) -> dict[str, int]:
    """
    Each argument's size as JSON text, in bytes.
    """
    return {name: len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
            for name, value in sorted(arguments.items())}


def sourceDigest(tool: str | None, arguments: dict[str, Any]) -> str | None:
    """
    The SHA-256 of the Smalltalk source a call carries, or L{None}.
    """
    name = SOURCE_ARGUMENTS.get(tool)
    source: object
    if name is None and tool and tool.startswith(COMPILE_PREFIX):
        source = json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    else:
        source = arguments.get(name) if name else None
    if not isinstance(source, str):
        return None
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def outcome(ended: CallOutcome) -> str:
    """
    How a C{tools/call} that ran ended: C{ok}, C{error:} and the tool
    error's kind, C{protocolError:} and the code, C{askedForInput}, or
    C{noAnswer}.  The metrics count the same L{CallOutcome}, so the two
    never disagree on what a call did; a protocol error is named by its
    code, which an operator looks up.
    """
    if ended.ended == CANCELLED:
        return "noAnswer"
    if ended.ended == ERROR:
        return f"protocolError:{ended.code}"
    if ended.ended == TOOL_ERROR:
        return f"error:{ended.kind}"
    return ended.ended


@overload
def changeOf(tool: str, arguments: dict[str, Any]) -> str: ...


@overload
def changeOf(tool: None, arguments: dict[str, Any]) -> str | None: ...


def changeOf(tool: str | None, arguments: dict[str, Any]) -> str | None:
    """
    What a successful mutating call changed, as a commit event names it.
    """
    if SOURCE_ARGUMENTS.get(tool) in CODE_ARGUMENTS:
        return f"{tool} {(sourceDigest(tool, arguments) or '')[:12]}"
    className = arguments.get("className")
    if "selector" in arguments or tool == "compile_method":
        side = " class" if arguments.get("meta") else ""
        selector = arguments.get("selector") or _selectorOf(
            arguments.get("source", ""))
        return f"{className}{side}>>{selector}"
    if className:
        return f"{tool} {className}"
    if "dictionaryName" in arguments:
        return f"{tool} {arguments['dictionaryName']}"
    return tool


def _selectorOf(source: str) -> str:
    """
    The selector a method source's first line declares (for the log only).
    """
    words = source.strip().splitlines()[0].split() if source.strip() else []
    keywords = [word for word in words if word.endswith(":")]
    return "".join(keywords) if keywords else (words[0] if words else "?")


def _names(names: Iterable[str]) -> frozenset[str]:
    # A typed converter: mypy's attrs plugin cannot tell frozenset's type.
    return frozenset(names)


class _Handled(Protocol):
    """A session, as the audit knows it: by its handle."""

    @property
    def handle(self) -> str | None: ...


class AuditUnavailable(Exception):
    """
    The audit trail cannot be written, so a call may not run.

    @ivar reason: why, for an operator: the file and the OS error (a
        client is better told only that the server cannot audit calls).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class CallRefused(Exception):
    """
    A tool call refused before it ran, whichever layer refused it: the
    call path records it as C{refused:<kind>}, counts it, and answers the
    client C{error}.

    @ivar kind: why, one of L{REFUSALS} (the operator's to read).
    @ivar error: what the client is told: a JSON-RPC error to raise, or a
        tool's error (a C{ToolError}) to answer as the call's result.
    """

    def __init__(self, kind: str, error: Exception) -> None:
        """
        @raise ValueError: for a C{kind} not in L{REFUSALS}.
        """
        if kind not in REFUSALS:
            raise ValueError(f"{kind!r} is not one of REFUSALS")
        super().__init__(kind)
        self.kind = kind
        self.error = error


@attr.s(frozen=True, kw_only=True)
class CallFacts:
    """
    One tool call as the audit records it, in plain values.

    @ivar tool: the C{name} the call gave, whatever it is.
    @ivar arguments: the C{arguments} it gave, whatever they are: a
        malformed call is recorded as such rather than lost.
    @ivar identity: the token's subject, or L{None} without
        authentication.
    @ivar user: the GemStone user it runs as; L{None}: the audit's
        C{defaultUser}.
    @ivar session: the label logs name its session by (a prefix of the
        handle, too short to use it), or L{None} for none.
    @ivar handle: its session's handle, which keys the changes a commit
        event names (never written), or L{None}.
    @ivar requestId: the JSON-RPC id of its request.
    """

    tool: Any = attr.ib()
    arguments: Any = attr.ib()
    identity: str | None = attr.ib(default=None)
    user: str | None = attr.ib(default=None)
    session: str | None = attr.ib(default=None)
    handle: str | None = attr.ib(default=None)
    requestId: Any = attr.ib(default=None)


@attr.s
class AuditLog:
    """
    Audit events, with each session's changes since its last commit or
    abort so a commit event can name them.

    @ivar observer: where events go (an C{ILogObserver}), or L{None} for
        the daemon's log.
    @ivar defaultUser: the GemStone user of a session no token named.
    @ivar mutatingTools: names of tools that change the repository.
    @ivar trail: the observer when it is an L{AuditFile}, which may fail
        and be reopened; else L{None}.
    """

    observer: Any = attr.ib(default=None)
    defaultUser: str | None = attr.ib(default=None)
    mutatingTools: frozenset[str] = attr.ib(default=frozenset(),
                                            converter=_names)
    _changes: dict[Any, list[str]] = attr.ib(init=False, factory=dict)

    def __attrs_post_init__(self) -> None:
        self.log = Logger(namespace=AUDIT_NAMESPACE, observer=self.observer)
        self.trail = self.observer if isinstance(
            self.observer, AuditFile) else None

    @classmethod
    def toFile(cls, path: str, defaultUser: str | None = None,
               mutatingTools: Iterable[str] = (),
               key: bytes | None = None) -> "AuditLog":
        """
        An audit log appending JSON lines to C{path}; L{close} it.

        @param key: the chain's HMAC key (bytes), or L{None} for SHA-256.
        @raise OSError: C{path} cannot be opened (a file that opens but
            cannot be written makes a failed audit instead).
        """
        return cls(AuditFile(path, key=key), defaultUser, mutatingTools)

    @property
    def failure(self) -> str | None:
        """
        Why the trail cannot be written, or L{None} while it can.
        """
        return None if self.trail is None else self.trail.failure

    @property
    def unwritten(self) -> int:
        """
        The events the trail's file did not get (see L{AuditFile}).
        """
        return 0 if self.trail is None else self.trail.unwritten

    def close(self) -> None:
        if self.trail is not None:
            self.trail.close()

    def reopen(self) -> None:
        """
        Open the trail's file again by its path (see L{AuditFile.reopen}).
        """
        if self.trail is not None:
            self.trail.reopen()

    def admit(self) -> None:
        """
        Ask before a call runs whether it may.

        @raise AuditUnavailable: not while the trail cannot be written.
        """
        if self.failure is not None:
            raise AuditUnavailable(self.failure)

    def callStarted(self, facts: CallFacts) -> str:
        """
        Record that the call C{facts} describes is about to run: the line
        is written before it runs, or it does not run.

        @return: the call's C{callId}, for L{callEnded}.
        @raise AuditUnavailable: the line cannot be written.
        """
        self.admit()
        callId = secrets.token_hex(8)
        self.log.info("call {callId}: {tool} by {identity} as "
                      "{gemstoneUser} in session {session} starts",
                      event="callStarted", callId=callId,
                      **self._described(facts))
        self.admit()
        return callId

    def callEnded(self, facts: CallFacts, callId: str | None,
                  answer: CallOutcome, seconds: float) -> None:
        """
        Record how a call that ran ended and, for C{commit}, the stone's
        answer.  It never raises: a call that ran is answered as it ended,
        whether or not its line could be written.

        @param callId: what L{callStarted} answered, or L{None} for a call
            that was not recorded before it ran.
        @param answer: what the call came to.
        @param seconds: how long it took.
        """
        ended = outcome(answer)
        self.log.info(
            "tool call {tool} by {identity} as {gemstoneUser} in session "
            "{session}: {outcome} in {seconds:.3f}s", event="toolCall",
            callId=callId, outcome=ended, seconds=round(seconds, 6),
            **self._described(facts))
        handle, (tool, arguments) = facts.handle, _plain(facts)
        # Code that committed (its result says the stone did, or may have)
        # commits like a commit, itself among the changes it names.
        byCode = None if tool == COMMIT_TOOL else answer.commit(tool)
        # Code that aborted left nothing of what its session held.
        aborted = answer.meta.get(DISCARDED_META) is True or (
            tool == "abort" and ended == "ok")
        # Only a change makes an entry: a handle no change was made in (a
        # read's, a stand-in's) would otherwise be kept until its session,
        # which may never have existed, is forgotten.  A tool that runs
        # code changed something only when it ran some and its result says
        # it left a change (or committed).
        changed: str | bool | None
        if SOURCE_ARGUMENTS.get(tool) in CODE_ARGUMENTS:
            changed = sourceDigest(tool, arguments) is not None and (
                byCode or answer.meta.get(CHANGED_META) is True)
        else:
            changed = ended == "ok" or byCode
        if changed and (tool in self.mutatingTools) and not aborted:
            self._changes.setdefault(handle, []).append(
                changeOf(tool, arguments))
            if not byCode:
                return
        pending = self._changes.get(handle, [])
        if aborted:
            pending.clear()
        elif byCode or (tool == COMMIT_TOOL and ended != "askedForInput"):
            result = byCode or answer.commitOutcome() or ended
            self.log.info(
                "commit by {identity} as {gemstoneUser} in session "
                "{session}: {result}", event="commit", callId=callId,
                identity=facts.identity, gemstoneUser=self._user(facts),
                session=facts.session, result=result, changes=list(pending))
            if result == "committed":
                pending.clear()

    def refusal(self, facts: CallFacts, kind: str,
                callId: str | None = None) -> None:
        """
        Record a call refused before it ran, as C{refused:<kind>}.

        @param kind: one of L{REFUSALS}.
        @param callId: what L{callStarted} answered, for a call refused
            after its line was written; else L{None}.
        @raise ValueError: for any other word, so the outcomes stay a
            closed set.
        """
        if kind not in REFUSALS:
            raise ValueError(f"{kind!r} is not one of REFUSALS")
        self.log.info(
            "tool call {tool} by {identity} as {gemstoneUser} in session "
            "{session}: {outcome}", event="toolCall", callId=callId,
            outcome=f"refused:{kind}", seconds=None,
            **self._described(facts))

    def forget(self, session: _Handled) -> None:
        """
        The session ended: its uncommitted changes are gone with it.
        """
        self._changes.pop(session.handle, None)

    def _user(self, facts: CallFacts) -> str | None:
        return self.defaultUser if facts.user is None else facts.user

    def _described(self, facts: CallFacts) -> dict[str, Any]:
        """
        The fields every line about a call carries: who, where, which tool,
        the arguments' sizes and the source's digest, never their text.
        """
        tool, arguments = _plain(facts)
        requestId = facts.requestId
        return dict(
            identity=facts.identity, gemstoneUser=self._user(facts),
            session=facts.session,
            tool=None if tool is None else clipped(tool),
            argumentBytes=argumentSizes(arguments),
            sourceSha256=sourceDigest(tool, arguments),
            requestId=requestId if requestId is None or isinstance(
                requestId, int) else clipped(requestId))


def _plain(facts: CallFacts) -> tuple[str | None, dict[str, Any]]:
    """
    The call's tool name and arguments, or L{None} and none where the
    client sent something else.
    """
    return (facts.tool if isinstance(facts.tool, str) else None,
            facts.arguments if isinstance(facts.arguments, dict) else {})

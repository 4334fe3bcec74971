"""
The audit trail: one structured event per tool call and per commit, saying
who did what as which GemStone user, and how it ended.

It records sizes and digests, never contents: a source text's SHA-256
proves what ran without putting other people's code (or a secret pasted
into it) in the log.  With C{--audit-log} the events go to a file of their
own, one JSON object a line, each carrying the digest of the line before it
(L{gsmcpd.observe.auditchain}), reopened on C{SIGHUP} so logrotate can move
it away (no C{copytruncate}, which loses the lines written meanwhile).
"""

import hashlib
import json

import attr
from twisted.logger import Logger

from gsmcpd.observe.auditchain import ChainedJsonObserver, chainStart

from gsmcpd.observe.clipping import clipped
from gsmcpd.observe.metrics import classify, commitOutcome

AUDIT_NAMESPACE = "gsmcpd.audit"
SOURCE_ARGUMENTS = {"execute_code": "code", "compile_method": "source"}
"""Tools whose argument is Smalltalk source, digested in the event."""
COMPILE_PREFIX = "compile_"


def argumentSizes(arguments):
    """
    Each argument's size as JSON text, in bytes.
    """
    return {name: len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
            for name, value in sorted(arguments.items())}


def sourceDigest(tool, arguments):
    """
    The SHA-256 of the Smalltalk source a call carries, or L{None}.
    """
    name = SOURCE_ARGUMENTS.get(tool)
    if name is None and tool and tool.startswith(COMPILE_PREFIX):
        source = json.dumps(arguments, sort_keys=True, ensure_ascii=False)
    else:
        source = arguments.get(name) if name else None
    if not isinstance(source, str):
        return None
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def outcome(response):
    """
    How a C{tools/call} ended, from its JSON-RPC response: C{ok}, C{error:}
    and the tool error's kind, or C{protocolError:} and the code.  The
    metrics classify it, so the two never disagree on what a call did; a
    protocol error is named by its code, which an operator looks up.
    """
    if response is None:
        return "noAnswer"
    ended, kind = classify(response)
    if ended == "error":
        return f"protocolError:{response['error'].get('code')}"
    if ended == "toolError":
        return f"error:{kind}"
    return "ok"


def changeOf(tool, arguments):
    """
    What a successful mutating call changed, as a commit event names it.
    """
    if tool == "execute_code":
        return f"execute_code {sourceDigest(tool, arguments)[:12]}"
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


def _selectorOf(source):
    """
    The selector a method source's first line declares (for the log only).
    """
    words = source.strip().splitlines()[0].split() if source.strip() else []
    keywords = [word for word in words if word.endswith(":")]
    return "".join(keywords) if keywords else (words[0] if words else "?")


@attr.s
class AuditLog:
    """
    Audit events, with each session's changes since its last commit or
    abort so a commit event can name them.

    @ivar observer: where events go (an C{ILogObserver}), or L{None} for
        the daemon's log.
    @ivar defaultUser: the GemStone user of a session no token named.
    @ivar mutatingTools: names of tools that change the repository.
    @ivar file: the file L{toFile} opened, or L{None}.
    @ivar path: that file's path, to L{reopen} it.
    """

    observer = attr.ib(default=None)
    defaultUser = attr.ib(default=None)
    mutatingTools = attr.ib(default=frozenset(), converter=frozenset)
    file = attr.ib(default=None)
    path = attr.ib(default=None)
    _changes = attr.ib(init=False, factory=dict)

    def __attrs_post_init__(self):
        self.log = Logger(namespace=AUDIT_NAMESPACE, observer=self.observer)

    @classmethod
    def toFile(cls, path, defaultUser=None, mutatingTools=()):
        """
        An audit log appending JSON lines to C{path}; L{close} it.
        """
        file = open(path, "a", encoding="utf-8")
        return cls(ChainedJsonObserver(file, chainStart(path)),
                   defaultUser, mutatingTools, file, path)

    def close(self):
        if self.file is not None:
            self.file.close()

    def reopen(self):
        """
        Open the file again by its path (after logrotate moved it): events
        go to the new file from now on.  A file that cannot be opened is
        logged and the old one kept.
        """
        if self.path is None:
            return
        file = None
        try:
            file = open(self.path, "a", encoding="utf-8")
            previous = chainStart(self.path, self.observer.previous)
        except OSError as e:
            if file is not None:
                file.close()
            Logger().error("audit log {path!r} cannot be reopened, still "
                           "writing to the one open: {why}", path=self.path,
                           why=e.strerror)
            return
        self.file.close()
        self.file = file
        self.observer = ChainedJsonObserver(file, previous)
        self.log = Logger(namespace=AUDIT_NAMESPACE, observer=self.observer)

    def toolCall(self, *, session, tool, arguments, response, seconds):
        """
        Record one C{tools/call} and, for C{commit}, its result.

        @param session: the MCP session it ran in: its C{handle}, the
            C{label} logs name it by (a prefix of the handle, too short to
            use it), and its C{principal} (the token's subject and
            GemStone user) or L{None} without authentication.
        @param tool: the C{name} the call gave, whatever it is.
        @param arguments: the C{arguments} it gave, whatever they are: a
            malformed call is recorded as such rather than lost.
        @param response: the JSON-RPC response, or L{None} (cancelled).
        """
        if not isinstance(tool, str):
            tool = None
        if not isinstance(arguments, dict):
            arguments = {}
        principal = session.principal
        identity = None if principal is None else principal.identity
        user = self.defaultUser if principal is None else principal.user
        handle = session.handle
        ended = outcome(response)
        self.log.info(
            "tool call {tool} by {identity} as {gemstoneUser} in session "
            "{session}: {outcome} in {seconds:.3f}s", event="toolCall",
            identity=identity, gemstoneUser=user,
            session=session.label,
            tool=None if tool is None else clipped(tool),
            argumentBytes=argumentSizes(arguments),
            sourceSha256=sourceDigest(tool, arguments), outcome=ended,
            seconds=round(seconds, 6))
        # Only a change makes an entry: a handle no change was made in (a
        # read's, a stand-in's) would otherwise be kept until its session,
        # which may never have existed, is forgotten.
        if ended == "ok" and (tool in self.mutatingTools):
            self._changes.setdefault(handle, []).append(
                changeOf(tool, arguments))
            return
        pending = self._changes.get(handle, [])
        if tool == "abort" and ended == "ok":
            pending.clear()
        elif tool == "commit":
            committed = commitOutcome(
                response, classify(response)[0]) == "committed"
            self.log.info(
                "commit by {identity} as {gemstoneUser} in session "
                "{session}: {result}", event="commit", identity=identity,
                gemstoneUser=user, session=session.label,
                result="committed" if committed else ended,
                changes=list(pending))
            if committed:
                pending.clear()

    def forget(self, session):
        """
        The session ended: its uncommitted changes are gone with it.
        """
        self._changes.pop(session.handle, None)

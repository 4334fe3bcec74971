"""
In-memory test doubles for the GemStone seam (L{IGemSession},
L{ISessionPool}): synchronous, no threads, no stone.

They answer each rendered template the way the envelope would, from a table
of canned results keyed by the template's tag, so HTTP and dispatch tests
run entirely in memory.
"""

import json
import re

from twisted.internet.defer import Deferred, fail, succeed
from zope.interface import implementer

from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IDebugSession, ISessionPool
from gsmcpd.gci.pool import ServerStopping, SessionLimitReached
from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.sessions.interfaces import ICallSink
from gsmcpd.smalltalk import Assignment, Literal, parse_expression

DEFAULT_RESULTS = {
    "execute_code": lambda args: {"total": 1, "text": "7"},
    "disable_commits": lambda args: {"armed": True},
    "status": lambda args: {"user": "DataCurator", "session": 5,
                            "stone": "gs64stone", "version": "3.7.4",
                            "inTransaction": True},
    "commit": lambda args: {"committed": True, "conflicts": {}},
    "abort": lambda args: {"aborted": True},
    "refresh": lambda args: {"refreshed": True, "writesCanCommit": True},
    "lacking_capabilities": lambda args: [],
}


_LEADING_COMMENT = re.compile(r'\s*"((?:[^"]|"")*)"')


def templateTag(source):
    """
    The name the comment a rendered template starts with gives it.
    """
    comment = _LEADING_COMMENT.match(source).group(1).replace('""', '"')
    return comment.removeprefix("gsmcp:")


def templateCall(source):
    """
    The tag and the literal arguments of a rendered template.
    """
    tag = templateTag(source)
    arguments = {}
    for statement in parse_expression(source).statements:
        if isinstance(statement, Assignment) and \
                isinstance(statement.value, Literal) and \
                not statement.name.startswith("gsmcp"):
            arguments[statement.name] = statement.value.value
    return tag, arguments


@implementer(IDebugSession)
class FakeGem:
    """
    A GemStone session answering from L{results}.

    @ivar results: tag to a function of the arguments answering the body's
        value, or raising L{GciError} (a GCI-level failure) or L{SmalltalkRaised}.
    @ivar needsCommit: what every answer reports.
    @ivar moves: tag to whether the stone committed while its body ran
        (the envelope then reports the view moved, and how).
    @ivar calls: C{(tag, arguments)} of every call, in order.
    @ivar held: when true, calls wait in L{pending} until released.
    @ivar ignores: which breaks (C{"soft"}, C{"hard"}) a held call ignores;
        a break it takes fails it with GemStone's break error.
    """

    def __init__(self, name="fake"):
        self.name = name
        self.results = dict(DEFAULT_RESULTS)
        self.needsCommit = False
        self.moves = {}
        self.calls = []
        self.held = False
        self.pending = []
        self.interrupts = []
        self.ignores = set()
        self.loggedOut = False
        self.abandoned = None
        self.gone = None

    @property
    def busy(self):
        return bool(self.pending)

    def execute(self, source, maxBytes):
        tag, arguments = templateCall(source)
        self.calls.append((tag, arguments))
        if self.held:
            d = Deferred()
            self.pending.append((d, tag, arguments))
            return d
        return self._answer(tag, arguments)

    def release(self):
        d, tag, arguments = self.pending.pop(0)
        self._answer(tag, arguments).chainDeferred(d)

    def _answer(self, tag, arguments):
        try:
            value = self.results[tag](arguments)
        except GciError as e:
            if e.fatal:
                self.gone = e
            return fail(e)
        except SmalltalkRaised as e:
            document = {"error": e.error, "needsCommit": self.needsCommit}
        else:
            document = {"result": value, "needsCommit": self.needsCommit}
        if tag in self.moves:
            document.update(viewMoved=True, committed=self.moves[tag])
        return succeed(json.dumps(document).encode("utf-8"))

    paused = frozenset()
    """A fake gem's runs never stop: the debugger's tests run on the
    simulated stone (tests/toolharness.py)."""

    def executeDebug(self, source, process=None):
        self.calls.append(("debug", source))
        return succeed(None)

    def continueDebug(self, process):
        self.calls.append(("continue", process))
        return succeed(None)

    def clearDebug(self, process):
        self.calls.append(("clear", process))
        return succeed(None)

    def interrupt(self, hard):
        self.interrupts.append(hard)

    def callState(self, d):
        deferreds = [p[0] for p in self.pending]
        if d not in deferreds:
            return None
        return "running" if deferreds.index(d) == 0 else "queued"

    def endCall(self, d, hard):
        position = [p[0] for p in self.pending].index(d) \
            if d in [p[0] for p in self.pending] else None
        if position is None:
            return None
        if position > 0:
            del self.pending[position]
            d.errback(CallWithdrawn())
            return "withdrawn"
        self.interrupts.append(hard)
        if ("hard" if hard else "soft") not in self.ignores:
            self.pending.pop(0)
            d.errback(GciError(6004 if hard else 6003, "a Break occurred"))
        return "broken"

    def abandon(self, reason):
        self.abandoned = reason
        self.pending.pop(0)
        while self.pending:
            d, _, _ = self.pending.pop(0)
            d.errback(CallWithdrawn(reason))

    def logout(self):
        self.loggedOut = True
        return succeed(None)


class SmalltalkRaised(Exception):
    """
    Raised by a fake result: the envelope caught a Smalltalk Error.
    """

    def __init__(self, number, className, message):
        self.error = {"number": number, "class": className,
                      "message": message}


@implementer(ISessionPool)
class FakePool:
    """
    A pool of L{FakeGem}s with a cap.

    @ivar opened: every gem opened, in order.
    @ivar loginError: when set, logins fail with it.
    @ivar configure: called with each new gem, to set its results.
    @ivar replacementDelay: when set, a replacement login waits for it.
    @ivar loginDelay: when set, a login waits for it.
    """

    def __init__(self, maxSessions=3):
        self.maxSessions = maxSessions
        self.opened = []
        self.open_ = set()
        self.loginError = None
        self.configure = lambda gem: None
        self.replacementDelay = None
        self.loginDelay = None
        self.stopping = False

    def refuseNew(self):
        self.stopping = True

    def open(self, name, user=None):
        if self.stopping:
            raise ServerStopping()
        if self.maxSessions is not None and \
                len(self.open_) >= self.maxSessions:
            raise SessionLimitReached(self.maxSessions)
        if self.loginError is not None:
            return fail(self.loginError)
        gem = FakeGem(name)
        gem.user = user
        self.configure(gem)
        self.opened.append(gem)
        self.open_.add(gem)
        if self.loginDelay is not None:
            return self.loginDelay.addCallback(lambda _: gem)
        return succeed(gem)

    def close(self, gem):
        self.open_.discard(gem)
        return gem.logout()

    def replace(self, gem, name, user=None):
        gem.abandon("replaced")
        self.open_.discard(gem)
        fresh = FakeGem(name)
        fresh.user = user
        self.configure(fresh)
        self.opened.append(fresh)
        self.open_.add(fresh)
        if self.replacementDelay is not None:
            return self.replacementDelay.addCallback(lambda _: fresh)
        return succeed(fresh)

    def closeAll(self):
        for gem in list(self.open_):
            self.close(gem)
        return succeed(None)


@implementer(ICallSink)
class RecordingSink:
    """
    A call's stream that keeps what it is sent: messages, and progress
    reports as C{(progress, total, message)}.
    """

    def __init__(self, wantsProgress=True):
        self.wantsProgress = wantsProgress
        self.messages = []
        self.reports = []
        self.closedEarly = False

    def post(self, message):
        self.messages.append(message)

    def report(self, progress, total=None, message=None):
        self.reports.append((progress, total, message))

    def closeEarly(self):
        self.closedEarly = True

"""
Tools end to end through the real dispatcher and the simulated stone,
which runs each template's Smalltalk, in memory: no threads, no sockets, no C.

The in-process gem hands each rendered template straight to the
simulator's gem (as the simulator process would after the C library and
the socket), so a tool test runs the daemon's tool code, its template and
the model's answer in one synchronous call.
"""

import jsonschema
from twisted.internet.defer import fail, inlineCallbacks, succeed
from zope.interface import implementer

from gsmcpd.gci.debugcalls import Stopped
from gsmcpd.gci.errors import GciError
from gsmcpd.gci.interfaces import IDebugSession
from gsmcpd.protocol.jsonrpc import Message
from gsmcpd.testing.simulator import debugging
from gsmcpd.testing.simulator import errors as simulated
from gsmcpd.testing.simulator.gem import answer
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.base import MCP_DEFAULT_HINTS, strictSchema
from gsmcpd.tools.catalog import ToolCatalog
from tests.builders import clientSession, legacyEra
from tests.fakes import FakePool, RecordingSink


@implementer(IDebugSession)
class InProcessGem:
    """
    A GemStone session of an in-process simulated stone.
    """

    busy = False
    gone = None

    def __init__(self, stone, name="test"):
        self.name = name
        self.stone = stone
        self.session = stone.login("DataCurator", "swordfish")
        self.sources = []
        self._paused = set()

    def execute(self, source, maxBytes):
        self.sources.append(source)
        try:
            return succeed(answer(self.session, source)[:maxBytes])
        except simulated.GciError as e:
            return fail(GciError(e.number, e.message, e.fatal))

    def executeDebug(self, source, process=None):
        if process is not None:
            self._paused.discard(process)
        return self._debug(debugging.execute, source)

    def continueDebug(self, process):
        self._paused.discard(process)
        return self._debug(debugging.continueWith, process)

    def clearDebug(self, process):
        self._paused.discard(process)
        try:
            debugging.clearStack(self.session, process)
        except simulated.GciError as e:
            return fail(GciError(e.number, e.message, e.fatal))
        return succeed(None)

    @property
    def paused(self):
        return frozenset(self._paused)

    def _debug(self, call, argument):
        """
        A debugged run's call as the session's thread makes it: the run's
        own thread parks where it stops, and this one waits until it does.
        """
        try:
            call(self.session, argument)
        except simulated.GciError as e:
            if e.context in (None, 0, 1, 0x14) or e.fatal:
                return fail(GciError(e.number, e.message, e.fatal))
            self._paused.add(e.context)
            return succeed(Stopped(e.context, e.number, e.message))
        return succeed(None)

    def interrupt(self, hard):
        pass

    def callState(self, d):
        # Every call answers before execute returns: none is in flight.
        return None

    def endCall(self, d, hard):
        return None

    def abandon(self, reason):
        self.logout()

    def logout(self):
        self._paused.clear()  # the gem ends them at logout
        self.stone.logout(self.session)
        return succeed(None)


class StonePool(FakePool):
    """Gems of one in-process simulated stone."""

    def __init__(self, maxSessions=3):
        super().__init__(maxSessions)
        self.stone = Stone()

    def open(self, name, user=None):
        gem = InProcessGem(self.stone, name)
        self.opened.append(gem)
        self.open_.add(gem)
        return succeed(gem)

    def close(self, gem):
        self.open_.discard(gem)
        return gem.logout()


strictForm = strictSchema


def effectiveHints(annotations):
    """
    The hints a client reads from C{annotations}: MCP's default for one
    left out, and for a read-only tool only C{readOnlyHint} and
    C{openWorldHint}, the others being meaningless for it.
    """
    hints = {**MCP_DEFAULT_HINTS, **annotations}
    if hints["readOnlyHint"]:
        del hints["destructiveHint"], hints["idempotentHint"]
    return hints


def checkStructured(tool, structured):
    """
    Fail unless C{structured} meets the strict form of C{tool}'s output
    schema: a property missing, extra or of the wrong type.
    """
    jsonschema.Draft202012Validator(strictForm(tool.outputSchema)).validate(
        structured)


def checkedResult(tools, name, result):
    """
    C{result} (a C{tools/call} result, or a JSON-RPC error), after checking
    a successful one's structured content against its tool's output schema.
    """
    tool = tools.get(name)
    if "content" in result and not result.get("isError") and \
            tool is not None and tool.outputSchema is not None:
        checkStructured(tool, result.get("structuredContent"))
    return result


class ToolHarness:
    """
    One client of a simulated stone, calling tools through the 2025 era's
    adapter.

    @ivar stone: shared by every client made with L{newClient}.
    """

    def __init__(self, toolsetNames, stone=None, tools=None):
        self.stone = Stone() if stone is None else stone
        self.tools = tools or ToolCatalog.named(toolsetNames)
        self.toolsetNames = toolsetNames
        self.gem = InProcessGem(self.stone)
        self.client = clientSession(self.gem, "0" * 32, "2025-11-25")
        self.session = self.client.work
        self.legacy = legacyEra(self.tools)
        self._ids = iter(range(1, 10**6))

    def newClient(self):
        """
        Another client (its own session and view) of the same stone.
        """
        return ToolHarness(self.toolsetNames, self.stone, self.tools)

    @inlineCallbacks
    def call(self, name, /, **arguments):
        """
        C{tools/call}; the result, or the JSON-RPC error.  A successful
        result is checked against the strict form of the tool's output
        schema first.
        """
        message = Message("request", "tools/call", next(self._ids),
                          {"name": name, "arguments": arguments}, {})
        response = yield self.legacy.answer(self.client, message)
        return checkedResult(self.tools, name,
                             response.get("result", response.get("error")))

    @inlineCallbacks
    def callWithProgress(self, name, /, **arguments):
        """
        C{tools/call} from a client that asked for progress: the result and
        the C{(progress, total, message)} reports, in order.
        """
        sink = RecordingSink()
        message = Message("request", "tools/call", next(self._ids),
                          {"name": name, "arguments": arguments,
                           "_meta": {"progressToken": 0}}, {})
        response = yield self.legacy.answer(self.client, message,
                                            openStream=lambda client: sink)
        return (checkedResult(self.tools, name,
                              response.get("result", response.get("error"))),
                sink.reports)

    @inlineCallbacks
    def text(self, name, /, **arguments):
        """
        The first text block of a successful call (fails the test if the
        call was an error).
        """
        result = yield self.call(name, **arguments)
        if result.get("isError"):
            raise AssertionError(f"{name} failed: {result['content']}")
        return result["content"][0]["text"]

    @inlineCallbacks
    def error(self, name, /, **arguments):
        """
        C{(kind, message)} of a call that must fail as a tool error.
        """
        result = yield self.call(name, **arguments)
        if not result.get("isError"):
            raise AssertionError(f"{name} succeeded: {result['content']}")
        return (result["structuredContent"]["error"]["kind"],
                result["content"][0]["text"])

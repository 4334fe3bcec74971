"""
The scripted conversation of L{tests.structure.test_answercorpus}: requests of both
eras, good and bad (L{tests.corpusexchange}), and the fake gems' answers
they meet.
"""

import functools
import json
from collections.abc import Callable
from typing import Any

import attr
from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import IReactorTime

from gsmcpd.gci.errors import GciError
from tests.corpusexchange import (
    HANDLE,
    LEGACY,
    META,
    STATE,
    TASK,
    TASK_META,
    legacy,
    modern,
    rpc,
    tool,
)
from tests.fakes import FakeGem, SmalltalkRaised, templateCall

SLOW = 30
YES = {"action": "accept", "content": {"confirm": True}}
STACK = {"frames": [
    {"method": "SmallInteger (Number) >> /", "receiverClass": "SmallInteger",
     "line": 1, "source": "1/0", "variables": [
         {"name": "aNumber", "value": "0"}]}], "omitted": 0}


class _Unanswered(dict[str, Callable[[dict[str, Any]], Any]]):
    """
    A fake gem's results: a template it was not given raises
    MessageNotUnderstood, as a stone lacking the method would.
    """

    def __missing__(self, tag: str) -> Callable[[dict[str, Any]], Any]:
        def raised(arguments: dict[str, Any]) -> Any:
            raise SmalltalkRaised(2010, "MessageNotUnderstood",
                                  f"a FakeGem does not understand #{tag}")
        return raised


def _execute(arguments: dict[str, Any]) -> dict[str, Any]:
    code = arguments.get("code")
    if code == "1/0":
        error = SmalltalkRaised(2026, "ZeroDivide",
                                "a ZeroDivide occurred (error 2026)")
        error.error["stack"] = STACK
        raise error
    if code == "1 +":
        raise SmalltalkRaised(1001, "CompileError",
                              "expected a primary expression")
    if code == "die":
        raise GciError(4100, "session terminated", fatal=True)
    return {"total": 1, "text": "7"}


ANSWERS = {
    "System commitTransaction": {
        "result": {"total": 4, "text": "true"}, "needsCommit": False,
        "viewMoved": True, "committed": True},
    "UserGlobals at: #X put: 1": {
        "result": {"total": 1, "text": "1"}, "needsCommit": True},
}
"""Envelopes for code whose answer says more than its value: a commit that
moved the view, a change left to commit."""


def configureGem(gem: FakeGem, clock: IReactorTime) -> None:
    """
    Each fake gem answers the script's templates: code that raises, code
    that does not compile, code whose gem dies, code that takes C{SLOW}
    seconds on C{clock}, the L{ANSWERS}, a class's definition.
    """
    gem.results = _Unanswered(gem.results)
    gem.results["execute_code"] = _execute
    gem.results["get_class_definition"] = lambda arguments: {
        "definition": "Object subclass: #Account", "className": "Account"}

    def execute(source: str, maxBytes: int) -> Deferred[bytes]:
        tag, arguments = _templateCall(source)
        gem.calls.append((tag, arguments))
        if arguments.get("code") in ANSWERS:
            return succeed(json.dumps(ANSWERS[arguments["code"]]).encode())
        if arguments.get("code") != "slow":
            return gem._answer(tag, arguments)
        d: Deferred[bytes] = Deferred()
        clock.callLater(SLOW, lambda: gem._answer(
            tag, arguments).chainDeferred(d))
        return d
    gem.execute = execute  # type: ignore[method-assign]  # a double's seam


@functools.cache
def _templateCall(source: str) -> tuple[str, dict[str, Any]]:
    """
    L{templateCall}, parsed once per source: the parser is most of the
    script's time.
    """
    return templateCall(source)


INITIALIZE = rpc("initialize", 1, protocolVersion=LEGACY, capabilities={},
                 clientInfo={"name": "corpus", "version": "1"})

LEGACY_EXCHANGES = [
    legacy("initialize", INITIALIZE, session=False),
    legacy("initialized", rpc("notifications/initialized", None)),
    legacy("ping", rpc("ping", 3)),
    legacy("tools/list", rpc("tools/list", 4)),
    tool("execute_code", {"code": "3 + 4"}),
    tool("execute_code raising", {"code": "1/0"}, id=5),
    tool("execute_code not compiling", {"code": "1 +"}, id=6),
    tool("execute_code without code", {}, id=7),
    tool("status", {}, id=8),
    tool("abort", {}, id=9),
    tool("no_such_tool", {}, id=10),
    legacy("execute_code with progress", rpc(
        "tools/call", 40, name="execute_code", arguments={"code": "3 + 4"},
        _meta={"progressToken": "p1"})),
    attr.evolve(tool("execute_code slow", {"code": "slow"}, id=41),
                ticks=SLOW),
    tool("commit", {}, id=42),
    legacy("tools/call without a name", rpc("tools/call", 43,
                                            arguments={})),
    legacy("GET without session", None, session=False, verb="GET",
           accept="text/event-stream"),
    legacy("GET unknown session", None, verb="GET",
           accept="text/event-stream", mcp_session_id="no-such-session"),
    tool("execute_code changing", {"code": "UserGlobals at: #X put: 1"},
         id=44),
    tool("execute_code committing", {"code": "System commitTransaction"},
         id=45),
    legacy("tools/call arguments not an object", rpc(
        "tools/call", 46, name="execute_code", arguments=[1])),
    legacy("string id", rpc("ping", "p-47")),
    legacy("cancelled", rpc("notifications/cancelled", None, requestId=99)),
    legacy("unknown notification", rpc("notifications/whatever", None)),
    legacy("resources/subscribe", rpc(
        "resources/subscribe", 48,
        uri="gemstone://class/Account/definition")),
    legacy("resources/unsubscribe", rpc(
        "resources/unsubscribe", 49,
        uri="gemstone://class/Account/definition")),
    legacy("HEAD", None, verb="HEAD"),
    legacy("OPTIONS", None, verb="OPTIONS"),
    legacy("resources/list", rpc("resources/list", 11)),
    legacy("resources/templates/list", rpc("resources/templates/list", 12)),
    legacy("resources/read", rpc("resources/read", 13,
                                 uri="gemstone://class/Account/definition")),
    legacy("resources/read unknown", rpc("resources/read", 14,
                                         uri="gemstone://nothing")),
    legacy("prompts/list", rpc("prompts/list", 15)),
    legacy("prompts/get unknown", rpc("prompts/get", 16, name="nothing")),
    legacy("completion/complete", rpc(
        "completion/complete", 17,
        ref={"type": "ref/resource",
             "uri": "gemstone://class/{className}/definition"},
        argument={"name": "className", "value": "Acc"})),
    legacy("completion/complete nothing", rpc(
        "completion/complete", 18, ref={"type": "ref/prompt", "name": "x"},
        argument={"name": "a", "value": ""})),
    legacy("logging/setLevel", rpc("logging/setLevel", 19, level="debug")),
    legacy("unknown method", rpc("no/such/method", 20)),
    legacy("params not an object", {"jsonrpc": "2.0", "id": 21,
                                    "method": "tools/list", "params": [1]}),
    legacy("malformed JSON", b'{"jsonrpc": "2.0", "id": 22,'),
    legacy("not JSON-RPC", {"id": 23, "method": "ping"}),
    legacy("batch", [rpc("ping", 24), rpc("ping", 25)]),
    legacy("empty body", b""),
    legacy("a response from the client", {"jsonrpc": "2.0", "id": 99,
                                           "result": {}}),
    legacy("missing session id", rpc("ping", 26), session=False),
    legacy("unknown session id", rpc("ping", 27),
           mcp_session_id="no-such-session"),
    legacy("bad protocol version", rpc("ping", 28),
           mcp_protocol_version="1999-01-01"),
    legacy("wrong Accept", rpc("ping", 29), accept="text/html"),
    legacy("wrong content type", rpc("ping", 30),
           content_type="text/plain"),
    legacy("foreign origin", rpc("ping", 31), origin="http://evil.example"),
    legacy("allowed origin", rpc("ping", 32), origin="http://app.example"),
    legacy("DELETE without session", None, session=False, verb="DELETE"),
    legacy("initialize twice", INITIALIZE),
    legacy("PUT", None, verb="PUT"),
    legacy("DELETE", None, verb="DELETE"),
    legacy("after DELETE", rpc("ping", 33)),
    legacy("DELETE again", None, verb="DELETE"),
    legacy("initialize 2025-06-18", dict(INITIALIZE, params=dict(
        INITIALIZE["params"], protocolVersion="2025-06-18")), session=False),
    legacy("initialize unknown version", dict(INITIALIZE, params=dict(
        INITIALIZE["params"], protocolVersion="1.0")), session=False),
    legacy("initialize without params", rpc("initialize", 34),
           session=False),
    legacy("initialize with elicitation", dict(INITIALIZE, params=dict(
        INITIALIZE["params"], capabilities={"elicitation": {}})),
        session=False),
    attr.evolve(tool("commit unconfirmed", {}, id=37), ticks=31),
    tool("open_session", {}, id=38),
    legacy("foreign host", rpc("ping", 39), host="evil.example"),
    tool("execute_code whose gem dies", {"code": "die"}, id=35),
    legacy("after the gem died", rpc("ping", 36)),
]

MODERN_EXCHANGES = [
    modern("server/discover", "server/discover", 101),
    modern("server/discover without _meta", "server/discover", 102,
           meta=None),
    modern("server/discover unsupported version", "server/discover", 103,
           meta=dict(META, **{"io.modelcontextprotocol/protocolVersion":
                              "v999.0.0"}),
           header_mcp_protocol_version="v999.0.0"),
    modern("tools/list", "tools/list", 104),
    modern("method header mismatch", "tools/list", 105,
           header_mcp_method="prompts/list"),
    modern("name header mismatch", "tools/call", 106, name="execute_code",
           arguments={"code": "1"}, header_mcp_name="other"),
    modern("method header missing", "tools/list", 107,
           header_mcp_method=None),
    modern("initialize removed", "initialize", 108),
    modern("ping removed", "ping", 109),
    modern("unknown method", "no/such/method", 110),
    modern("throwaway execute_code", "tools/call", 111, name="execute_code",
           arguments={"code": "3 + 4"}),
    modern("throwaway raising", "tools/call", 112, name="execute_code",
           arguments={"code": "1/0"}),
    modern("throwaway not compiling", "tools/call", 113,
           name="execute_code", arguments={"code": "1 +"}),
    modern("unknown tool", "tools/call", 114, name="no_such_tool",
           arguments={}),
    modern("invalid arguments", "tools/call", 115, name="execute_code",
           arguments={"code": 3}),
    modern("commit without handle", "tools/call", 116, name="commit",
           arguments={}),
    modern("open_session", "tools/call", 117, name="open_session",
           arguments={}),
    modern("handle not mirrored", "tools/call", 118, name="execute_code",
           arguments={"code": "1", "session": HANDLE}),
    modern("execute_code on the handle", "tools/call", 119,
           name="execute_code", arguments={"code": "3 + 4",
                                           "session": HANDLE},
           header_mcp_param_session=HANDLE),
    modern("raising on the handle", "tools/call", 120, name="execute_code",
           arguments={"code": "1/0", "session": HANDLE},
           header_mcp_param_session=HANDLE),
    modern("status on the handle", "tools/call", 121, name="status",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE),
    modern("commit on the handle", "tools/call", 122, name="commit",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE),
    modern("handle not a string", "tools/call", 123, name="execute_code",
           arguments={"code": "1", "session": 5}),
    modern("commit asks first", "tools/call", 140, name="commit",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE),
    modern("commit confirmed", "tools/call", 141, name="commit",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE,
           requestState=STATE, inputResponses={"confirm": YES}),
    modern("commit asks again", "tools/call", 142, name="commit",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE),
    modern("commit tampered state", "tools/call", 143, name="commit",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE,
           requestState=STATE + "x", inputResponses={"confirm": YES}),
    modern("commit declined", "tools/call", 144, name="commit",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE,
           requestState=STATE,
           inputResponses={"confirm": {"action": "decline"}}),
    modern("slow call becomes a task", "tools/call", 145, meta=TASK_META,
           name="execute_code", arguments={"code": "slow",
                                           "session": HANDLE},
           header_mcp_param_session=HANDLE),
    modern("tasks/get working", "tasks/get", 146, meta=TASK_META,
           taskId=TASK),
    modern("tasks/get completed", "tasks/get", 147, meta=TASK_META,
           wait=SLOW, taskId=TASK),
    modern("tasks/cancel completed", "tasks/cancel", 148, meta=TASK_META,
           taskId=TASK),
    modern("slow call to cancel", "tools/call", 149, meta=TASK_META,
           name="execute_code", arguments={"code": "slow",
                                           "session": HANDLE},
           header_mcp_param_session=HANDLE),
    modern("tasks/cancel working", "tasks/cancel", 150, meta=TASK_META,
           taskId=TASK),
    modern("tasks/get cancelled", "tasks/get", 151, meta=TASK_META,
           taskId=TASK),
    modern("slow call without tasks", "tools/call", 152, ticks=SLOW,
           name="execute_code", arguments={"code": "slow",
                                           "session": HANDLE},
           header_mcp_param_session=HANDLE),
    modern("changing on the handle", "tools/call", 153, name="execute_code",
           arguments={"code": "UserGlobals at: #X put: 1",
                      "session": HANDLE}, header_mcp_param_session=HANDLE),
    modern("committing on the handle", "tools/call", 154,
           name="execute_code", arguments={
               "code": "System commitTransaction", "session": HANDLE},
           header_mcp_param_session=HANDLE),
    modern("status after commit", "tools/call", 155, name="status",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE),
    modern("state for a call that asked nothing", "tools/call", 156,
           name="execute_code", arguments={"code": "1"},
           requestState="bogus", inputResponses={}),
    modern("close_session", "tools/call", 124, name="close_session",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE),
    modern("closed handle", "tools/call", 125, name="execute_code",
           arguments={"code": "1", "session": HANDLE},
           header_mcp_param_session=HANDLE),
    modern("resources/list", "resources/list", 126),
    modern("resources/templates/list", "resources/templates/list", 127),
    modern("resources/read", "resources/read", 128,
           uri="gemstone://class/Account/definition"),
    modern("prompts/list", "prompts/list", 129),
    modern("prompts/get unknown", "prompts/get", 130, name="nothing"),
    modern("completion/complete", "completion/complete", 131,
           ref={"type": "ref/resource",
                "uri": "gemstone://class/{className}/definition"},
           argument={"name": "className", "value": "Acc"}),
    modern("task-capable execute_code", "tools/call", 132,
           meta=TASK_META, name="execute_code",
           arguments={"code": "3 + 4"}),
    modern("tasks/get unknown", "tasks/get", 133, meta=TASK_META,
           taskId="no-such-task"),
    modern("tasks/get without the capability", "tasks/get", 134,
           taskId="no-such-task"),
    modern("subscriptions/listen malformed", "subscriptions/listen", 135,
           filter=5),
    modern("resources/read unknown", "resources/read", 136,
           uri="gemstone://nothing"),
    modern("resources/read a skill", "resources/read", 137,
           uri="skill://gemstone-what-a-view-is/SKILL.md"),
    modern("tools/list bad cursor", "tools/list", 138, cursor="bogus"),
    modern("version header missing", "tools/list", 139,
           header_mcp_protocol_version=None),
    modern("notification", "notifications/cancelled", 160),
    modern("open_session to lose", "tools/call", 161, name="open_session",
           arguments={}),
    modern("gem dies on the handle", "tools/call", 162, name="execute_code",
           arguments={"code": "die", "session": HANDLE},
           header_mcp_param_session=HANDLE),
    modern("handle of a dead gem", "tools/call", 163, name="status",
           arguments={"session": HANDLE}, header_mcp_param_session=HANDLE),
    modern("status without a handle", "tools/call", 165, name="status",
           arguments={}),
    modern("execute_code with progress", "tools/call", 166,
           meta=dict(META, progressToken="p2"), name="execute_code",
           arguments={"code": "3 + 4"}),
    modern("resources/read name mismatch", "resources/read", 167,
           uri="gemstone://class/Account/definition",
           header_mcp_name="gemstone://class/Other/definition"),
    modern("no id", "tools/list", None),
    modern("malformed JSON", "tools/list", 164),
]
MODERN_EXCHANGES[-1] = attr.evolve(MODERN_EXCHANGES[-1],
                                   body=b'{"jsonrpc": "2.0", "id": 1')

PATH_EXCHANGES = [
    legacy("initialize at a percent-escaped path", INITIALIZE, session=False,
           path="/%6Dcp"),
    legacy("ping at a percent-escaped path", rpc("ping", 70),
           path="/%6d%63%70"),
    legacy("ping at merged slashes", rpc("ping", 71), path="//mcp"),
    legacy("ping at an unknown path", rpc("ping", 72), path="/other"),
    legacy("ping at a trailing slash", rpc("ping", 73), path="/mcp/"),
    legacy("ping at an escaped slash", rpc("ping", 74), path="/mcp%2F"),
    legacy("ping at a non-UTF-8 path", rpc("ping", 75), path="/%FF"),
    legacy("GET at a non-UTF-8 path", None, verb="GET", path="/mcp%FF",
           accept="text/event-stream"),
    legacy("ping at a UTF-8 path", rpc("ping", 76), path="/m%C3%A9"),
    legacy("GET at the root", None, verb="GET", path="/",
           accept="text/event-stream"),
    legacy("HEAD at a percent-escaped path", None, verb="HEAD",
           path="/%6Dcp"),
    legacy("PUT at a percent-escaped path", None, verb="PUT", path="/%6Dcp"),
    legacy("PUT at an unknown path", None, verb="PUT", path="/other"),
    legacy("GET unknown session at a percent-escaped path", None,
           verb="GET", path="/%6Dcp", accept="text/event-stream",
           mcp_session_id="no-such-session"),
    legacy("DELETE at a percent-escaped path", None, verb="DELETE",
           path="/%6Dcp"),
    legacy("after DELETE at a percent-escaped path", rpc("ping", 77)),
]
"""Requests at other paths than C{/mcp}: escaped, merged, unknown, not
UTF-8."""

EXCHANGES = LEGACY_EXCHANGES + MODERN_EXCHANGES + PATH_EXCHANGES

"""
The scripted conversation of L{tests.test_answercorpus}: requests of both
eras, each naming what an earlier answer minted (a 2025 session id, a 2026
handle, a task, a request state) by a placeholder.
"""

import functools
import json
from collections.abc import Callable
from typing import Any

import attr
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime

from tests.fakes import FakeGem, SmalltalkRaised, templateCall

SESSION = "$SESSION"
HANDLE = "$HANDLE"
TASK = "$TASK"
STATE = "$STATE"
SLOW = 30
YES = {"action": "accept", "content": {"confirm": True}}
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
TASK_META = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {
    "extensions": {"io.modelcontextprotocol/tasks": {}}}})
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
         "tasks/get": "taskId", "tasks/update": "taskId",
         "tasks/cancel": "taskId"}
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
    return {"total": 1, "text": "7"}


def configureGem(gem: FakeGem, clock: IReactorTime) -> None:
    """
    Each fake gem answers the script's templates: code that raises, code
    that does not compile, code that takes C{SLOW} seconds on C{clock}, a
    class's definition.
    """
    gem.results = _Unanswered(gem.results)
    gem.results["execute_code"] = _execute
    gem.results["get_class_definition"] = lambda arguments: {
        "definition": "Object subclass: #Account", "className": "Account"}

    def execute(source: str, maxBytes: int) -> Deferred[bytes]:
        tag, arguments = _templateCall(source)
        gem.calls.append((tag, arguments))
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


@attr.s(frozen=True, auto_attribs=True)
class Exchange:
    """
    One request of the script: its headers and body may name what an
    earlier answer minted by a placeholder; C{wait} seconds pass on the
    clock before it is sent, C{ticks} seconds before its answer is awaited.
    """

    name: str
    method: str
    headers: dict[str, str]
    body: Any
    ticks: int = 0
    wait: int = 0

    def _bytes(self) -> bytes:
        if self.body is None:
            return b""
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body).encode()

    def recorded(self) -> dict[str, Any]:
        return {"method": self.method, "headers": self.headers,
                "body": self._bytes().decode()}

    def request(self, minted: dict[str, str]
                ) -> tuple[str, dict[str, list[str]], bytes]:
        def fill(text: str) -> str:
            for placeholder, value in minted.items():
                text = text.replace(placeholder, value)
            return text
        return (self.method,
                {name: [fill(value)] for name, value in self.headers.items()},
                fill(self._bytes().decode()).encode())

    def learn(self, minted: dict[str, str], headers: dict[str, list[str]],
              content: bytes) -> None:
        """
        Remember what this answer minted, for later requests to name.
        """
        if "mcp-session-id" in headers:
            minted[SESSION] = headers["mcp-session-id"][0]
        result = _result(content)
        structured = result.get("structuredContent")
        if isinstance(structured, dict) and \
                isinstance(structured.get("session"), str):
            minted[HANDLE] = structured["session"]
        for key, placeholder in (("taskId", TASK), ("requestState", STATE)):
            if isinstance(result.get(key), str):
                minted[placeholder] = result[key]


def _result(content: bytes) -> dict[str, Any]:
    text = content.decode("utf-8", "replace")
    for line in text.splitlines():
        if line.startswith("data:"):
            text = line[5:]
    try:
        document = json.loads(text)
    except ValueError:
        return {}
    result = document.get("result") if isinstance(document, dict) else None
    return result if isinstance(result, dict) else {}


def rpc(method: str, id: int | None = 1, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id is not None:
        message["id"] = id
    return message


def legacy(name: str, body: Any, session: bool = True, verb: str = "POST",
           **headers: str | None) -> Exchange:
    """
    A 2025 client's request, in its session unless told.
    """
    sent: dict[str, str | None] = {"content-type": "application/json",
                                   "accept": ACCEPT}
    if session:
        sent["mcp-session-id"] = SESSION
        sent["mcp-protocol-version"] = LEGACY
    sent.update({k.replace("_", "-"): v for k, v in headers.items()})
    return Exchange(name, verb, {k: v for k, v in sent.items()
                                 if v is not None}, body)


def modern(label: str, method: str, id: int = 1, /, *,
           meta: dict[str, Any] | None = META, ticks: int = 0, wait: int = 0,
           **params: Any) -> Exchange:
    """
    A 2026 client's request, with the headers it mirrors; a parameter
    named C{header_x} sets (or, as L{None}, drops) header x.
    """
    headers = {k[7:].replace("_", "-"): params.pop(k)
               for k in list(params) if k.startswith("header_")}
    body = rpc(method, id, _meta=meta, **params) if meta is not None \
        else rpc(method, id, **params)
    sent: dict[str, str | None] = {
        "content-type": "application/json", "accept": ACCEPT,
        "mcp-protocol-version": MODERN, "mcp-method": method}
    named = params.get(NAMED.get(method, ""))
    if isinstance(named, str):
        sent["mcp-name"] = named
    sent.update(headers)
    return Exchange(label, "POST", {k: v for k, v in sent.items()
                                    if v is not None}, body, ticks, wait)


def tool(name: str, arguments: dict[str, Any], id: int = 2) -> Exchange:
    """
    A 2025 client's call of the tool C{name} names first.
    """
    return legacy(name, rpc("tools/call", id, name=name.split(" ")[0],
                            arguments=arguments))


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
    modern("malformed JSON", "tools/list", 136),
]
MODERN_EXCHANGES[-1] = attr.evolve(MODERN_EXCHANGES[-1],
                                   body=b'{"jsonrpc": "2.0", "id": 1')

EXCHANGES = LEGACY_EXCHANGES + MODERN_EXCHANGES

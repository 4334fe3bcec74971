"""
The exchanges of the answer corpus's script (L{tests.corpusscript}): a
request each, whose headers and body name what an earlier answer minted (a
2025 session id, a 2026 handle, a task, a request state) by a placeholder.
"""

import json
from typing import Any

import attr

SESSION = "$SESSION"
HANDLE = "$HANDLE"
TASK = "$TASK"
STATE = "$STATE"
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
PATH = "/mcp"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
TASK_META = dict(META, **{"io.modelcontextprotocol/clientCapabilities": {
    "extensions": {"io.modelcontextprotocol/tasks": {}}}})
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
         "tasks/get": "taskId", "tasks/update": "taskId",
         "tasks/cancel": "taskId"}


@attr.s(frozen=True, auto_attribs=True)
class Exchange:
    """
    One request of the script: its headers and body may name what an
    earlier answer minted by a placeholder; C{wait} seconds pass on the
    clock before it is sent, C{ticks} seconds before its answer is awaited;
    it is sent to C{path}, percent-escapes and all.
    """

    name: str
    method: str
    headers: dict[str, str]
    body: Any
    ticks: int = 0
    wait: int = 0
    path: str = PATH

    def _bytes(self) -> bytes:
        if self.body is None:
            return b""
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body).encode()

    def recorded(self) -> dict[str, Any]:
        shown = {"method": self.method, "headers": self.headers,
                 "body": self._bytes().decode()}
        if self.path != PATH:
            shown["path"] = self.path
        return shown

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


def rpc(method: str, id: int | str | None = 1, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if id is not None:
        message["id"] = id
    return message


def legacy(name: str, body: Any, session: bool = True, verb: str = "POST",
           path: str = PATH, **headers: str | None) -> Exchange:
    """
    A 2025 client's request, in its session unless told, to C{path}.
    """
    sent: dict[str, str | None] = {"content-type": "application/json",
                                   "accept": ACCEPT}
    if session:
        sent["mcp-session-id"] = SESSION
        sent["mcp-protocol-version"] = LEGACY
    sent.update({k.replace("_", "-"): v for k, v in headers.items()})
    return Exchange(name, verb, {k: v for k, v in sent.items()
                                 if v is not None}, body, path=path)


def modern(label: str, method: str, id: int | None = 1, /, *,
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

"""
The official Python SDK client (mcp 2.x) redoing work as an agent would with
the session's list of changes, in either protocol era.  Prints one JSON line
of what it saw and exits 1 if a step went wrong (the line's "problems" says
which).

Usage: python python_sdk_changes_flow.py URL auto|legacy
  (2026: open_session first) read Account>>withdraw: -> compile a fix ->
  compile a new Account>>isEmpty -> list_changes names both, the fix with
  the previous source -> status counts 2 -> revert_method withdraw: -> its
  old source is back -> revert_method isEmpty -> it is gone -> code that
  changes a global -> list_changes says it may be incomplete -> abort ->
  nothing listed -> (2026) list_changes without the handle is refused

The daemon serves the default toolsets and changes.
"""

import asyncio
import json
import sys

from mcp import Client

FIXED_WITHDRAW = ("withdraw: amount\n\tamount > balance ifTrue: [^self].\n"
                  "\tbalance := balance - amount")
WITHDRAW = {"className": "Account", "selector": "withdraw:"}
IS_EMPTY = {"className": "Account", "selector": "isEmpty"}


def text(result):
    return " ".join(block.text for block in result.content
                    if block.type == "text")


async def flow(url, mode):
    seen = {"mode": mode, "steps": {}, "problems": []}

    def expect(step, result, refused=False, says=None):
        said = text(result)
        seen["steps"][step] = said[:160]
        if result.is_error != refused or (says and says not in said):
            seen["problems"].append(f"{step}: {said[:300]}")
        return result.structured_content or {}

    def check(step, condition, found):
        if not condition:
            seen["problems"].append(f"{step}: {found}")

    async with Client(url, mode=mode) as client:
        seen["protocolVersion"] = client.protocol_version
        session = {}
        if mode == "auto":
            opened = await client.call_tool("open_session", {})
            session = {"session": opened.structured_content["session"]}

        async def call(step, tool, arguments, **expected):
            return expect(step, await client.call_tool(
                tool, {**arguments, **session}), **expected)

        await call("read", "get_method_source", WITHDRAW,
                   says="Overdrafts are not checked")
        await call("fix", "compile_method",
                   {"className": "Account", "source": FIXED_WITHDRAW})
        await call("new", "compile_method",
                   {"className": "Account",
                    "source": "isEmpty\n\t^balance = 0"})
        listed = await call("list", "list_changes", {},
                            says="compiled Account>>withdraw:")
        changes = listed.get("changes", [])
        check("list", [each["subject"] for each in changes] ==
              ["Account>>withdraw:", "Account>>isEmpty"] and
              "Overdrafts" in (changes[0]["previous"] or "") and
              changes[1]["previous"] is None and not listed["notListed"],
              listed)
        await call("status", "status", {}, says="changes listed: 2")
        await call("revert", "revert_method", WITHDRAW,
                   says="previous source is back")
        await call("reread", "get_method_source", WITHDRAW,
                   says="Overdrafts are not checked")
        removed = await call("revertNew", "revert_method", IS_EMPTY,
                             says="removed")
        check("revertNew", removed.get("removed") is True, removed)
        await call("gone", "get_method_source", IS_EMPTY, refused=True)
        await call("code", "execute_code",
                   {"code": "UserGlobals at: #ChangesFlow put: 1"})
        listed = await call("incomplete", "list_changes", {},
                            says="not listed: what execute_code changed")
        check("incomplete", bool(listed.get("notListed")), listed)
        await call("abort", "abort", {})
        await call("empty", "list_changes", {},
                   says="0 changes since your last commit or abort.")
        if session:
            expect("noHandle", await client.call_tool("list_changes", {}),
                   refused=True)
            expect("close", await client.call_tool("close_session", session))
    return seen


async def main(url, mode):
    seen = await flow(url, mode)
    print(json.dumps(seen))
    sys.exit(1 if seen["problems"] else 0)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))

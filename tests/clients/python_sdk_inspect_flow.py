"""
The official Python SDK client (mcp 2.x) debugging a failing test and
profiling code as an agent would, in either protocol era.  Prints one JSON
line of what it saw and exits 1 if a step went wrong (the line's "problems"
says which).

Usage: python python_sdk_inspect_flow.py URL auto|legacy
  (2026: open_session first) run AccountTest>>testWithdrawTooMuch (fails)
  -> inspect an overdrawn Account -> its balance by id and path -> read
  Account>>withdraw: -> compile the fix -> the test passes -> abort -> the
  id answered before the abort is refused -> profile a loop of deposits
  (Account>>deposit: among the methods sampled) -> profile code that fails
  (its stack) -> profile again (nothing was left sampling) -> (2026) an id
  answered without the handle is refused in the handle's session, and a
  profile without it runs in a throwaway session

The daemon must serve the debugging, testing, browsing, mutation and session
toolsets.
"""

import asyncio
import json
import sys

from mcp import Client

FIXED_WITHDRAW = ("withdraw: amount\n\tamount > balance ifTrue: [^self].\n"
                  "\tbalance := balance - amount")
OVERDRAWN = ("| account | account := Account owner: 'ann'. account deposit: 10. "
             "account withdraw: 25. account")
TEST = {"className": "AccountTest", "selector": "testWithdrawTooMuch"}
PROFILE = {"code": "| account | account := Account owner: 'ann'. "
                   "1 to: 3000 do: [:i | account deposit: 1]. account balance",
           "intervalNs": 10_000, "limit": 5}


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
        return result.structured_content

    def sampled(step, found):
        methods = [each["method"] for each in (found or {}).get("byTotal", ())]
        if not found or found["printString"] != "3000" or \
                "Account>>deposit:" not in methods:
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

        failed = await call("fails", "run_test_method", TEST)
        if failed and failed["status"] != "failed":
            seen["problems"].append(f"fails: {failed['status']}")
        account = await call("inspect", "inspect", {"expression": OVERDRAWN},
                             says="balance: -15")
        await call("balance", "inspect", {"object": account["object"],
                                          "path": ["balance"]}, says="-15")
        await call("read", "get_method_source",
                   {"className": "Account", "selector": "withdraw:"})
        await call("fix", "compile_method",
                   {"className": "Account", "source": FIXED_WITHDRAW})
        passed = await call("passes", "run_test_method", TEST)
        if passed and passed["status"] != "passed":
            seen["problems"].append(f"passes: {passed['status']}")
        await call("abort", "abort", {})
        await call("stale", "inspect", {"object": account["object"]},
                   refused=True, says="not answered in this session's present view")
        sampled("profile", await call("profile", "profile_code", PROFILE,
                                      says="By self samples"))
        failed = await call("profileFails", "profile_code",
                            {"code": "Account new withdraw: nil"},
                            refused=True, says="Account>>withdraw:")
        if failed and "stack" not in failed.get("error", {}):
            seen["problems"].append(f"profileFails: no stack in {failed}")
        sampled("profileAgain", await call("profileAgain", "profile_code", PROFILE))
        if session:
            borrowed = expect("noHandle", await client.call_tool(
                "inspect", {"expression": OVERDRAWN}))
            await call("foreign", "inspect", {"object": borrowed["object"]},
                       refused=True, says="valid only in the session (handle)")
            sampled("profileNoHandle", expect("profileNoHandle", await client.call_tool(
                "profile_code", PROFILE)))
            expect("close", await client.call_tool("close_session", session))
    return seen


async def main(url, mode):
    seen = await flow(url, mode)
    print(json.dumps(seen))
    sys.exit(1 if seen["problems"] else 0)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))

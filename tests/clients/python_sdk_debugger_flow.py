"""
The official Python SDK client (mcp 2.x) driving the debugger as an agent
would, in either protocol era.  Prints one JSON line of what it saw and
exits 1 if a step went wrong (the line's "problems" says which).

Usage: python python_sdk_debugger_flow.py URL auto|legacy
  (2026: open_session first) a breakpoint in AccountTest>>testWithdrawTooMuch
  at the withdrawal -> debug_run the test: paused there -> step into
  Account>>withdraw:, the faulty line -> read amount and balance, set amount
  -> read and compile the fixed withdraw: -> restart its frame -> continue:
  the test finishes (passes) -> breakpoint_clear -> the test runs again
  without pausing

The daemon must serve the debugger, browsing, mutation and session toolsets.
"""

import asyncio
import json
import sys

from mcp import Client

FIXED_WITHDRAW = ("withdraw: amount\n\tamount > balance ifTrue: [^self].\n"
                  "\tbalance := balance - amount")
TEST = {"className": "AccountTest", "selector": "testWithdrawTooMuch"}


def text(result):
    return " ".join(block.text for block in result.content
                    if block.type == "text")


async def flow(url, mode):
    seen = {"mode": mode, "steps": {}, "problems": []}

    def expect(step, result, says=None, **holds):
        said = text(result)
        seen["steps"][step] = said[:160]
        found = result.structured_content or {}
        wrong = {key: found.get(key) for key, value in holds.items()
                 if found.get(key) != value}
        if result.is_error or (says and says not in said) or wrong:
            seen["problems"].append(f"{step}: {wrong} {said[:300]}")
        return found

    async with Client(url, mode=mode) as client:
        seen["protocolVersion"] = client.protocol_version
        session = {}
        if mode == "auto":
            opened = await client.call_tool("open_session", {})
            session = {"session": opened.structured_content["session"]}

        async def call(step, tool, arguments, **expected):
            return expect(step, await client.call_tool(
                tool, {**arguments, **session}), **expected)

        await call("breakpoint", "breakpoint_set", dict(TEST, line=4))
        run = await call("run", "debug_run", TEST, state="paused",
                         reason="breakpoint")
        debug = {"debug": run.get("debug")}
        into = await call("into", "debug_step", dict(debug, kind="into"),
                          state="paused")
        top = (into.get("frames") or [{}])[0]
        if top.get("method") != "Account>>withdraw:" or top.get("line") != 3:
            seen["problems"].append(f"into: {top}")
        await call("amount", "debug_eval", dict(debug, code="amount"),
                   printString="25")
        await call("balance", "debug_eval", dict(debug, code="balance"),
                   printString="10")
        await call("set", "debug_eval", dict(debug, code="amount := 30"))
        await call("setRead", "debug_eval", dict(debug, code="amount"),
                   printString="30")
        await call("read", "get_method_source",
                   {"className": "Account", "selector": "withdraw:"})
        await call("fix", "compile_method",
                   {"className": "Account", "source": FIXED_WITHDRAW})
        restarted = await call("restart", "debug_restart", dict(debug, frame=1),
                               state="paused")
        if (restarted.get("frames") or [{}])[0].get("method") != "Account>>withdraw:":
            seen["problems"].append(f"restart: {restarted.get('frames')}")
        await call("continue", "debug_continue", debug, state="finished")
        await call("clear", "breakpoint_clear", {}, cleared=1)
        await call("again", "debug_run", TEST, state="finished")
        await call("none", "debug_list", {}, paused=[])
        if session:
            expect("close", await client.call_tool("close_session", session))
    return seen


async def main(url, mode):
    seen = await flow(url, mode)
    print(json.dumps(seen))
    sys.exit(1 if seen["problems"] else 0)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))

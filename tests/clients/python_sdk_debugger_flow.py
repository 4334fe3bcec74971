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

from sdk_agent import FIXED_WITHDRAW, main

TEST = {"className": "AccountTest", "selector": "testWithdrawTooMuch"}


async def steps(me):
    call = me.call
    await call("breakpoint", "breakpoint_set", dict(TEST, line=4))
    run = await call("run", "debug_run", TEST, state="paused",
                     reason="breakpoint")
    debug = {"debug": run.get("debug")}
    into = await call("into", "debug_step", dict(debug, kind="into"),
                      state="paused")
    top = (into.get("frames") or [{}])[0]
    if top.get("method") != "Account>>withdraw:" or top.get("line") != 3:
        me.problem("into", top)
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
        me.problem("restart", restarted.get("frames"))
    await call("continue", "debug_continue", debug, state="finished")
    await call("clear", "breakpoint_clear", {}, cleared=1)
    await call("again", "debug_run", TEST, state="finished")
    await call("none", "debug_list", {}, paused=[])


if __name__ == "__main__":
    main(steps)

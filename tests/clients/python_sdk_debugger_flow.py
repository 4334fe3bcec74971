"""
The official Python SDK client (mcp 2.x) driving the debugger as an agent
would, in either protocol era.  Prints one JSON line of what it saw and
exits 1 if a step went wrong (the line's "problems" says which).

Usage: python python_sdk_debugger_flow.py URL auto|legacy
  (2026: open_session first) a breakpoint in Account>>withdraw: (which
  AccountTest>>testWithdrawTooMuch calls) at its faulty line -> debug_run the
  test: paused there, the test's frame below -> read amount and balance ->
  read and compile a fixed withdraw: (a temporary, left) -> the breakpoint
  went with the old method -> restart its frame, step over to the check ->
  read the temporary left, set it, read it back -> continue: the run
  finishes and the test passes (run_test_method) -> a breakpoint set and
  cleared -> the test runs again without pausing

The daemon must serve the debugger, browsing, mutation, testing and session
toolsets.
"""

from sdk_agent import main

TEST = {"className": "AccountTest", "selector": "testWithdrawTooMuch"}
WITHDRAW = {"className": "Account", "selector": "withdraw:"}
FIXED_WITHDRAW = ("withdraw: amount\n\t| left |\n\tleft := balance - amount.\n"
                  "\tleft < 0 ifTrue: [^self].\n\tbalance := left")
"""The fix, with a temporary the flow reads and sets in its frame."""


async def steps(me):
    call = me.call
    await call("breakpoint", "breakpoint_set", dict(WITHDRAW, line=3))
    run = await call("run", "debug_run", TEST, state="paused",
                     reason="breakpoint")
    where = [(each.get("method"), each.get("line"))
             for each in run.get("frames", ())[:2]]
    me.check("where", where == [("Account>>withdraw:", 3),
                                ("AccountTest>>testWithdrawTooMuch", 4)], where)
    debug = {"debug": run.get("debug")}
    await call("amount", "debug_eval", dict(debug, code="amount"),
               printString="25")
    await call("balance", "debug_eval", dict(debug, code="balance"),
               printString="10")
    await call("read", "get_method_source", WITHDRAW)
    await call("fix", "compile_method",
               {"className": "Account", "source": FIXED_WITHDRAW,
                "category": "operations"})
    await call("gone", "breakpoint_list", {}, breakpoints=[])
    restarted = await call("restart", "debug_restart", dict(debug, frame=1),
                           state="paused")
    top = (restarted.get("frames") or [{}])[0]
    me.check("restartedAt", (top.get("method"), top.get("line"))
             == ("Account>>withdraw:", 3), top)
    over = await call("over", "debug_step", dict(debug, kind="over"),
                      state="paused")
    line = (over.get("frames") or [{}])[0].get("line")
    me.check("overTo", line == 4, line)
    await call("left", "debug_eval", dict(debug, code="left"),
               printString="-15")
    await call("set", "debug_eval", dict(debug, code="left := -1"))
    await call("setRead", "debug_eval", dict(debug, code="left"),
               printString="-1")
    await call("continue", "debug_continue", debug, state="finished")
    passed = await call("passes", "run_test_method", TEST)
    me.check("passed", passed.get("status") == "passed", passed)
    await call("again", "breakpoint_set", dict(WITHDRAW, line=4))
    await call("clear", "breakpoint_clear", {}, cleared=1)
    await call("unpaused", "debug_run", TEST, state="finished")
    await call("none", "debug_list", {}, paused=[])


if __name__ == "__main__":
    main(steps)

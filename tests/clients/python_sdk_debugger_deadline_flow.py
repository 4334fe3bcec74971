"""
The official Python SDK client (mcp 2.x) against a daemon whose calls have
a short --call-timeout: a debug_continue that runs past it is broken like
any call, and the session goes on.  Prints one JSON line of what it saw
and exits 1 if a step went wrong (the line's "problems" says which).

Usage: python python_sdk_debugger_deadline_flow.py URL auto|legacy
  (2026: open_session first) debug_run a halt before an endless loop ->
  debug_continue: ended at the deadline -> debug_list: the broken run is
  over (its process cleared, as a broken call's) -> the session answers
  3 + 4

The daemon must serve the debugger, execution and session toolsets.
"""

from mcp.shared.exceptions import MCPError
from sdk_agent import main

ENDLESS = "nil halt.\n[true] whileTrue: [nil yourself]"


async def steps(me):
    call = me.call
    run = await call("run", "debug_run", {"code": ENDLESS}, state="paused",
                     reason="halt")
    try:
        broken = await me.client.call_tool("debug_continue", {
            "debug": run.get("debug"), **me.session})
    except MCPError as e:
        me.seen["steps"]["continue"] = str(e)[:160]
        me.check("deadline", "deadline" in str(e), str(e))
    else:
        me.problem("continue", f"answered past its deadline: {broken}")
    await call("ended", "debug_list", {}, paused=[])
    await call("seven", "execute_code", {"code": "3 + 4"}, printString="7")


if __name__ == "__main__":
    main(steps)

"""
The official Python SDK client (mcp 2.x) against a daemon started with
--read-only: a debugged run that commits pauses at the commit's error, and
nothing it changed is kept.  Prints one JSON line of what it saw and exits
1 if a step went wrong (the line's "problems" says which).

Usage: python python_sdk_debugger_readonly_flow.py URL auto|legacy
  (2026: open_session first) debug_run code that changes UserGlobals and
  commits -> paused at an error, the commit lock's -> debug_stop -> abort
  and read: the change is gone

The daemon must serve the debugger, execution and session toolsets.
"""

from sdk_agent import main

COMMITS_DISABLED = 2249
COMMITTING = "UserGlobals at: #GsmcpdKept put: 1.\nSystem commitTransaction"


async def steps(me):
    call = me.call
    run = await call("run", "debug_run", {"code": COMMITTING},
                     state="paused", reason="error")
    number = (run.get("error") or {}).get("number")
    me.check("locked", number == COMMITS_DISABLED, run.get("error"))
    await call("stop", "debug_stop", {"debug": run.get("debug")})
    await call("kept", "execute_code", {
        "code": "System abortTransaction.\n"
                "UserGlobals at: #GsmcpdKept ifAbsent: [0]"},
        printString="0")


if __name__ == "__main__":
    main(steps)

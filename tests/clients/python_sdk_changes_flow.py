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

from sdk_agent import FIXED_WITHDRAW, main

WITHDRAW = {"className": "Account", "selector": "withdraw:"}
IS_EMPTY = {"className": "Account", "selector": "isEmpty"}


async def steps(me):
    call, check = me.call, me.check
    await call("read", "get_method_source", WITHDRAW,
               says="Overdrafts are not checked")
    await call("fix", "compile_method",
               {"className": "Account", "source": FIXED_WITHDRAW})
    await call("new", "compile_method",
               {"className": "Account", "source": "isEmpty\n\t^balance = 0"})
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
    if me.session:
        me.expect("noHandle", await me.client.call_tool("list_changes", {}),
                  refused=True)


if __name__ == "__main__":
    main(steps)

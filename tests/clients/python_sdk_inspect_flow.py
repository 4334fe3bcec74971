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

from sdk_agent import FIXED_WITHDRAW, main

OVERDRAWN = ("| account | account := Account owner: 'ann'. account deposit: 10. "
             "account withdraw: 25. account")
TEST = {"className": "AccountTest", "selector": "testWithdrawTooMuch"}
PROFILE = {"code": "| account | account := Account owner: 'ann'. "
                   "1 to: 3000 do: [:i | account deposit: 1]. account balance",
           "intervalNs": 10_000, "limit": 5}


async def steps(me):
    def sampled(step, found):
        methods = [each["method"] for each in found.get("byTotal", ())]
        if found.get("printString") != "3000" or \
                "Account>>deposit:" not in methods:
            me.problem(step, found)

    call, client = me.call, me.client
    failed = await call("fails", "run_test_method", TEST)
    if failed and failed["status"] != "failed":
        me.problem("fails", failed["status"])
    account = await call("inspect", "inspect", {"expression": OVERDRAWN},
                         says="balance: -15")
    await call("balance", "inspect", {"object": account.get("object"),
                                      "path": ["balance"]}, says="-15")
    await call("read", "get_method_source",
               {"className": "Account", "selector": "withdraw:"})
    await call("fix", "compile_method",
               {"className": "Account", "source": FIXED_WITHDRAW})
    passed = await call("passes", "run_test_method", TEST)
    if passed and passed["status"] != "passed":
        me.problem("passes", passed["status"])
    await call("abort", "abort", {})
    await call("stale", "inspect", {"object": account.get("object")},
               refused=True, says="not answered in this session's present view")
    sampled("profile", await call("profile", "profile_code", PROFILE,
                                  says="By self samples"))
    failed = await call("profileFails", "profile_code",
                        {"code": "Account new withdraw: nil"},
                        refused=True, says="Account>>withdraw:")
    if failed and "stack" not in failed.get("error", {}):
        me.problem("profileFails", f"no stack in {failed}")
    sampled("profileAgain", await call("profileAgain", "profile_code", PROFILE))
    if me.session:
        borrowed = me.expect("noHandle", await client.call_tool(
            "inspect", {"expression": OVERDRAWN}))
        await call("foreign", "inspect", {"object": borrowed.get("object")},
                   refused=True, says="valid only in the session (handle)")
        sampled("profileNoHandle", me.expect("profileNoHandle",
                                             await client.call_tool(
                                                 "profile_code", PROFILE)))


if __name__ == "__main__":
    main(steps)

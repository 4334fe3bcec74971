"""
The official Python SDK client (mcp 2.x) renaming a selector as an agent
would, in either protocol era: the rename that took 17 calls by hand (find
implementors and senders, read each, recompile each, delete the old method,
put its category back) in 2, a preview and its apply.  Prints one JSON line
of what it saw and exits 1 if a step went wrong (the line's "problems" says
which).

Usage: python python_sdk_refactoring_flow.py URL auto|legacy
  (2026: open_session first) rename_selector deposit: credit: (the
  preview: Account's implementor and AccountTest's two senders) -> the
  same with apply -> run_test_class AccountTest: each test as before the
  rename (testDeposit passes, testWithdrawTooMuch fails on its assertion,
  not on a message not understood, testBroken divides by zero) -> credit:
  kept its category -> rename_instance_variable Account balance funds,
  previewed and applied: new versions of Account and of its subclass
  SavingsAccount -> Account has funds, SavingsAccount sits under the new
  Account and their methods run -> (2026) without the handle the rename is
  refused

The daemon serves the default toolsets and refactoring.
"""

from sdk_agent import main

RENAME = {"selector": "deposit:", "newSelector": "credit:"}
IVAR = {"className": "Account", "name": "balance", "newName": "funds"}
# The seeded AccountTest's outcomes, which the rename must leave as they were.
OUTCOMES = {"testBroken": "error", "testDeposit": "passed",
            "testWithdrawTooMuch": "failed"}


async def steps(me):
    call, check = me.call, me.check
    preview = await call("preview", "rename_selector", RENAME,
                         says="Preview")
    check("preview", sorted((c["className"], c["selector"], c["newSelector"])
                            for c in preview.get("changes", [])) ==
          [("Account", "deposit:", "credit:"),
           ("AccountTest", "testDeposit", "testDeposit"),
           ("AccountTest", "testWithdrawTooMuch", "testWithdrawTooMuch")] and
          preview["unchanged"] == [], preview)
    applied = await call("apply", "rename_selector", {
        **RENAME, "apply": preview.get("previewId", "")}, says="Applied")
    check("apply", applied.get("counts", {}).get("methods") == 3, applied)
    tests = await call("tests", "run_test_class",
                       {"className": "AccountTest"}, says="1 passed")
    check("tests", {t["selector"]: t["status"]
                    for t in tests.get("tests", [])} == OUTCOMES,
          tests)
    await call("category", "get_method_source",
               {"className": "Account", "selector": "credit:"},
               says="operations")
    ivar = await call("ivarPreview", "rename_instance_variable",
                      IVAR, says="Account, SavingsAccount")
    check("ivarPreview", ivar.get("counts", {}).get("classes") == 2, ivar)
    await call("ivarApply", "rename_instance_variable", {
        **IVAR, "apply": ivar.get("previewId", "")}, says="not migrated")
    await call("ivarRun", "execute_code", {
        "code": "SavingsAccount allInstVarNames , (Array with: "
        "(SavingsAccount new rate: 4; credit: 50; interest))"},
        says="funds")
    if me.session:
        me.expect("noHandle", await me.client.call_tool(
            "rename_selector", {"selector": "credit:", "newSelector": "plus:"}),
            refused=True)


if __name__ == "__main__":
    main(steps)

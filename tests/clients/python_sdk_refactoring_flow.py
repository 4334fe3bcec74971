"""
The official Python SDK client (mcp 2.x) renaming a selector as an agent
would, in either protocol era: the rename that took 17 calls by hand (find
implementors and senders, read each, recompile each, delete the old method,
put its category back) in 2, a preview and its apply.  Prints one JSON line
of what it saw and exits 1 if a step went wrong (the line's "problems" says
which).

Usage: python python_sdk_refactoring_flow.py URL auto|legacy
  (2026: open_session first) compile Account>>bump: (category operations)
  and its sender twice:, which also performs #bump: and answers a string
  naming it -> rename_selector bump: add: (the preview) -> the same with
  apply -> the code runs -> add: kept its category -> twice: sends add:
  and keeps the perform: and the string -> rename_instance_variable
  SavingsAccount rate percent, previewed and applied -> the class has
  percent and its methods run -> (2026) without the handle the rename is
  refused

The daemon serves the default toolsets and refactoring.
"""

from sdk_agent import main

BUMP = "bump: n\n\tbalance := balance + n"
TWICE = ("twice: n\n\tself bump: n.\n\tself perform: #bump: with: n.\n"
         "\t^'bump: done'")
RENAME = {"selector": "bump:", "newSelector": "add:"}
IVAR = {"className": "SavingsAccount", "name": "rate", "newName": "percent"}


async def steps(me):
    call, check = me.call, me.check
    for step, source in (("bump", BUMP), ("twice", TWICE)):
        await call(step, "compile_method", {
            "className": "Account", "source": source,
            "category": "operations"})
    preview = await call("preview", "rename_selector", RENAME,
                         says="Preview")
    check("preview", [(c["selector"], c["newSelector"])
                      for c in preview.get("changes", [])] ==
          [("bump:", "add:"), ("twice:", "twice:")] and
          [u["reason"] for u in preview["unchanged"]] ==
          ["perform: of the literal symbol"], preview)
    applied = await call("apply", "rename_selector", {
        **RENAME, "apply": preview.get("previewId", "")}, says="Applied")
    check("apply", applied.get("counts", {}).get("methods") == 2, applied)
    await call("run", "execute_code", {
        "code": "(Account new initialize; yourself) add: 4; balance"},
        says="4")
    await call("category", "get_method_source",
               {"className": "Account", "selector": "add:"},
               says="operations")
    await call("sender", "get_method_source",
               {"className": "Account", "selector": "twice:"},
               says="self add: n.\n\tself perform: #bump: with: n.\n"
               "\t^'bump: done'")
    ivar = await call("ivarPreview", "rename_instance_variable",
                      IVAR, says="Preview")
    await call("ivarApply", "rename_instance_variable", {
        **IVAR, "apply": ivar.get("previewId", "")}, says="Applied")
    await call("ivarRun", "execute_code", {
        "code": "SavingsAccount instVarNames , (Array with: "
        "(SavingsAccount new rate: 4; interest))"}, says="percent")
    if me.session:
        me.expect("noHandle", await me.client.call_tool(
            "rename_selector", {"selector": "add:", "newSelector": "plus:"}),
            refused=True)


if __name__ == "__main__":
    main(steps)

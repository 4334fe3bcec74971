"""
The official Python SDK client (mcp 2.x) taking a class out to Tonel and
back as an agent working in a git checkout would, in either protocol era.
Prints one JSON line of what it saw and exits 1 if a step went wrong (the
line's "problems" says which).

Usage: python python_sdk_tonel_flow.py URL auto|legacy
  (2026: open_session first) export_tonel Account -> diff_tonel of the
  unedited files: no change -> one method edited: exactly that change ->
  load_tonel with the base compiles it -> a second export is the edited
  files -> (2026) load_tonel without the handle is refused -> abort -> the
  class file read as a resource is the first export's

The daemon serves the default toolsets and tonel.
"""

from sdk_agent import main

ACCOUNT = "Banking-Core/Account.class.st"
DEPOSIT = "\tbalance := balance + amount\n"
CHECKED = "\tamount <= 0 ifTrue: [^self error: ']'].\n" + DEPOSIT


def listed(files):
    return [{"path": path, "content": content}
            for path, content in files.items()]


async def steps(me):
    call, check = me.call, me.check
    exported = await call("export", "export_tonel", {"className": "Account"})
    files = {each["path"]: each["content"] for each in
             exported.get("files", [])}
    check("export", list(files) == [ACCOUNT], files)
    original = files.get(ACCOUNT, "")
    diffed = await call("unedited", "diff_tonel", {"files": listed(files)})
    check("unedited", diffed.get("changes") == [], diffed)
    files[ACCOUNT] = original.replace(DEPOSIT, CHECKED)
    diffed = await call("edited", "diff_tonel", {"files": listed(files)})
    check("edited", [(c["selector"], c["change"]) for c in
                     diffed.get("changes", [])] ==
          [("deposit:", "changed")], diffed)
    loaded = await call("load", "load_tonel", {
        "files": listed(files), "base": exported.get("base", "")})
    check("load", len(loaded.get("changes", [])) == 1, loaded)
    again = await call("again", "export_tonel", {"className": "Account"})
    check("again", {each["path"]: each["content"] for each in
                    again.get("files", [])} == files, again)
    if me.session:
        me.expect("noHandle", await me.client.call_tool(
            "load_tonel", {"files": listed(files)}), refused=True)
    await me.client.call_tool("abort", me.session)
    read = await me.client.read_resource(f"gemstone://tonel/{ACCOUNT}")
    check("resource", read.contents[0].text == original, read.contents[0])


if __name__ == "__main__":
    main(steps)

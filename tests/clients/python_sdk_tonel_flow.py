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

import asyncio
import json
import sys

from mcp import Client

ACCOUNT = "Banking-Core/Account.class.st"
DEPOSIT = "\tbalance := balance + amount\n"
CHECKED = "\tamount <= 0 ifTrue: [^self error: ']'].\n" + DEPOSIT


async def flow(url, mode):
    seen = {"mode": mode, "steps": [], "problems": []}

    def check(step, condition, found):
        seen["steps"].append(step)
        if not condition:
            seen["problems"].append(f"{step}: {str(found)[:300]}")

    async with Client(url, mode=mode) as client:
        seen["protocolVersion"] = client.protocol_version
        session = {}
        if mode == "auto":
            opened = await client.call_tool("open_session", {})
            session = {"session": opened.structured_content["session"]}

        async def call(tool, arguments):
            result = await client.call_tool(tool, {**arguments, **session})
            return result, result.structured_content or {}

        result, exported = await call("export_tonel", {"className": "Account"})
        files = {each["path"]: each["content"] for each in
                 exported.get("files", [])}
        check("export", not result.is_error and list(files) == [
            "Banking-Core/package.st", ACCOUNT], files)
        original = files.get(ACCOUNT, "")

        def listed(paths):
            return [{"path": path, "content": content}
                    for path, content in paths.items()]

        result, diffed = await call("diff_tonel", {"files": listed(files)})
        check("unedited", diffed.get("changes") == [], diffed)
        files[ACCOUNT] = original.replace(DEPOSIT, CHECKED)
        result, diffed = await call("diff_tonel", {"files": listed(files)})
        check("edited", [(c["selector"], c["change"]) for c in
                         diffed.get("changes", [])] ==
              [("deposit:", "changed")], diffed)
        result, loaded = await call("load_tonel", {
            "files": listed(files), "base": exported.get("base", "")})
        check("load", not result.is_error and len(loaded["changes"]) == 1,
              result.content)
        result, again = await call("export_tonel", {"className": "Account"})
        check("again", {each["path"]: each["content"] for each in
                        again.get("files", [])} == files, again)
        if session:
            refused = await client.call_tool("load_tonel",
                                             {"files": listed(files)})
            check("noHandle", refused.is_error, refused.content)
        await call("abort", {})
        read = await client.read_resource(f"gemstone://tonel/{ACCOUNT}")
        check("resource", read.contents[0].text == original,
              read.contents[0])
        if session:
            await client.call_tool("close_session", session)
    return seen


async def main(url, mode):
    seen = await flow(url, mode)
    print(json.dumps(seen))
    sys.exit(1 if seen["problems"] else 0)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))

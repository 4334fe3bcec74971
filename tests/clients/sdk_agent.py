"""
What the Python SDK agent flows share, so each flow script says only its
steps: one official SDK client (mcp 2.x) in either protocol era, with a
session opened for it over 2026-07-28 and closed at the end, and a report
of what each step saw, printed as one JSON line; the script exits 1 if a
step went wrong (the report's "problems" says which).
"""

import asyncio
import json
import sys
from contextlib import asynccontextmanager

from mcp import Client

# The fix of Account>>withdraw: (overdrafts are not checked) the flows make.
FIXED_WITHDRAW = ("withdraw: amount\n\tamount > balance ifTrue: [^self].\n"
                  "\tbalance := balance - amount")


def text(result):
    return " ".join(block.text for block in result.content
                    if block.type == "text")


class Agent:
    """
    A client and the report of what it saw: C{seen["steps"]} holds the
    start of each step's answer, in the order taken.
    """

    def __init__(self, client, seen):
        self.client = client
        self.seen = seen
        self.session = {}
        self.opened = None

    def problem(self, step, found):
        self.seen["problems"].append(f"{step}: {str(found)[:300]}")

    def expect(self, step, result, refused=False, says=None, **holds):
        """
        Keep the step's answer; it went wrong if refused or not as asked,
        if it does not say C{says}, or if its structured content does not
        hold C{holds}.  Answer that structured content.
        """
        said = text(result)
        self.seen["steps"][step] = said[:160]
        found = result.structured_content or {}
        wrong = {key: found.get(key) for key, value in holds.items()
                 if found.get(key) != value}
        if result.is_error != refused or (says and says not in said) or wrong:
            self.problem(step, f"{wrong} {said}" if wrong else said)
        return found

    async def call(self, step, tool, arguments, **expected):
        """
        Call C{tool} in the agent's session (if it has one) and expect.
        """
        return self.expect(step, await self.client.call_tool(
            tool, {**arguments, **self.session}), **expected)

    def check(self, step, condition, found):
        """
        A step that went wrong unless C{condition}, showing C{found}.
        """
        self.seen["steps"].setdefault(step, "")
        if not condition:
            self.problem(step, found)


@asynccontextmanager
async def agent(url, mode, seen=None, **options):
    """
    An L{Agent} on a client of C{url} in C{mode} ("auto" opens a session
    for it, closed at the end), made with C{options}, reporting into
    C{seen} (a new report if not given).
    """
    if seen is None:
        seen = {"mode": mode, "steps": {}, "problems": []}
    async with Client(url, mode=mode, **options) as client:
        seen["protocolVersion"] = client.protocol_version
        made = Agent(client, seen)
        if mode == "auto":
            made.opened = await client.call_tool("open_session", {})
            made.session = {
                "session": made.opened.structured_content["session"]}
        yield made
        if made.session:
            made.expect("close", await client.call_tool("close_session",
                                                        made.session))


def report(seen):
    print(json.dumps(seen))
    sys.exit(1 if seen["problems"] else 0)


def main(steps):
    """
    Take C{steps(agent)} on the URL and mode the command line gives, and
    report.
    """
    async def flow(url, mode):
        async with agent(url, mode) as me:
            await steps(me)
        return me.seen

    report(asyncio.run(flow(*sys.argv[1:])))

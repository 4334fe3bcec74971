"""
The official Python SDK client (mcp 2.x) working in GemStone as an agent
would, in either protocol era.  Prints one JSON line of what it saw and
exits 1 if a step went wrong (the line's "problems" says which).

Usage: python python_sdk_flow.py URL flow auto|legacy
         open a session (2026: open_session; 2025: initialize) -> browse
         Account -> a blind compile_method (refused) -> read the method ->
         compile it -> run_test_class AccountTest (2026: as a task, its
         progress read from tasks/get; 2025: with progress notifications)
         -> commit, confirming through elicitation -> close the session
       python python_sdk_flow.py URL watch
         a 2026 client listening (subscriptions/listen) and a 2025 client
         subscribed (resources/subscribe) to gemstone://class/Account/source
         while a third client compiles and commits a change to Account: both
         must be told

The daemon must serve the core toolsets with the option confirmDestructive
for the mutation and session toolsets (--toolset-options).
"""

import asyncio
import sys
from typing import Any, ClassVar, Literal

import mcp_types as types
from mcp import Client
from mcp.client.extension import ClientExtension, ResultClaim
from pydantic import TypeAdapter
from sdk_agent import FIXED_WITHDRAW, agent, report, text

SOURCE = "gemstone://class/Account/source"
TASKS = "io.modelcontextprotocol/tasks"


class CreateTaskResult(types.Result):
    result_type: Literal["task"] = "task"
    task_id: str
    status: str


class TasksGetParams(types.RequestParams):
    task_id: str


class TasksGetRequest(types.Request[TasksGetParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TasksGetParams
    name_param: ClassVar[str | None] = "taskId"


class Tasks(ClientExtension):
    """
    The tasks extension, as far as this client needs it: a call answered
    with a task is polled to its end, its status messages kept.
    """

    identifier = TASKS

    def __init__(self):
        self.progress = []

    def claims(self):
        return [ResultClaim(result_type="task", model=CreateTaskResult,
                            resolve=self.resolve)]

    async def resolve(self, created, context):
        while True:
            detailed = await context.session.send_request(
                TasksGetRequest(params=TasksGetParams(
                    task_id=created.task_id)),
                TypeAdapter(dict[str, Any]))
            message = detailed.get("statusMessage")
            if message and message not in self.progress:
                self.progress.append(message)
            if detailed["status"] in ("completed", "failed", "cancelled"):
                break
            await asyncio.sleep(0.1)
        if detailed["status"] != "completed":
            raise RuntimeError(f"task {detailed['status']}: "
                               f"{detailed.get('error')}")
        return types.CallToolResult.model_validate(detailed["result"])


async def confirm(context, params):
    """
    The user, agreeing to what they are asked.
    """
    confirm.asked.append(params.message)
    return types.ElicitResult(action="accept", content={"confirm": True})


async def flow(url, mode):
    confirm.asked = []
    tasks = Tasks()
    async with agent(url, mode, elicitation_callback=confirm,
                     extensions=[tasks]) as me:
        if me.session:
            me.expect("open", me.opened)
        await steps(me, tasks)
    return me.seen


async def steps(me, tasks):
    call, seen = me.call, me.seen
    await call("browse", "describe_class", {"className": "Account"})
    failing = await call("failingTest", "describe_test_failure",
                         {"className": "AccountTest",
                          "selector": "testWithdrawTooMuch"},
                         says="AccountTest>>testWithdrawTooMuch (line 5)")
    stack = failing.get("stack") or {}
    if "AccountTest>>testWithdrawTooMuch" not in [
            frame["method"] for frame in stack.get("frames", ())]:
        me.problem("failingTest", f"no stack in {stack}")
    await call("blindCompile", "compile_method",
               {"className": "Account", "source": FIXED_WITHDRAW},
               refused=True, says="blind write")
    read = await call("read", "get_method_source",
                      {"className": "Account", "selector": "withdraw:"})
    await call("compile", "compile_method",
               {"className": "Account", "source": FIXED_WITHDRAW})
    heard = []

    async def progress(done, total, message):
        heard.append(f"{done:g} of {total:g}: {message}")

    me.expect("runTests", await me.client.call_tool(
        "run_test_class", {"className": "AccountTest", **me.session},
        progress_callback=progress), says="passed")
    seen["progress"] = tasks.progress if me.session else heard
    if not seen["progress"]:
        me.problem("runTests", "no progress seen")
    await call("commit", "commit", {}, says="Committed")
    seen["confirmations"] = confirm.asked
    if not any("withdraw:" in asked for asked in confirm.asked):
        me.problem("commit", "no confirmation naming the change was asked")
    # Leave the stone as it was found, for the next flow on it (the
    # commit moved the view: read the method again first).
    await call("reread", "get_method_source",
               {"className": "Account", "selector": "withdraw:"})
    await call("restore", "compile_method",
               {"className": "Account", "category": "operations",
                "source": read.get("source", "")})
    await call("commitRestored", "commit", {}, says="Committed")


async def watch(url):
    seen = {"heard": {}, "problems": []}
    listening, subscribed = asyncio.Event(), asyncio.Event()

    async def modern():
        async with Client(url) as client:
            async with client.listen(resource_subscriptions=[SOURCE]) as sub:
                listening.set()
                async for event in sub:
                    seen["heard"]["2026-07-28"] = event.uri
                    return

    async def legacy():
        told = asyncio.Event()

        async def handler(message):
            if isinstance(message, types.ResourceUpdatedNotification):
                seen["heard"]["2025-11-25"] = str(message.params.uri)
                told.set()

        async with Client(url, mode="legacy",
                          message_handler=handler) as client:
            await client.session.subscribe_resource(SOURCE)
            subscribed.set()
            await told.wait()

    async def committer():
        await listening.wait()
        await subscribed.wait()
        confirm.asked = []
        async with Client(url, elicitation_callback=confirm) as client:
            handle = (await client.call_tool(
                "open_session", {})).structured_content["session"]
            for tool, arguments in (
                    ("get_method_source", {"className": "Account",
                                           "selector": "withdraw:"}),
                    ("compile_method", {"className": "Account",
                                        "source": FIXED_WITHDRAW + " "}),
                    ("commit", {})):
                result = await client.call_tool(
                    tool, dict(arguments, session=handle))
                if result.is_error:
                    seen["problems"].append(f"{tool}: {text(result)}")
            await client.call_tool("close_session", {"session": handle})

    try:
        await asyncio.wait_for(asyncio.gather(modern(), legacy(), committer()),
                               30)
    except Exception as e:
        seen["problems"].append(f"{type(e).__name__}: {e}")
    for era in ("2026-07-28", "2025-11-25"):
        if seen["heard"].get(era) != SOURCE:
            seen["problems"].append(f"the {era} client was not told")
    return seen


async def main(url, what, mode=None):
    return await (flow(url, mode) if what == "flow" else watch(url))


if __name__ == "__main__":
    report(asyncio.run(main(*sys.argv[1:])))

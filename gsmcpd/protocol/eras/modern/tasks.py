"""
Tasks (the C{io.modelcontextprotocol/tasks} extension): a long call answered
at once with a task the client polls, answers and cancels.  A task belongs
to the daemon, not a connection, and is kept C{--task-retention} after it
ends (one still working then is kept while its call runs, under its
caller's share; one waiting for answers is cancelled); only an identity's
newest C{--tasks-kept} are kept, so results nobody reads fill no memory.
"""

import secrets
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, cast

import attr
from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from gsmcpd.auth.tokens import Principal, admits
from gsmcpd.protocol.eras.modern.asking import inputResponses
from gsmcpd.protocol.eras.modern.envelope import MISSING_CLIENT_CAPABILITY, Envelope
from gsmcpd.protocol.eras.modern.results import COMPLETE
from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.jsonrpc import JsonObject, JsonRpcError, invalidParams
from gsmcpd.sessions.interfaces import ICallSink
from gsmcpd.sessions.shares import identityOf

EXTENSION = "io.modelcontextprotocol/tasks"
TASK = "task"
"""The C{resultType} of the result that creates a task."""

WORKING = "working"
INPUT_REQUIRED = "input_required"
COMPLETED = "completed"
FAILED = "failed"
CANCELLED = "cancelled"
TERMINAL = frozenset({COMPLETED, FAILED, CANCELLED})

def requires(envelope: Envelope | RequestFacts) -> JsonRpcError | None:
    """The C{-32021} error when the client did not declare the extension."""
    extensions = envelope.clientCapabilities.get("extensions")
    if isinstance(extensions, dict) and isinstance(extensions.get(EXTENSION),
                                                   dict):
        return None
    return JsonRpcError(
        MISSING_CLIENT_CAPABILITY, "Missing required client capability: "
        f"this tool runs only as a task; declare the {EXTENSION} extension",
        {"requiredCapabilities": {"extensions": {EXTENSION: {}}}})


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")


@attr.s(auto_attribs=True, eq=False)
class Task:
    """
    One task, as C{tasks/get} reports it.

    @ivar result: once C{completed} (a tool's error completes too, C{isError}).
    @ivar error: the JSON-RPC error once C{failed}: no result at all.
    @ivar owner: whose call it is, or L{None}; nobody else may read or end it.
    """

    taskId: str
    createdAt: float
    lastUpdatedAt: float
    ttlMs: int
    pollIntervalMs: int
    status: str = WORKING
    statusMessage: str | None = None
    result: dict | None = None
    error: dict | None = None
    inputRequests: dict = attr.Factory(dict)
    _answers: dict = attr.Factory(dict)
    _waiting: Deferred | None = None
    _cancel: Callable[[], object] | None = None
    _expiry: Any = None
    owner: Principal | None = None

    def _envelope(self, resultType: str) -> JsonObject:
        shape = {"resultType": resultType, "taskId": self.taskId,
                 "status": self.status, "createdAt": _iso(self.createdAt),
                 "lastUpdatedAt": _iso(self.lastUpdatedAt),
                 "ttlMs": self.ttlMs, "pollIntervalMs": self.pollIntervalMs}
        if self.statusMessage is not None:
            shape["statusMessage"] = self.statusMessage
        return shape

    def created(self) -> JsonObject:
        """The C{tools/call} result that hands the task to the client."""
        return self._envelope(TASK)

    def detailed(self) -> JsonObject:
        """The C{tasks/get} result: the state, and what the state carries."""
        shape = self._envelope(COMPLETE)
        if self.status == COMPLETED:
            shape["result"] = self.result
        elif self.status == FAILED:
            shape["error"] = self.error
        elif self.status == INPUT_REQUIRED:
            shape["inputRequests"] = dict(self.inputRequests)
        return shape


class TaskStore:
    """
    The daemon's tasks, by id.

    @ivar ttl: seconds a task stays readable after it ended.
    @ivar kept: most ended tasks kept per identity, or L{None}.
    """

    log = Logger()

    def __init__(self, clock: Any, ttl: float = 600.0,
                 pollInterval: float = 1.0, kept: int | None = None) -> None:
        self._clock = clock
        self.ttl = ttl
        self.kept = kept
        self.pollInterval = pollInterval
        self._tasks: dict[str, Task] = {}
        self._ended: defaultdict[object, OrderedDict[str, Task]] = \
            defaultdict(OrderedDict)

    def __len__(self) -> int:
        return len(self._tasks)

    def adopt(self, working: Deferred[JsonObject], cancel: Callable[[], None],
              owner: Any = None) -> "Task":
        """Make a call under way a task; C{cancel} (its escalation) ends it."""
        now = self._clock.seconds()
        task = Task(secrets.token_urlsafe(24), now, now, int(self.ttl * 1000),
                    int(self.pollInterval * 1000), owner=owner)
        task._cancel = cancel
        self._tasks[task.taskId] = task
        task._expiry = self._clock.callLater(self.ttl, self._expire, task)
        working.addCallbacks(lambda result: self._settle(task, COMPLETED,
                                                         result=result),
                             lambda failure: self._failed(task, failure))
        return task

    def progressed(self, task: "Task", message: str) -> None:
        """What a working task reports of itself, in C{statusMessage}."""
        if task.status not in TERMINAL:
            task.statusMessage = message
            task.lastUpdatedAt = self._clock.seconds()

    def _failed(self, task: Task, failure: Failure) -> None:
        if task.status == CANCELLED:
            return
        if failure.check(JsonRpcError):
            error = cast(JsonRpcError, failure.value).asResponse(
                None)["error"]
        else:
            self.log.failure("task {taskId} failed", failure,
                             taskId=task.taskId)
            error = {"code": -32603,
                     "message": f"Internal error: {failure.getErrorMessage()}"}
        self._settle(task, FAILED, error=error)

    def _settle(self, task: Task, status: str, **outcome: Any) -> None:
        if task.status in TERMINAL:
            return
        for name, value in outcome.items():
            setattr(task, name, value)
        task.inputRequests = {}
        self._changed(task, status)

    def _changed(self, task: Task, status: str) -> None:
        task.status = status
        task.lastUpdatedAt = self._clock.seconds()
        if status in TERMINAL:
            self._retain(task)

    def _retain(self, task: Task) -> None:
        """Keep an ended task for the retention, unless newer ones crowd it."""
        if self._tasks.get(task.taskId) is not task:
            return
        task.ttlMs = int((task.lastUpdatedAt + self.ttl - task.createdAt)
                         * 1000)
        if task._expiry.active():
            task._expiry.reset(self.ttl)
        else:
            task._expiry = self._clock.callLater(self.ttl, self._expire, task)
        ended = self._ended[identityOf(task.owner)]
        ended[task.taskId] = task
        while self.kept is not None and len(ended) > self.kept:
            self._drop(next(iter(ended.values())))

    def _drop(self, task: Task) -> None:
        del self._tasks[task.taskId]
        owner = identityOf(task.owner)
        ended = self._ended[owner]
        ended.pop(task.taskId, None)
        if not ended:
            del self._ended[owner]
        if task._expiry.active():
            task._expiry.cancel()

    def _expire(self, task: Task) -> None:
        if task.status == WORKING:
            # Its call still runs, under its caller's share of calls.
            task.ttlMs += int(self.ttl * 1000)
            task._expiry = self._clock.callLater(self.ttl, self._expire, task)
        elif task.status in TERMINAL:
            self._drop(task)
        else:
            self.cancel(task)

    def get(self, taskId: object, principal: Any = None) -> "Task":
        """C{-32602} for an id that is no task here, or another identity's."""
        task = self._tasks.get(taskId) if isinstance(taskId, str) else None
        admitted = admits(None if task is None else task.owner, principal,
                          f"task {str(taskId)[:8]}", exists=task is not None)
        if task is None or not admitted:
            raise invalidParams(f"no task {taskId!r} (it never existed, "
                                "its retention ran out, or newer ended tasks "
                                "of yours replaced it)")
        return task

    def respond(self, request: RequestFacts) -> JsonObject:
        """The handler of C{tasks/get}, C{tasks/update} and C{tasks/cancel}."""
        refusal = requires(request)
        if refusal is not None:
            raise refusal
        params = request.params
        task = self.get(params.get("taskId"), request.principal)
        if request.method == "tasks/get":
            return task.detailed()
        if request.method == "tasks/update":
            self.answer(task, inputResponses(params))
        else:
            self.cancel(task)
        return {"resultType": COMPLETE}

    def cancel(self, task: "Task") -> None:
        """
        Cancelled at once while its call goes on being ended; a question it
        is parked on fails, since no break reaches a call in no GemStone call.
        """
        if task.status in TERMINAL:
            return
        self._settle(task, CANCELLED, statusMessage="cancelled")
        if task._cancel is not None:
            task._cancel()
        waiting, task._waiting = task._waiting, None
        if waiting is not None:
            waiting.cancel()

    def ask(self, task: "Task",
            inputRequests: JsonObject) -> Deferred[JsonObject]:
        """Park a task on questions: the answers by key, once all are in."""
        task.inputRequests = dict(inputRequests)
        task._answers = {}
        task._waiting = Deferred()
        self._changed(task, INPUT_REQUIRED)
        return task._waiting

    def answer(self, task: "Task", inputResponses: JsonObject) -> None:
        """C{tasks/update}: unasked keys ignored, resumes once all are in."""
        if task.status != INPUT_REQUIRED:
            return
        for key, answer in inputResponses.items():
            if key in task.inputRequests:
                del task.inputRequests[key]
                task._answers[key] = answer
        if not task.inputRequests:
            waiting, task._waiting = task._waiting, None
            self._changed(task, WORKING)
            if waiting is not None:
                waiting.callback(task._answers)


@implementer(ICallSink)
class TaskProgress:
    """
    The stream of a call that may become a task: nobody reads it, so progress
    becomes the task's C{statusMessage} and log messages go nowhere.
    """

    wantsProgress = True

    def __init__(self, store: TaskStore) -> None:
        self._store = store
        self.task: Task | None = None

    def post(self, message: JsonObject) -> None:
        pass

    def report(self, progress: float, total: float | None = None,
               message: str | None = None) -> None:
        if self.task is not None:
            done = f"{progress:g} of {total:g}" if total else f"{progress:g}"
            self._store.progressed(
                self.task, f"{done}: {message}" if message else done)

    def closeEarly(self) -> None:
        pass

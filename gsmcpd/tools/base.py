"""
Tools and toolsets: Python outside, Smalltalk inside.

A tool is declared here (name, closed input schema, output schema,
annotations, template) and runs as one template on its session's GemStone
session.  Python owns what the client sees: validation, error kinds, text.
"""

import functools
from collections.abc import Callable, Generator, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import attr
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.tools.arguments import (
    BOOLEAN,
    OPTIONAL_STRING,
    STRICT_VALIDATOR,
    STRING,
    JsonObject,
    PlainArguments,
    Schema,
    capped,
)
from gsmcpd.tools.context import NULL_CONTEXT, ICallContext
from gsmcpd.tools.journal import ChangeJournal, LastCommit
from gsmcpd.tools.ledger import Key, ReadLedger, describeKey
from gsmcpd.tools.templates.outcomes import STILL, ToolError, ViewMove
from gsmcpd.tools.templates.render import TEMPLATE_PACKAGE
from gsmcpd.tools.templates.run import TemplateAnswer, runDebugged, runTemplate

if TYPE_CHECKING:
    from gsmcpd.tools.offerings import Prompt, Resource, ResourceTemplate


_T = TypeVar("_T")
Steps = Generator[Deferred[Any], Any, _T]
"""An L{inlineCallbacks} generator answering C{_T}: a tool's steps."""


@attr.s(frozen=True, auto_attribs=True)
class ToolResult:
    """What a tool answers: the text a model reads and the same as data."""

    text: str
    structured: JsonObject | None = None
    isError: bool = False
    content: list[JsonObject] | None = None
    """Content blocks instead of the one text block (images, audio...)."""

    @classmethod
    def fromError(cls, error: ToolError) -> "ToolResult":
        described = dict(error.details or {}, kind=error.kind,
                         message=error.message)
        return cls(error.message, {"error": described}, isError=True)

    def asResult(self, notes: Iterable[str] = ()) -> JsonObject:
        """
        This answer as a C{tools/call} result, C{notes} (lines the server
        adds, such as the C{[session]} note) as text blocks after it.
        """
        content = list(self.content or [{"type": "text", "text": self.text}])
        content.extend({"type": "text", "text": note} for note in notes)
        result: JsonObject = {"content": content, "isError": self.isError}
        if self.structured is not None:
            result["structuredContent"] = self.structured
        return result


def closedSchema(properties: Schema | None = None,
                 required: Iterable[str] = ()) -> Schema:
    """
    An input schema that refuses unknown and missing arguments (with none
    required, it says nothing about C{required}).
    """
    schema: Schema = {"type": "object", "properties": dict(properties or {}),
              "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def resultSchema(**properties: Schema) -> Schema:
    """
    An output schema listing C{properties}.  It says nothing of
    C{required} or C{additionalProperties}, here or in any object it
    nests: a structured result holds every property its schema lists and
    no other, a rule the instructions state once for every tool (and the
    tests check in its strict form), so the schema need not repeat it.
    """
    return {"type": "object", "properties": properties}


def strictSchema(schema: Schema) -> Schema:
    """
    An output schema as a result must meet it: every object that lists
    properties closed and requiring all of them, as the instructions
    promise (unsaid on the wire, to keep C{tools/list} short).
    """
    strict = dict(schema)
    if "properties" in schema:
        strict["properties"] = {name: strictSchema(each) for name, each
                                in schema["properties"].items()}
        strict["required"] = list(schema["properties"])
        strict["additionalProperties"] = False
    if isinstance(schema.get("items"), dict):
        strict["items"] = strictSchema(schema["items"])
    return strict


def counted(number: int, one: str, many: str | None = None) -> str:
    """C{1 method}, C{3 methods}: the tools' text is read by a model and a
    person, and a count in the wrong number reads as a mistake."""
    return f"{number} {one if number == 1 else many or one + 's'}"


METHOD_SCHEMA = resultSchema(className=STRING, meta=BOOLEAN, selector=STRING,
                             category=OPTIONAL_STRING)
"""One method in a result: the browsing and search tools list methods
alike, so a client reads both with one shape."""


MCP_DEFAULT_HINTS = {"readOnlyHint": False, "destructiveHint": True,
                     "idempotentHint": False, "openWorldHint": True}
"""What MCP says a client assumes for a hint a tool leaves out."""


def annotations(readOnly: bool, destructive: bool = False,
                idempotent: bool = False) -> dict[str, bool]:
    """
    MCP tool annotations; nothing here reaches outside the stone.  A hint
    at MCP's default is left out (every session reads C{tools/list}, and a
    client assumes the default anyway); a read-only tool sends no
    C{destructiveHint} or C{idempotentHint} (MCP gives them meaning only
    when C{readOnlyHint} is false).
    """
    if readOnly:
        return {"readOnlyHint": True, "openWorldHint": False}
    hints = {"readOnlyHint": False, "destructiveHint": destructive,
             "idempotentHint": idempotent, "openWorldHint": False}
    return {hint: value for hint, value in hints.items()
            if value != MCP_DEFAULT_HINTS[hint]}


ANY_SESSION = "anySession"
"""Runs on a GemStone session; without a handle (2026), a throwaway one."""
OWN_SESSION = "ownSession"
"""Its whole point is a lasting change (compile, delete, commit): it runs
only on the client's own session, refused without one."""
NO_SESSION = "noSession"
"""Never touches the stone: no GemStone session is logged in for it."""
SESSION_NEEDS = (ANY_SESSION, OWN_SESSION, NO_SESSION)


@attr.s(frozen=True, auto_attribs=True)
class Tool:
    """
    One MCP tool.

    @ivar run: called with a L{ToolCall} and the validated arguments;
        answers a L{ToolResult} or a L{Deferred} firing with one, or raises
        L{ToolError}; L{None} for a tool only in name (C{open_session}),
        answered by the protocol layer.
    """

    name: str
    title: str
    description: str
    inputSchema: Schema = attr.ib(converter=capped)
    annotations: dict[str, bool]
    run: Callable[..., Any] | None
    outputSchema: Schema | None = None
    streams: bool = False
    """Whether the tool sends the client messages while it runs (log
    messages, sampling or elicitation requests), so a client that accepts
    an event stream gets its answer as one."""
    taskSupport: str | None = None
    """C{"optional"} for a call that may run for minutes, which a client
    that takes tasks gets as one; C{"required"} for one that runs only as
    a task; L{None}: never a task."""
    runsOn: str = attr.ib(default=ANY_SESSION,  # one of SESSION_NEEDS
                          validator=attr.validators.in_(SESSION_NEEDS))
    cancellable: bool = True
    """Whether a client that cancels the call, or hangs up, breaks it (a
    commit: no; only its deadline does)."""
    listsChanges: bool = False  # the journal lists every change it makes

    def descriptor(self) -> JsonObject:
        """This tool as C{tools/list} describes it."""
        described: JsonObject = {"name": self.name, "title": self.title,
                     "description": self.description,
                     "inputSchema": self.inputSchema,
                     "annotations": self.annotations}
        if self.outputSchema is not None:
            described["outputSchema"] = self.outputSchema
        return described

    @functools.cached_property
    def _validator(self) -> Any:
        # Built once per tool, not once per call.
        return STRICT_VALIDATOR(self.inputSchema)

    @functools.cached_property
    def _plainArguments(self) -> PlainArguments | None:
        return PlainArguments.of(self.inputSchema)

    def validate(self, arguments: JsonObject) -> None:
        """
        Check C{arguments} against the input schema, stopping at the first
        problem: a million bad elements must not cost a million messages.

        @raise ToolError: of kind C{invalidParams}, naming what is wrong.
        """
        plain = self._plainArguments
        if plain is not None and plain.accepts(arguments):
            return
        problem = next(self._validator.iter_errors(arguments), None)
        if problem is not None:
            # The message quotes the value, which may be a megabyte long.
            message = problem.message
            if len(message) > 300:
                message = f"{message[:150]}…{message[-150:]}"
            where = problem.json_path
            raise ToolError("invalidParams",
                            f"invalid arguments for {self.name}: {message}"
                            + ("" if where == "$" else f" (at {where[:300]})"))


class ToolCall:
    """
    What a running tool may use: its session's GemStone session, the
    session's read ledger and journal of uncommitted changes, and the
    request it serves (an L{ICallContext}).

    @ivar gem: its GemStone session; L{None} for a tool that runs on none.
    @ivar needsCommit: whether the session held uncommitted changes after
        the last template this call ran, failed or not; L{None} before one.
    @ivar warnings: the descriptions of the Warnings its templates resumed,
        for the client to read beside the result.
    @ivar lastCommit: how its session's last commit ended, or L{None}.
    @ivar describe: a tool as the call's protocol era describes it, for a
        tool that describes another (C{tool_get}).
    @ivar moved: how its templates moved the session's view (a L{ViewMove}).
    """

    def __init__(self, gem: IGemSession | None, ledger: ReadLedger | None = None,
                 context: ICallContext = NULL_CONTEXT,
                 journal: ChangeJournal | None = None,
                 lastCommit: LastCommit | None = None,
                 describe: Callable[[Tool], JsonObject] = Tool.descriptor,
                 ) -> None:
        self.gem = gem
        self.lastCommit = lastCommit
        self.describe = describe
        self.ledger = ReadLedger() if ledger is None else ledger
        self.journal = ChangeJournal() if journal is None else journal
        self.needsCommit: bool | None = None
        self.moved = STILL
        self.warnings: list[str] = []
        self._context = context

    @property
    def clock(self) -> IReactorTime | None:
        """The call's clock, for a tool that paces its work (or L{None})."""
        return self._context.clock

    @property
    def wantsProgress(self) -> bool:
        """Whether the client asked to hear how far this call has got, so
        a tool may do its work in steps it can report."""
        return self._context.wantsProgress

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send the client a log message on this call's stream, if it
        accepts one and wants messages of C{level}."""
        self._context.log(level, data, logger)

    def canAsk(self, capability: str) -> bool:
        """Whether the client can answer a question needing C{capability}."""
        return self._context.canAsk(capability)

    def ask(self, questions: dict[str, Any]) -> Deferred[dict[str, Any]]:
        """Ask the client C{questions} (L{gsmcpd.tools.questions}), in
        whichever protocol era this call runs: a L{Deferred} firing with
        the answers by key."""
        return self._context.ask(questions)

    def closeStream(self) -> None:
        """End this call's stream before the result, as the 2025-11-25
        revision allows: the client resumes it with C{Last-Event-ID}."""
        self._context.closeStream()

    def reportProgress(self, progress: float, total: float | None = None,
                       message: str | None = None) -> None:
        """Tell a client that asked for progress how far this call has got
        (e.g. tests run of tests to run)."""
        self._context.reportProgress(progress, total, message)

    def runTemplate(self, name: str, arguments: dict[str, object],
                    package: str = TEMPLATE_PACKAGE,
                    frames: int = 0) -> Deferred[Any]:
        """
        Run template C{name} (from C{package}) with C{arguments}, keeping
        track of whether the session needs a commit.

        @return: a L{Deferred} firing with the template body's value, or
            failing as L{gsmcpd.tools.templates.run.runTemplate} does.
        """
        def answered(answer: TemplateAnswer) -> object:
            self.needsCommit = answer.needsCommit
            self.warnings.extend(answer.warnings)
            self._viewMoved(answer.moved)
            return answer.value

        def failed(failure: Failure) -> Failure:
            needsCommit = getattr(failure.value, "needsCommit", None)
            if needsCommit is not None:
                self.needsCommit = needsCommit
            self._viewMoved(getattr(failure.value, "moved", STILL))
            return failure

        if self.gem is None:
            raise RuntimeError(f"template {name} run without a GemStone "
                               f"session (by a tool that runs on none)")
        return runTemplate(self.gem, name, arguments, self._context,
                           package, frames).addCallbacks(answered, failed)

    def runDebugged(self, start: Callable[..., Deferred[_T]], *args: object
                    ) -> Deferred[_T]:
        """A debugged run's GCI call, C{start(*args)} (L{runDebugged})."""
        return runDebugged(self._context, start, *args)

    def transactionEnded(self, committed: bool | None) -> None:
        """
        The tool ended the transaction (commit, abort, continue): a move by
        design, handled here only where the envelope saw none.
        """
        if not self.moved.moved:
            self._viewMoved(ViewMove(True, committed))

    def _viewMoved(self, move: ViewMove) -> None:
        """
        Whatever moved the view (code it ran, say), nothing read or shown
        before counts, and the journal's transaction may have ended.
        """
        if move.moved:
            self.moved = self.moved.then(move)
            self.ledger.viewMoved()
            self.journal.viewMoved(move.committed, self.needsCommit)

    def requireRead(self, key: Key, readTool: str) -> str:
        """
        The text this session last read of C{key} in its present view, for
        the write template to compare with the current one.

        @raise ToolError: C{refused}, naming the read to make, when there is
            none.
        """
        text = self.ledger.lastRead(key)
        if text is None:
            raise ToolError(
                "refused",
                f"{describeKey(key)} exists and this session has not read it "
                f"in its present view, so changing it now would be a blind "
                f"write; call {readTool} first, then retry.")
        return text


class Toolset:
    """
    A named pack of tools; a deployment chooses which toolsets it serves.

    Subclasses set L{name}, L{title} and L{instructions} and implement
    L{tools}.  A toolset that can be configured lists its option names in
    L{declaredOptionNames}: an allow-list, so a mistyped option refuses to
    start instead of being silently ignored.

    @cvar instructions: what the model should know about these tools, one
        paragraph of the server's stock instructions.
    """

    name: str
    title = ""
    instructions = ""
    declaredOptionNames: tuple[str, ...] = ()
    usesLogging = False

    def __init__(self, options: JsonObject | None = None) -> None:
        self._options = dict(options or {})
        undeclared = sorted(set(self._options) - set(self.declaredOptionNames))
        if undeclared:
            accepted = ", ".join(self.declaredOptionNames) or "none"
            raise ValueError(
                f"toolset {self.name!r} has no option "
                f"{', '.join(map(repr, undeclared))} (it accepts: {accepted})")

    def optionNamed(self, name: str, default: Any) -> Any:
        """
        An option's value, or C{default}: every option is optional, so the
        reader says what it does without one.
        """
        return self._options.get(name, default)

    def tools(self) -> list[Tool]:
        """The tools this toolset serves, as L{Tool}s."""
        raise NotImplementedError()

    def resources(self) -> list["Resource"]:
        """The L{gsmcpd.tools.offerings.Resource}s this toolset serves."""
        return []

    def resourceTemplates(self) -> list["ResourceTemplate"]:
        """
        The L{gsmcpd.tools.offerings.ResourceTemplate}s this toolset serves.
        """
        return []

    def prompts(self) -> list["Prompt"]:
        """The L{gsmcpd.tools.offerings.Prompt}s this toolset serves."""
        return []

"""
Tools and toolsets: Python outside, Smalltalk inside.

A tool is declared here (name, closed JSON Schema, annotations, template)
and runs as one template on its session's GemStone session.  Python owns
everything the client sees: validation, error kinds, the text and the
structured result.
"""

import functools
import json
import re

import attr
import jsonschema
from twisted.internet.defer import inlineCallbacks, returnValue

from gsmcpd.gci.session import CallWithdrawn
from gsmcpd.templates import TEMPLATE_PACKAGE, Template
from gsmcpd.tools.ledger import ReadLedger, describeKey

MAX_RESULT_BYTES = 1 << 20
"""The largest UTF-8 result a template may answer."""

ERROR_KINDS = ("compileError", "refused", "notFound", "invalidParams", "other")


@attr.s(auto_exc=True, auto_attribs=True)
class ToolError(Exception):
    """
    A tool failed in a way the client can read and act on.

    @ivar kind: one of L{ERROR_KINDS}, so a client can branch without
        parsing prose.
    """

    kind: str = attr.ib(validator=attr.validators.in_(ERROR_KINDS))
    message: str
    details: dict | None = None


@attr.s(frozen=True, auto_attribs=True)
class ToolResult:
    """
    What a tool answers: the text a model reads and the same as data.
    """

    text: str
    structured: dict | None = None
    isError: bool = False
    content: list | None = None
    """Content blocks to answer instead of the one text block (images,
    audio, embedded resources)."""

    @classmethod
    def fromError(cls, error):
        described = dict(error.details or {}, kind=error.kind,
                         message=error.message)
        return cls(error.message, {"error": described}, isError=True)


def errorKindOf(number):
    """
    The tool error kind of a Smalltalk error number.
    """
    return "compileError" if 1000 <= number < 2000 else "other"


def closedSchema(properties=None, required=()):
    """
    An input schema that refuses unknown and missing arguments.
    """
    return {"type": "object", "properties": dict(properties or {}),
            "required": list(required), "additionalProperties": False}


def annotations(readOnly, destructive=False, idempotent=False):
    """
    MCP tool annotations; nothing here reaches outside the stone.
    """
    return {"readOnlyHint": readOnly, "destructiveHint": destructive,
            "idempotentHint": idempotent, "openWorldHint": False}


@attr.s(frozen=True, auto_attribs=True)
class Tool:
    """
    One MCP tool.

    @ivar run: called with a L{ToolCall} and the validated arguments;
        answers a L{ToolResult} or a L{Deferred} firing with one, or raises
        L{ToolError}.
    """

    name: str
    title: str
    description: str
    inputSchema: dict
    annotations: dict
    run: object
    outputSchema: dict | None = None
    streams: bool = False
    """Whether the tool sends the client messages while it runs (log
    messages, sampling or elicitation requests), so a client that accepts
    an event stream gets its answer as one."""

    def descriptor(self):
        """
        This tool as C{tools/list} describes it.
        """
        described = {"name": self.name, "title": self.title,
                     "description": self.description,
                     "inputSchema": self.inputSchema,
                     "annotations": self.annotations}
        if self.outputSchema is not None:
            described["outputSchema"] = self.outputSchema
        return described

    @functools.cached_property
    def _validator(self):
        # Built once per tool, not once per call.
        return jsonschema.Draft202012Validator(self.inputSchema)

    @functools.cached_property
    def _plainArguments(self):
        return _PlainArguments.of(self.inputSchema)

    def validate(self, arguments):
        """
        Check C{arguments} against the input schema.

        @raise ToolError: of kind C{invalidParams}, naming what is wrong.
        """
        plain = self._plainArguments
        if plain is not None and plain.accepts(arguments):
            return
        problems = sorted(self._validator.iter_errors(arguments), key=str)
        if problems:
            where = problems[0].json_path
            raise ToolError("invalidParams",
                            f"invalid arguments for {self.name}: "
                            f"{problems[0].message}"
                            + ("" if where == "$" else f" (at {where})"))


_PLAIN_TYPES = {"string": str, "integer": int, "boolean": bool}
_PLAIN_KEYWORDS = frozenset({"type", "description", "default", "minLength",
                             "minimum", "pattern"})


@attr.s(frozen=True, auto_attribs=True)
class _PlainArguments:
    """
    A closed input schema whose arguments are all plain strings, integers
    or booleans, checked without jsonschema: most tools' schemas are, and
    jsonschema costs more than the rest of a call's dispatch.  It only ever
    accepts what jsonschema accepts; anything else goes to jsonschema for
    the verdict and the message.
    """

    properties: dict
    required: frozenset

    @classmethod
    def of(cls, schema):
        """
        The check for C{schema}, or L{None} when it is not that plain.
        """
        if set(schema) - {"type", "properties", "required",
                          "additionalProperties"} or \
                schema.get("additionalProperties") is not False:
            return None
        properties = {}
        for name, each in schema["properties"].items():
            if set(each) - _PLAIN_KEYWORDS or each.get("type") not in \
                    _PLAIN_TYPES:
                return None
            pattern = each.get("pattern")
            properties[name] = (_PLAIN_TYPES[each["type"]],
                                each.get("minLength"), each.get("minimum"),
                                pattern and re.compile(pattern))
        return cls(properties, frozenset(schema.get("required", ())))

    def accepts(self, arguments):
        if not self.required <= arguments.keys():
            return False
        for name, value in arguments.items():
            found = self.properties.get(name)
            if found is None:
                return False
            kind, minLength, minimum, pattern = found
            # bool is an int in Python, not in JSON Schema.
            if type(value) is not kind or (
                    minLength is not None and len(value) < minLength) or (
                    minimum is not None and value < minimum) or (
                    pattern is not None and not pattern.search(value)):
                return False
        return True


class ToolCall:
    """
    What a running tool may use: its session's GemStone session and the
    session's read ledger.

    @ivar needsCommit: whether the session held uncommitted changes after
        the last template this call ran, failed or not; L{None} before one.
    """

    def __init__(self, gem, ledger=None, run=None):
        self.gem = gem
        self.ledger = ReadLedger() if ledger is None else ledger
        self.needsCommit = None
        self._run = run

    @property
    def wantsProgress(self):
        """
        Whether the client asked to hear how far this call has got, so a
        tool may do its work in steps it can report.
        """
        return self._run is not None and self._run.wantsProgress

    def log(self, level, data, logger=None):
        """
        Send the client a log message on this call's stream, if it accepts
        one and wants messages of C{level}.
        """
        if self._run is not None:
            self._run.logToClient(level, data, logger)

    def request(self, method, params):
        """
        Ask the client something (sampling, elicitation) on this call's
        stream.

        @return: a L{Deferred} firing with the client's result.
        @raise ToolError: when the client cannot be asked (no stream).
        """
        if self._run is None or self._run.sink is None:
            raise ToolError("refused", f"{method} needs a client that "
                            "accepts an event stream for this call")
        return self._run.request(method, params)

    def closeStream(self):
        """
        End this call's stream before the result, as the 2025-11-25
        revision allows: the client resumes it with C{Last-Event-ID}.
        """
        if self._run is not None and self._run.sink is not None:
            self._run.sink.closeEarly()

    def reportProgress(self, progress, total=None, message=None):
        """
        Tell a client that asked for progress how far this call has got
        (e.g. tests run of tests to run).
        """
        if self._run is not None:
            self._run.progress(progress, total, message)

    @inlineCallbacks
    def runTemplate(self, name, arguments, package=TEMPLATE_PACKAGE):
        """
        Render template C{name} (from C{package}) with C{arguments} and run
        it.

        A template that refuses or cannot find what it was asked for answers
        a dictionary holding C{gsmcpRefused} or C{gsmcpNotFound} (a
        message); those become tool errors here, in one place.

        @return: a L{Deferred} firing with the template body's value.
        @raise ToolError: when the Smalltalk raised an Error, refused, or
            did not find its subject.
        """
        source = Template.named(name, package).render(arguments,
                                                      MAX_RESULT_BYTES)
        if self._run is not None and self._run.why is not None:
            raise CallWithdrawn()
        running = self.gem.execute(source, MAX_RESULT_BYTES)
        if self._run is not None:
            self._run.current = running
        try:
            answer = yield running
        finally:
            if self._run is not None:
                self._run.current = None
        document = json.loads(answer.decode("utf-8"))
        self.needsCommit = document["needsCommit"]
        error = document.get("error")
        if error is not None:
            number = error.get("number") or 0
            raise ToolError(
                errorKindOf(number),
                f"{error.get('class')} (GemStone error {number}): "
                f"{error.get('message')}",
                {"number": number})
        value = document["result"]
        if isinstance(value, dict):
            for marker, kind in _MARKERS.items():
                if marker in value:
                    raise ToolError(kind, value[marker])
        returnValue(value)

    def requireRead(self, key, readTool):
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


_MARKERS = {"gsmcpRefused": "refused", "gsmcpNotFound": "notFound"}


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

    name = None
    title = ""
    instructions = ""
    declaredOptionNames = ()
    usesLogging = False

    def __init__(self, options=None):
        self._options = dict(options or {})
        undeclared = sorted(set(self._options) - set(self.declaredOptionNames))
        if undeclared:
            accepted = ", ".join(self.declaredOptionNames) or "none"
            raise ValueError(
                f"toolset {self.name!r} has no option "
                f"{', '.join(map(repr, undeclared))} (it accepts: {accepted})")

    def optionNamed(self, name, default):
        """
        An option's value, or C{default}: every option is optional, so the
        reader says what it does without one.
        """
        return self._options.get(name, default)

    def tools(self):
        """
        The tools this toolset serves, as L{Tool}s.
        """
        raise NotImplementedError()

    def resources(self):
        """
        The L{gsmcpd.surface.Resource}s this toolset serves.
        """
        return []

    def resourceTemplates(self):
        """
        The L{gsmcpd.surface.ResourceTemplate}s this toolset serves.
        """
        return []

    def prompts(self):
        """
        The L{gsmcpd.surface.Prompt}s this toolset serves.
        """
        return []

"""
Tools and toolsets: Python outside, Smalltalk inside.

A tool is declared here (name, closed JSON Schema, annotations, template)
and runs as one template on its session's GemStone session.  Python owns
everything the client sees: validation, error kinds, the text and the
structured result.
"""

import json

import attr
import jsonschema
from twisted.internet.defer import inlineCallbacks, returnValue

from gsmcpd.templates import Template

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

    kind: str
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

    def descriptor(self):
        """
        This tool as C{tools/list} describes it.
        """
        described = {"name": self.name, "title": self.title,
                     "description": self.description,
                     "inputSchema": self.inputSchema,
                     "annotations": dict(self.annotations, title=self.title)}
        if self.outputSchema is not None:
            described["outputSchema"] = self.outputSchema
        return described

    def validate(self, arguments):
        """
        Check C{arguments} against the input schema.

        @raise ToolError: of kind C{invalidParams}, naming what is wrong.
        """
        validator = jsonschema.Draft202012Validator(self.inputSchema)
        problems = sorted(validator.iter_errors(arguments), key=str)
        if problems:
            where = problems[0].json_path
            raise ToolError("invalidParams",
                            f"invalid arguments for {self.name}: "
                            f"{problems[0].message}"
                            + ("" if where == "$" else f" (at {where})"))


class ToolCall:
    """
    What a running tool may use: its session's GemStone session.

    @ivar needsCommit: whether the session held uncommitted changes after
        the last template this call ran, failed or not; L{None} before one.
    """

    def __init__(self, gem):
        self.gem = gem
        self.needsCommit = None

    @inlineCallbacks
    def runTemplate(self, name, arguments):
        """
        Render template C{name} with C{arguments} and run it.

        @return: a L{Deferred} firing with the template body's value.
        @raise ToolError: when the Smalltalk raised an Error.
        """
        source = Template.named(name).render(arguments, MAX_RESULT_BYTES)
        answer = yield self.gem.execute(source, MAX_RESULT_BYTES)
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
        returnValue(document["result"])


class Toolset:
    """
    A named pack of tools; a deployment chooses which toolsets it serves.

    Subclasses set L{name} and L{description} and implement L{tools}.
    """

    name = None
    description = ""

    def tools(self):
        """
        The tools this toolset serves, as L{Tool}s.
        """
        raise NotImplementedError()

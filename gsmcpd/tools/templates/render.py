"""
Smalltalk templates: how a tool's arguments become the source a stone runs.

Every tool's Smalltalk is one ``.st`` file in ``tools/templates``.  A file is
the body of a block: its own temporaries, then statements, the last of which
answers the tool's result (no ``^``).  Rendering wraps it in the shared
envelope (``_envelope.st``), which runs it under ``on: Error do:`` and answers
one UTF-8 JSON document::

    {"result": ..., "needsCommit": true}
    {"error": {"number": 2010, "class": "MessageNotUnderstood",
               "message": "..."}, "needsCommit": false}

so one GCI round trip brings back the result, the Smalltalk error if any, and
the state the ``[session]`` note needs; ``"viewMoved": true`` and
``"committed"`` when the session's view moved while it ran (the body, or
code it ran, committed, aborted or continued), ``committed`` left out (or
``null``) when the stone cannot say whether the move was a commit.  Arguments arrive as temporaries
assigned from literals at the top; user text reaches Smalltalk only through
L{stringLiteral}.
"""

import functools
import re
from importlib import resources

import attr

TEMPLATE_PACKAGE = "gsmcpd.tools.templates"

_IDENTIFIER = re.compile(r"\A[A-Za-z][A-Za-z0-9_]*\Z")
_ENVELOPE_TEMPS = ("gsmcpMaxBytes", "gsmcpMaxFrames", "gsmcpBody", "gsmcpOutcome",
                   "gsmcpNotes", "gsmcpFit", "gsmcpSlow", "gsmcpPrinting", "gsmcpFrameList", "gsmcpStack",
                   "gsmcpOut", "gsmcpJson", "gsmcpBytes", "gsmcpView", "gsmcpDirty",
                   "gsmcpResult")


def stringLiteral(text: str) -> str:
    """
    Quote C{text} as a Smalltalk String literal.

    The only way user text enters Smalltalk source: inside a literal a quote
    is written twice and nothing else is special, so no input can end it.
    """
    if not isinstance(text, str):
        raise TypeError(f"a string literal needs str, not {type(text).__name__}")
    return "'" + text.replace("'", "''") + "'"


def literal(value: object) -> str:
    """
    Write a JSON-shaped argument value as a Smalltalk literal.
    """
    if value is None:
        return "nil"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return stringLiteral(value)
    if isinstance(value, (list, tuple)):
        return "#(" + " ".join(literal(each) for each in value) + ")"
    raise TypeError(f"no Smalltalk literal for {type(value).__name__}")


@functools.cache
def loadTemplateText(name: str, package: str = TEMPLATE_PACKAGE) -> str:
    """
    Read one template file shipped in C{package}, once: templates are part
    of the installed code, not configuration.
    """
    return (resources.files(package) / f"{name}.st").read_text("utf-8")


def templateNames(package: str = TEMPLATE_PACKAGE) -> list[str]:
    """
    The name of every template shipped in C{package}, sorted: its C{.st}
    files except the shared parts (C{_envelope.st}), which no tool names
    but every template renders inside.  The selector test and the on-stone
    check both cover exactly these.
    """
    return sorted(entry.name[:-len(".st")]
                  for entry in resources.files(package).iterdir()
                  if entry.name.endswith(".st")
                  and not entry.name.startswith("_"))


@attr.s(frozen=True, auto_attribs=True)
class Template:
    """
    One tool's Smalltalk, ready to be filled with arguments.

    @ivar name: the template's name, written as the tag on the first line of
        what it renders (C{"gsmcp:<name>"}) so logs and the simulated stone
        can tell which template a source is.
    @ivar body: the block body read from C{<name>.st}.
    @ivar envelope: the shared envelope's statements.
    """

    name: str
    body: str
    envelope: str

    @classmethod
    @functools.cache
    def named(cls, name: str, package: str = TEMPLATE_PACKAGE) -> "Template":
        """
        Load the template C{name} from C{package} (a toolset of one's own
        ships its templates in a package of its own) and the shared
        envelope, once: every call of a tool renders the same template.
        """
        return cls(name, loadTemplateText(name, package),
                   loadTemplateText("_envelope"))

    def render(self, arguments: dict[str, object], maxBytes: int,
               frames: int = 0) -> str:
        """
        The complete source to execute.

        @param arguments: argument name to JSON-shaped value; each becomes a
            temporary assigned from a literal.
        @param maxBytes: the largest UTF-8 result the caller will fetch; the
            envelope answers an error document instead of a larger one.
        @param frames: how many frames of the stack an error's document
            holds (none: 0); a template reads it with C{gsmcpStack value:}.
        """
        return (f"{self._prologue(arguments, _ENVELOPE_TEMPS)}"
                f"gsmcpMaxBytes := {int(maxBytes)}.\n"
                f"gsmcpMaxFrames := {int(frames)}.\n"
                f"{self._tail}")

    def renderDebugged(self, arguments: dict[str, object]) -> str:
        """
        The source of a run that may stop (C{debug_run}): no envelope, so
        an Error reaches the debugger rather than a handler, and a stopped
        stack holds nothing of gsmcpd's but this doit and its block.
        """
        return (f"{self._prologue(arguments)}"
                f"[\n{self.body.rstrip()}] value\n")

    def _prologue(self, arguments: dict[str, object],
                  more: tuple[str, ...] = ()) -> str:
        """The tag, the temporaries and the arguments' assignments."""
        head = _head(self.name, tuple(arguments), more)
        return head + "".join([f"{name} := {literal(value)}.\n"
                               for name, value in arguments.items()])

    @functools.cached_property
    def _tail(self) -> str:
        """
        What follows the arguments, the same in every rendering.
        """
        return f"gsmcpBody := [\n{self.body.rstrip()}].\n{self.envelope}"


@functools.lru_cache(maxsize=1024)
def _head(template: str, names: tuple[str, ...],
          more: tuple[str, ...]) -> str:
    """
    A rendering's tag and temporaries, its argument names checked: made
    once for each template and set of names, since every call of a tool
    passes the same few (a refused name raises, and is not kept).
    """
    for name in names:
        if not _IDENTIFIER.match(name) or name.startswith("gsmcp"):
            raise ValueError(f"{name!r} cannot name a template argument")
    return f'"gsmcp:{template}"\n| {" ".join((*names, *more))} |\n'

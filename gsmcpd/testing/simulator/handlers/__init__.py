"""
Answer gsmcpd's templates the way their envelope would on a real stone.

Every source the daemon sends is a rendered template
(L{gsmcpd.tools.templates.render}):
a tag comment C{"gsmcp:<name>"}, the arguments as temporaries assigned from
literals, then the template body and the shared envelope.  The simulated
stone does not run the envelope; it reads the tag and the arguments, calls
the template's handler from L{HANDLERS}, and writes the envelope's answer
itself: C{{"result": ..., "needsCommit": ...}}, or C{{"error": {...},
"needsCommit": ...}} when the handler signalled an Error.  A handler is a
function C{(evaluator, arguments) -> JSON-shaped value}, registered with
L{handler}; adding a template to the model is adding one, in a module of
this package (each family of tools has its own: C{session}, C{listing},
C{browsing}, ...), which is imported here so that it registers by existing.

A handler that refuses, or cannot find what it was asked for, returns a
dict holding the key C{"gsmcpRefused"} or C{"gsmcpNotFound"} with a message
as its result, as the template would; the daemon makes those tool errors.
Code handlers read and write the repository through L{codeModel}.
"""

import functools
import importlib
import pkgutil

from gsmcpd import smalltalk
from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.evaluator import Evaluator, fromLiteral
from gsmcpd.testing.simulator.objects import String, printString

HANDLERS = {}

_TAG_PREFIX = "gsmcp:"


def handler(name):
    """
    Register the decorated function as the handler of template C{name}.
    """
    def register(function):
        HANDLERS[name] = function
        return function
    return register


def _sourceError(detail, source, offset):
    """
    A template that does not compile fails the GCI call itself (no envelope
    runs to catch it).
    """
    error = errors.compileError(detail, source, offset)
    return errors.GciError(error.number, error.description, reason="compileError")


def arguments(tree):
    """
    The template's arguments: its top-level temporaries assigned from
    literals, as Python values (Strings as C{str}).
    """
    found = {}
    for statement in tree.statements:
        if isinstance(statement, smalltalk.Assignment) \
                and isinstance(statement.value, smalltalk.Literal):
            value = fromLiteral(statement.value)
            found[statement.name] = value.text if isinstance(value, String) else value
    return found


_BODY_MARKER = "gsmcpBody := ["


@functools.lru_cache(maxsize=256)
def _checkBody(body, offset):
    """
    Check that a template's body and envelope compile, once per template
    (the body holds no argument values, so it is the same every call).
    Only the prologue, which holds the arguments, is parsed every time.
    """
    temps = "| gsmcpBody gsmcpOutcome gsmcpOut gsmcpJson gsmcpBytes |\n"
    try:
        smalltalk.parse_expression(temps + body)
    except smalltalk.SmalltalkSyntaxError as e:
        raise smalltalk.SmalltalkSyntaxError(
            e.message, e.offset - len(temps) + offset, e.line)


def answer(session, source):
    """
    The bytes the envelope would answer for C{source}, run in C{session}.
    A handler's C{gsmcpRefused}/C{gsmcpNotFound} dict is an ordinary result
    here; only the daemon reads it.

    @raise errors.GciError: the source is not a known template (a compile
        error, as a real stone would report one), or a break ended the call.
    """
    prologue, marker, body = source.partition(_BODY_MARKER)
    try:
        tree = smalltalk.parse_expression(prologue)
        tag = smalltalk.leading_comment(source)
        _checkBody(marker + body, len(prologue))
    except smalltalk.SmalltalkSyntaxError as e:
        raise _sourceError(e.message, source, e.offset) from None
    name = tag[len(_TAG_PREFIX):] if tag and tag.startswith(_TAG_PREFIX) else None
    if name not in HANDLERS:
        raise _sourceError(
            "the simulated stone answers only gsmcpd's templates, and this source "
            f"has no known tag (found {tag!r})", source, 0)
    args = arguments(tree)
    evaluator = Evaluator(session)
    outcome = {}
    try:
        outcome["result"] = HANDLERS[name](evaluator, args)
    except errors.SmalltalkError as e:
        outcome["error"] = {"number": e.number, "class": e.className, "message": e.description}
    outcome["needsCommit"] = session.transaction.needsCommit
    encoded = toJson(outcome).encode("utf-8")
    maxBytes = args.get("gsmcpMaxBytes")
    if isinstance(maxBytes, int) and len(encoded) > maxBytes:
        encoded = toJson({
            "error": {"number": 0, "class": "gsmcpd",
                      "message": f"the result is {len(encoded)} bytes, over the "
                                 f"daemon's limit of {maxBytes}"},
            "needsCommit": outcome["needsCommit"]}).encode("utf-8")
    return encoded


def toJson(value):
    """
    JSON exactly as the envelope's writer produces it: compact, only C{"}
    and C{\\} and control characters escaped, non-strings that are not
    numbers, Booleans, nil, dictionaries or lists written as their
    printString in quotes.
    """
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{toJson(str(k))}:{toJson(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(toJson(each) for each in value) + "]"
    text = value if isinstance(value, str) else printString(value)
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 32:
            out.append(f"\\u00{ord(c):02x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def codeModel(evaluator):
    """
    The code repository as the evaluator's session sees it (the one the
    evaluator runs compiled methods from).
    """
    return evaluator.code


for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

"""
What the compiler said, told to a client: compile errors located by line
and column, and the report of a class definition.
"""



from collections.abc import Iterable, Sequence

from gsmcpd.smalltalk import SmalltalkSyntaxError, parse_method, parse_selector
from gsmcpd.tools.arguments import JsonObject
from gsmcpd.tools.base import ToolError, resultSchema
from gsmcpd.tools.ledger import describeKey, methodKey

COMPILE_ERROR_SCHEMA = resultSchema(
    line={"type": "integer"}, column={"type": "integer"},
    offset={"type": "integer"}, number={"type": ["integer", "null"]},
    message={"type": "string"})
"""One error the compiler reported: where (1-based) and what it said."""


def methodName(className: str, selector: str, meta: bool) -> str:
    """
    How a method is named to the client: C{Account class>>new}.
    """
    return describeKey(methodKey(className, selector, meta))


def locatedErrors(source: str,
                  errors: Iterable[JsonObject]) -> list[JsonObject]:
    """
    The compiler's errors with the line and column of each 1-based source
    offset, so a client can point at the place.
    """
    located = []
    for error in errors:
        offset = max(int(error["offset"]), 1)
        lineStart = source.rfind("\n", 0, offset - 1) + 1
        located.append({
            "line": source.count("\n", 0, offset - 1) + 1,
            "column": offset - lineStart, "offset": offset,
            "number": error.get("number"), "message": error["message"]})
    return located


def describeErrors(errors: Sequence[JsonObject]) -> str:
    """
    One line per located compile error.
    """
    if not errors:
        return "the compiler gave no details"
    return "\n".join(f"line {e['line']}, column {e['column']}: {e['message']}"
                     for e in errors)


def compileError(headline: str, subject: JsonObject,
                 errors: Sequence[JsonObject]) -> ToolError:
    """
    The C{compileError} tool error: the headline, then one line per error.
    """
    return ToolError("compileError",
                     f"{headline}:\n{describeErrors(errors)}",
                     dict(subject, errors=errors))


def definitionReport(result: JsonObject) -> str:
    """
    The text of a class definition's result: what happened, then each
    method that did not survive a new version.
    """
    name = result["className"]
    if result["created"]:
        lines = [f"Defined class {name} in {result['dictionary']}."]
    elif not result["changed"]:
        lines = [f"{name} is unchanged: the definition is the same."]
    elif not result["newVersion"]:
        lines = [f"Redefined {name} in place (same shape; no new version)."]
    else:
        lines = [f"Redefined {name}: a new class version; recompiled "
                 f"{result['recompiled']} methods, "
                 f"{len(result['failures'])} failed, "
                 f"{len(result['dropped'])} dropped."]
    for failure in result["failures"]:
        named = methodName(name, failure["selector"], failure["meta"])
        lines.append(f"failed: {named}: "
                     + describeErrors(failure["errors"]).replace("\n", "; "))
    for dropped in result["dropped"]:
        lines.append("dropped: "
                     + methodName(name, dropped["selector"], dropped["meta"]))
    return "\n".join(lines)


def unreadMethodsRefusal(className: str, unread: list[str]) -> ToolError:
    """
    The refusal of a class redefinition that may drop methods this session
    has not read.
    """
    return ToolError(
        "refused", f"Redefining {className} this way (dropping an instance "
        f"variable, or without recompiling) may drop methods this session "
        f"has not read in its present view: {', '.join(unread[:20])}"
        f"{' and more' if len(unread) > 20 else ''}; read them with "
        f"get_method_source first, then retry.", {"unreadMethods": unread})


PARSE_LIMIT = 64 << 10
"""Characters of method source checked here before it is sent; of a longer
one only the pattern is read, for the selector the guardrail needs."""


def definedSelector(className: str, meta: bool, source: str) -> str:
    """
    The selector C{source} defines, for the guardrail.  A long source is
    left to the stone's compiler but for its pattern: parsing a megabyte
    would stall every other client.

    @raise ToolError: C{compileError}, when it does not parse.
    """
    try:
        return parse_selector(source) if len(source) > PARSE_LIMIT \
            else parse_method(source).selector
    except SmalltalkSyntaxError as e:
        offset, message = e.offset + 1, e.message
    except RecursionError:
        offset, message = 1, "blocks or expressions nest too deeply to parse"
    raise compileError(
        f"The method source for {className} does not parse",
        {"className": className, "meta": meta, "selector": None},
        locatedErrors(source, [{"offset": offset, "number": None,
                                "message": message}]))

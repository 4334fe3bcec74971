"""
What the compiler said, told to a client: compile errors located by line
and column, and the report of a class definition.
"""

from gsmcpd.tools.base import ToolError, closedSchema
from gsmcpd.tools.ledger import describeKey, methodKey

COMPILE_ERROR_SCHEMA = closedSchema({
    "line": {"type": "integer"}, "column": {"type": "integer"}, "offset": {"type": "integer"},
    "number": {"type": ["integer", "null"]}, "message": {"type": "string"}},
    required=["line", "column", "offset", "number", "message"])
"""One error the compiler reported: where (1-based) and what it said."""


def methodName(className, selector, meta):
    """
    How a method is named to the client: C{Account class>>new}.
    """
    return describeKey(methodKey(className, selector, meta))


def locatedErrors(source, errors):
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


def describeErrors(errors):
    """
    One line per located compile error.
    """
    if not errors:
        return "the compiler gave no details"
    return "\n".join(f"line {e['line']}, column {e['column']}: {e['message']}"
                     for e in errors)


def compileError(headline, subject, errors):
    """
    The C{compileError} tool error: the headline, then one line per error.
    """
    return ToolError("compileError",
                     f"{headline}:\n{describeErrors(errors)}",
                     dict(subject, errors=errors))


def definitionReport(result):
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

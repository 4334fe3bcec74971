"""
C{find_code}: methods whose parse trees match a Refactoring Browser pattern
(L{gsmcpd.smalltalk.pattern}).

The stone is asked only for the senders of one selector the pattern sends
(every match sends it too), a window at a time, until the page is full: a
search costs what C{find_senders} costs plus parsing the senders read
here, not a read of every source.  When it stops early its total is not
known, as for C{search_method_source}.
"""

from typing import Any

from twisted.internet.defer import inlineCallbacks

from gsmcpd.smalltalk import SmalltalkSyntaxError, parse_method
from gsmcpd.smalltalk.pattern import compilePattern, matches, selectorsOf
from gsmcpd.tools.arguments import (
    BOOLEAN,
    INTEGER,
    STRING,
    JsonObject,
    nonEmptyArgument,
    stringArgument,
)
from gsmcpd.tools.base import (
    Steps,
    Tool,
    ToolCall,
    ToolError,
    ToolResult,
    annotations,
    closedSchema,
    resultSchema,
)
from gsmcpd.tools.paging import PAGE_SCHEMA, pagingProperties, scanned, window

FIND_LIMIT = 50
"""The default page: each match carries its text."""

SENDERS_READ = 100
"""The senders read at a time, with their sources: a common selector's
would not fit one answer."""

SCOPE = stringArgument("all (default), class:Name, hierarchy:Name (the "
                       "class and its subclasses) or dictionary:Name")


def scopeOf(arguments: JsonObject) -> tuple[str, str | None]:
    """C{scope} as refactoring_sources takes it: a kind and a name."""
    scope = arguments.get("scope", "all")
    kind, _, name = scope.partition(":")
    if scope == "all":
        return "all", None
    if kind not in ("class", "hierarchy", "dictionary") or not name:
        raise ToolError("invalidParams", f"scope {scope!r} is not all, "
                        f"class:Name, hierarchy:Name or dictionary:Name")
    return kind, name


def findCodeTool() -> Tool:
    return Tool(
        "find_code", "Find code",
        "Methods whose code matches a Refactoring Browser pattern: `x any "
        "variable, `@x any expression, `#x any literal (e.g. `@r perform: "
        "`#s with: `@a); it must send a selector.",
        closedSchema({"pattern": nonEmptyArgument(), "scope": SCOPE,
                      **pagingProperties(FIND_LIMIT)}, required=["pattern"]),
        annotations(True), findCode,
        resultSchema(matches={"type": "array", "items": resultSchema(
            className=STRING, meta=BOOLEAN, selector=STRING, line=INTEGER,
            text=STRING)}, page=PAGE_SCHEMA))


@inlineCallbacks
def findCode(call: ToolCall, arguments: JsonObject) -> Steps[ToolResult]:
    try:
        pattern = compilePattern(arguments["pattern"])
    except SmalltalkSyntaxError as e:
        raise ToolError("invalidParams", f"The pattern does not parse: {e}")
    except RecursionError:
        raise ToolError("invalidParams", "The pattern nests too deeply "
                        "to parse")
    selectors = selectorsOf(pattern)
    if not selectors:
        raise ToolError("invalidParams", "The pattern sends no message: "
                        "find_code looks among the senders of one it sends "
                        "(find_references_to finds a variable's users).")
    kind, name = scopeOf(arguments)
    offset, limit = window(arguments, FIND_LIMIT)
    found: list[JsonObject] = []
    read, total = 0, None
    while total is None or read < total:
        # A window of senders at a time: stop one match past the page.
        value = yield call.runTemplate("refactoring_sources", {
            "selector": max(selectors, key=len), "newSelector": None,
            "global": None, "scopeKind": kind, "scopeName": name,
            "mentions": False, "sendersOffset": read,
            "sendersLimit": SENDERS_READ})
        total = value["sendersTotal"]
        read += SENDERS_READ
        for row in value["senders"]:
            if row[5]:
                found += matchedIn(pattern, row)
        if limit and len(found) > offset + limit:
            break
    shown = found[offset:] if limit is None else found[offset:offset + limit + 1]
    page = scanned(shown, arguments, len(found), FIND_LIMIT)
    lines = [f"{m['className']}{' class' if m['meta'] else ''}>>"
             f"{m['selector']} line {m['line']}: {m['text']}"
             for m in page.items]
    return ToolResult("\n".join([page.header(), *lines]),
                      {"matches": page.items, "page": page.structured()})


def matchedIn(pattern: Any, row: list[Any]) -> list[JsonObject]:
    """The matches of C{pattern} in one method (a refactoring_sources row);
    none in a method the parser cannot read."""
    source = row[4]
    try:
        found = list(matches(pattern, parse_method(source)))
    except (SmalltalkSyntaxError, RecursionError):
        return []
    return [{"className": row[0], "meta": row[1], "selector": row[2],
             "line": source.count("\n", 0, m.offset) + 1,
             "text": source[m.offset:m.end]} for m in found]

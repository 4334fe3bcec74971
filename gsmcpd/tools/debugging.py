"""
The Debugging toolset: look at the objects behind a result or a failure,
as GemStone's inspectors do, and where code spends its time, as its
profiler counts it (L{gsmcpd.tools.profiling}).

C{inspect} answers an object's class, id, size, named instance variables
and a page of its elements, each with an id to inspect next.  An id is
valid in the session and view that answered it: the session's read ledger
keeps the ids shown (forgotten when the view moves), and the stone resolves
one only through the objects it holds for this session, so an id from
another session or an earlier view is refused, never taken for whatever
object now has that number.
"""





from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import (
    INTEGER,
    MAX_INTEGER,
    MAX_NAME_LENGTH,
    MAX_TEXT_LENGTH,
    STRING,
    JsonObject,
)
from gsmcpd.tools.base import (
    Steps,
    Tool,
    ToolCall,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    counted,
    resultSchema,
)
from gsmcpd.tools.profiling import profileCodeTool
from gsmcpd.tools.templates.outcomes import ToolError

PRINT_LIMIT = 120
"""Bytes of JSON each printString takes at most, as escaped (a control
character 6, a quote 2, a non-ASCII character its UTF-8 length); a
collection shows its class and size instead, so none is ever printed
whole."""

PAGE_BYTES = 49_000
"""Bytes the stone lets one answer take on the wire, counted as each value
is added: a page ends early rather than pass it (and says where the next
begins), so an answer stays under 50 KB whatever its keys and values hold."""

DEFAULT_LIMIT = 25
MAX_LIMIT = 100
"""Elements in one page, at most: the page may end before, at PAGE_BYTES."""

MAX_PATH = 32

OPTIONAL_INTEGER = {"type": ["integer", "null"]}

VALUE_SCHEMA = resultSchema(**{"class": STRING}, object=INTEGER,
                            printString=STRING, truncated={"type": "boolean"},
                            printSize=INTEGER, printFailed={"type": "boolean"})
"""One value: its class, id and capped printString, how many characters
the whole printString has, and whether making it failed (the printString
then says how)."""

VARIABLE_SCHEMA = resultSchema(name=STRING, value=VALUE_SCHEMA)
ELEMENT_SCHEMA = resultSchema(index=OPTIONAL_INTEGER,
                              key={**VALUE_SCHEMA, "type": ["object", "null"]},
                              value=VALUE_SCHEMA)

KINDS = ("object", "string", "sequence", "dictionary", "collection")


def value(described: JsonObject) -> JsonObject:
    """
    One value of the template's answer as the result holds it.
    """
    return {"class": described["class"], "object": described["object"],
            "printString": described["printString"],
            "truncated": described["printSize"] > len(described["printString"]),
            "printSize": described["printSize"],
            "printFailed": described["printFailed"]}


def shown(found: JsonObject) -> str:
    """
    A value as a line of the text: its printString, class and id.
    """
    cut = (f"… ({len(found['printString'])} of {found['printSize']} characters)"
           if found["truncated"] else "")
    return f"{found['printString']}{cut}  ({found['class']}, id {found['object']})"


class DebuggingToolset(Toolset):
    name = "debugging"
    title = "Debugging"
    instructions = (
        "When a call fails, inspect what it involved (the failing frame's "
        "receiver, then ids and paths) before changing code; ids last until "
        "the view moves (commit, abort, refresh, or code sending them). For "
        "slow code, profile_code before optimising.")

    def tools(self) -> list[Tool]:
        return [Tool(
            "inspect", "Inspect object",
            "An object's class, id, size, instance variables and a page of "
            "elements (entries by key), each with an id. Give an expression "
            "(it runs as execute_code's code: it can change and commit), or "
            "an id inspect answered; path walks variable names, keys and "
            "indices from there.",
            closedSchema({
                "expression": {"type": "string", "minLength": 1,
                               "maxLength": MAX_TEXT_LENGTH},
                "object": {"type": "integer", "minimum": 1},
                "path": {"type": "array", "maxItems": MAX_PATH,
                         "items": {"anyOf": [
                             {"type": "string", "maxLength": MAX_NAME_LENGTH},
                             {"type": "integer", "maximum": MAX_INTEGER}]},
                         "description": "e.g. [\"accounts\", 3, \"owner\"]"},
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1,
                          "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}}),
            annotations(readOnly=False, destructive=True), self.inspect,
            resultSchema(
                object=INTEGER, printString=STRING, truncated={"type": "boolean"},
                printSize=INTEGER, printFailed={"type": "boolean"},
                kind={"type": "string", "enum": list(KINDS)},
                size=OPTIONAL_INTEGER, path={"type": "array"},
                variables={"type": "array", "items": VARIABLE_SCHEMA},
                omittedVariables=INTEGER, offset=INTEGER,
                elements={"type": "array", "items": ELEMENT_SCHEMA},
                **{"class": STRING})),
            profileCodeTool()]

    @inlineCallbacks
    def inspect(self, call: ToolCall,
                arguments: JsonObject) -> Steps[ToolResult]:
        expression = arguments.get("expression")
        object = arguments.get("object")
        if (expression is None) == (object is None):
            raise ToolError("invalidParams", "inspect takes an expression or "
                            "an object id, not both and not neither")
        if object is not None and not call.ledger.knowsObject(object):
            raise ToolError(
                "refused", f"Object id {object} was not answered in this "
                "session's present view: an id is valid only in the session "
                "(handle) and view that answered it, until the view moves "
                "(commit, abort or refresh, or code that sends them). "
                "Inspect an expression to get a fresh one.")
        offset = arguments.get("offset", 0)
        found = yield call.runTemplate("inspect", {
            "expression": expression, "object": object,
            "path": list(arguments.get("path", ())), "offset": offset,
            "limit": arguments.get("limit", DEFAULT_LIMIT),
            "printLimit": PRINT_LIMIT, "pageBytes": PAGE_BYTES,
            "fresh": not call.ledger.objectsShown})
        return self._answer(call, found, offset)

    def _answer(self, call: ToolCall, found: JsonObject,
                offset: int) -> ToolResult:
        described = value(found["described"])
        variables = [{"name": each["name"], "value": value(each)}
                     for each in found["variables"]]
        elements = [{"index": each.get("index"),
                     "key": value(each["key"]) if "key" in each else None,
                     "value": value(each["value"])}
                    for each in found["elements"]]
        call.ledger.recordObjects(
            [described["object"]]
            + [each["value"]["object"] for each in variables]
            + [each["value"]["object"] for each in elements]
            + [each["key"]["object"] for each in elements if each["key"]])
        structured = dict(described, kind=found["kind"], size=found["size"],
                          path=found["path"], variables=variables,
                          omittedVariables=found["omittedVariables"],
                          offset=offset, elements=elements)
        return ToolResult(_text(structured), structured)


def _text(result: JsonObject) -> str:
    lines = [shown(result)]
    if result["path"]:
        lines[0] += "  at path " + " ".join(map(repr, result["path"]))
    if result["size"] is not None:
        lines.append(f"size: {result['size']}")
    for each in result["variables"]:
        lines.append(f"  {each['name']}: {shown(each['value'])}")
    if result["omittedVariables"]:
        lines.append(f"  (and {counted(result['omittedVariables'], 'more instance variable')}"
                     f": the page is full)")
    for each in result["elements"]:
        where = (shown(each["key"]) if each["key"] is not None
                 else f"[{each['index']}]" if each["index"] is not None else "-")
        lines.append(f"  {where} -> {shown(each['value'])}")
    shownCount = len(result["elements"])
    if result["size"] is not None and result["kind"] != "string" and \
            result["offset"] + shownCount < result["size"]:
        lines.append(
            f"(showing {counted(shownCount, 'element')} from offset "
            f"{result['offset']} of {result['size']}; pass offset "
            f"{result['offset'] + shownCount} for more)")
    lines.append("Ids are valid in this session until the view moves "
                 "(commit, abort, refresh).")
    return "\n".join(lines)

"""
The Search toolset: implementors, senders, references, and source text.

The three cross-reference searches ask a C{ClassOrganizer} built from the
session's symbol list, sort in the stone and answer one page with the true
total, because senders of a common selector can number in the thousands.
The source search cannot know its total without reading every method, so
it stops one hit past the page and says the total is not known.
"""



from collections.abc import Callable, Sequence
from typing import Any

from twisted.internet.defer import Deferred, inlineCallbacks

from gsmcpd.tools.arguments import JsonObject, Schema, nonEmptyArgument
from gsmcpd.tools.base import (
    METHOD_SCHEMA,
    Steps,
    Tool,
    ToolCall,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    resultSchema,
)
from gsmcpd.tools.paging import PAGE_SCHEMA, Page, pagingProperties, scanned

SEARCH_LIMIT = 200
"""The default page of every search (the reference's): about 33 KB on a
kernel-sized repository, where C{printOn:} has hundreds of implementors and
C{size} thousands of senders."""

OUTPUT_SCHEMA = resultSchema(
    methods={"type": "array", "items": METHOD_SCHEMA}, page=PAGE_SCHEMA)


def methodEntry(row: Sequence[Any]) -> JsonObject:
    """
    A template's C{[className, meta, selector, category]} row as an object.
    """
    className, meta, selector, category = row
    return {"className": className, "meta": meta, "selector": selector,
            "category": category}


def methodLine(entry: JsonObject) -> str:
    """
    C{Account class>>new  [instance creation]}.
    """
    side = " class" if entry["meta"] else ""
    category = "" if entry["category"] is None else f"  [{entry['category']}]"
    return f"{entry['className']}{side}>>{entry['selector']}{category}"


def methodsResult(page: Page) -> ToolResult:
    """
    The text (header, then one method a line) and structure of a page.
    """
    text = "\n".join([page.header(), *map(methodLine, page.items)])
    return ToolResult(text, {"methods": page.items,
                             "page": page.structured()})


class SearchToolset(Toolset):
    name = "search"
    title = "Search"
    instructions = (
        "The find_ tools use the class organizer and are fast; "
        "search_method_source reads source and is slow.")

    def tools(self) -> list[Tool]:
        return [
            self._finder(
                "find_implementors", "Find implementors",
                "Methods implementing a selector, sorted by class.",
                "selector", nonEmptyArgument("e.g. printOn:"),
                SEARCH_LIMIT, self.findImplementors),
            self._finder(
                "find_references_to", "Find references",
                "Methods referring to a class or other global, sorted by "
                "class then selector.",
                "name", nonEmptyArgument("e.g. Account"),
                SEARCH_LIMIT, self.findReferencesTo),
            self._finder(
                "find_senders", "Find senders",
                "Methods sending a selector, sorted by class then selector.",
                "selector", nonEmptyArgument("e.g. deposit:"),
                SEARCH_LIMIT, self.findSenders),
            Tool(
                "search_method_source", "Search source",
                "Methods whose source contains a substring (case-"
                "sensitive), in symbol-list order.",
                closedSchema({
                    "pattern": nonEmptyArgument(),
                    "dictionaryName": nonEmptyArgument(
                        "only this dictionary: faster"),
                    **pagingProperties(SEARCH_LIMIT)},
                    required=["pattern"]),
                annotations(True),
                self.searchMethodSource,
                OUTPUT_SCHEMA),
        ]

    def _finder(self, name: str, title: str, description: str, argument: str,
                argumentSchema: Schema, defaultLimit: int,
                run: Callable[[ToolCall, JsonObject], Deferred[ToolResult]],
                ) -> Tool:
        """
        A cross-reference search: one required argument, paged.
        """
        return Tool(
            name, title, description,
            closedSchema({argument: argumentSchema,
                          **pagingProperties(defaultLimit)},
                         required=[argument]),
            annotations(True), run, OUTPUT_SCHEMA)

    @inlineCallbacks
    def _find(self, call: ToolCall, template: str, arguments: JsonObject,
              argument: str) -> Steps[ToolResult]:
        offset = arguments.get("offset", 0)
        limit = arguments.get("limit", SEARCH_LIMIT)
        value = yield call.runTemplate(template, {
            argument: arguments[argument], "offset": offset, "limit": limit})
        return methodsResult(Page(
            [methodEntry(row) for row in value["methods"]],
            offset, limit, value["total"]))

    def findImplementors(self, call: ToolCall,
                         arguments: JsonObject) -> Deferred[ToolResult]:
        return self._find(call, "find_implementors", arguments, "selector")

    def findReferencesTo(self, call: ToolCall,
                         arguments: JsonObject) -> Deferred[ToolResult]:
        return self._find(call, "find_references_to", arguments, "name")

    def findSenders(self, call: ToolCall,
                    arguments: JsonObject) -> Deferred[ToolResult]:
        return self._find(call, "find_senders", arguments, "selector")

    @inlineCallbacks
    def searchMethodSource(self, call: ToolCall,
                           arguments: JsonObject) -> Steps[ToolResult]:
        offset = arguments.get("offset", 0)
        limit = arguments.get("limit", SEARCH_LIMIT)
        value = yield call.runTemplate("search_method_source", {
            "pattern": arguments["pattern"],
            "dictionaryName": arguments.get("dictionaryName"),
            "offset": offset,
            # No limit is a count: the scan runs to the end, keeping no hit.
            "limit": limit or None})
        hits = [methodEntry(row) for row in value["hits"]]
        return methodsResult(
            scanned(hits, arguments, value["seen"], SEARCH_LIMIT))

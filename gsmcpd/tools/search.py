"""
The Search toolset: implementors, senders, references, and source text.

The three cross-reference searches ask a C{ClassOrganizer} built from the
session's symbol list, sort in the stone and answer one page with the true
total, because senders of a common selector can number in the thousands.
The source search cannot know its total without reading every method, so
it stops one hit past the page and says the total is not known.
"""

from twisted.internet.defer import inlineCallbacks, returnValue

from gsmcpd.tools.base import (
    Tool, ToolResult, Toolset, annotations, closedSchema, resultSchema)
from gsmcpd.tools.arguments import stringArgument
from gsmcpd.tools.paging import PAGE_SCHEMA, Page, pagingProperties, scanned

SEARCH_LIMIT = 200
"""The default page of the searches that can be long (the reference's)."""

METHOD_SCHEMA = resultSchema(
    className={"type": "string"}, meta={"type": "boolean"},
    selector={"type": "string"}, category={"type": ["string", "null"]})

OUTPUT_SCHEMA = resultSchema(
    methods={"type": "array", "items": METHOD_SCHEMA}, page=PAGE_SCHEMA)


def methodEntry(row):
    """
    A template's C{[className, meta, selector, category]} row as an object.
    """
    className, meta, selector, category = row
    return {"className": className, "meta": meta, "selector": selector,
            "category": category}


def methodLine(entry):
    """
    C{Account class>>new  [instance creation]}.
    """
    side = " class" if entry["meta"] else ""
    category = "" if entry["category"] is None else f"  [{entry['category']}]"
    return f"{entry['className']}{side}>>{entry['selector']}{category}"


def methodsResult(page):
    """
    The text (header, then one method a line) and structure of a page.
    """
    text = "\n".join([page.header(), *map(methodLine, page.items)])
    return ToolResult(text, {"methods": page.items,
                             "page": page.structured()})


def _nonEmpty(description=None):
    return stringArgument(description, minLength=1)


class SearchToolset(Toolset):
    name = "search"
    title = "Search"
    instructions = (
        "find_implementors, find_senders and find_references_to use the "
        "class organizer and are fast; search_method_source reads source, "
        "which is slow: pass dictionaryName when you can.")

    def tools(self):
        return [
            self._finder(
                "find_implementors", "Find implementors",
                "Methods that implement a selector, in every class in the "
                "symbol list, sorted by class then selector.",
                "selector", _nonEmpty("the selector, e.g. printOn:"),
                None, self.findImplementors),
            self._finder(
                "find_references_to", "Find references",
                "Methods that refer to a global (a class or another "
                "symbol-list entry) by name, sorted by class then "
                "selector. A name that is not in the symbol list is "
                "notFound.",
                "name", _nonEmpty("the global's name, e.g. Account"),
                None, self.findReferencesTo),
            self._finder(
                "find_senders", "Find senders",
                f"Methods that send a selector, sorted by class then "
                f"selector, {SEARCH_LIMIT} at a time by default, with the "
                f"true total.",
                "selector", _nonEmpty("the selector, e.g. deposit:"),
                SEARCH_LIMIT, self.findSenders),
            Tool(
                "search_method_source", "Search method source",
                "Methods whose source contains a substring (case-"
                "sensitive), in scan order: dictionaries in symbol-list "
                "order, classes by name, instance side first, selectors "
                "sorted. The scan stops one hit past the page, so the total "
                "is known only if it ran to the end; limit: 0 scans all to "
                "count.",
                closedSchema({
                    "pattern": _nonEmpty(),
                    "dictionaryName": _nonEmpty(
                        "only this symbol dictionary's classes: far faster "
                        "than the whole symbol list"),
                    **pagingProperties(SEARCH_LIMIT)},
                    required=["pattern"]),
                annotations(True),
                self.searchMethodSource,
                OUTPUT_SCHEMA),
        ]

    def _finder(self, name, title, description, argument, argumentSchema,
                defaultLimit, run):
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
    def _find(self, call, template, arguments, argument, defaultLimit=None):
        offset = arguments.get("offset", 0)
        limit = arguments.get("limit", defaultLimit)
        value = yield call.runTemplate(template, {
            argument: arguments[argument], "offset": offset, "limit": limit})
        returnValue(methodsResult(Page(
            [methodEntry(row) for row in value["methods"]],
            offset, limit, value["total"])))

    def findImplementors(self, call, arguments):
        return self._find(call, "find_implementors", arguments, "selector")

    def findReferencesTo(self, call, arguments):
        return self._find(call, "find_references_to", arguments, "name")

    def findSenders(self, call, arguments):
        return self._find(call, "find_senders", arguments, "selector",
                          SEARCH_LIMIT)

    @inlineCallbacks
    def searchMethodSource(self, call, arguments):
        offset = arguments.get("offset", 0)
        limit = arguments.get("limit", SEARCH_LIMIT)
        value = yield call.runTemplate("search_method_source", {
            "pattern": arguments["pattern"],
            "dictionaryName": arguments.get("dictionaryName"),
            "offset": offset,
            # No limit is a count: the scan runs to the end, keeping no hit.
            "limit": limit or None})
        hits = [methodEntry(row) for row in value["hits"]]
        returnValue(methodsResult(
            scanned(hits, arguments, value["seen"], SEARCH_LIMIT)))

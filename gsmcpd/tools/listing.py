"""
The Listing toolset: which dictionaries, classes and globals there are.

Each template answers its whole list unsorted; sorting and paging happen
here, so the page a client asks for is a window onto one sorted list and the
header's total is the true one.  Each pages by default at L{LIST_LIMIT}
names: a real stone's Globals holds 1,500 classes, and the header says
which offset fetches the rest.
"""



from collections.abc import Callable, Sequence
from typing import Any

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import (
    OPTIONAL_STRING,
    STRING,
    JsonObject,
    Schema,
    nonEmptyArgument,
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
from gsmcpd.tools.ledger import dictionaryKey
from gsmcpd.tools.paging import LIST_LIMIT, PAGE_SCHEMA, page, pagingProperties, window

UNNAMED = "(unnamed)"
"""How text shows a dictionary that has no name (it does not hold itself)."""

CLASS_ITEM = resultSchema(className=STRING, dictionary=OPTIONAL_STRING)


def nameOrder(name: str) -> tuple[str, str]:
    """
    The sort key of a name: case-insensitive, ties broken by case, so the
    order does not hide C{Foo} far from C{foo}.
    """
    return name.lower(), name


def pagedResult(items: Sequence[Any], arguments: JsonObject, listKey: str,
                line: Callable[[Any], str],
                extra: JsonObject | None = None) -> ToolResult:
    """
    The page of C{items} (already sorted) that C{arguments} ask for: the
    header line first, then one line per item.

    @param line: renders one item as its line of text.
    @param extra: members of the structured result besides the list and
        the page.
    """
    window = page(items, arguments, LIST_LIMIT)
    lines = [window.header()] + [line(item) for item in window.items]
    structured = dict(extra or {}, page=window.structured())
    structured[listKey] = window.items
    return ToolResult("\n".join(lines), structured)


def pagedSchema(listKey: str, itemSchema: Schema,
                extra: Schema | None = None) -> Schema:
    """
    The output schema of a result L{pagedResult} builds.
    """
    properties = dict(extra or {}, page=PAGE_SCHEMA)
    properties[listKey] = {"type": "array", "items": itemSchema}
    return resultSchema(**properties)


class ListingToolset(Toolset):
    name = "listing"
    title = "Listing"
    instructions = (
        "A list's header line says which offset fetches the next page.")

    def tools(self) -> list[Tool]:
        readOnly = annotations(readOnly=True)
        dictionaryArgument = {"dictionaryName": nonEmptyArgument()}
        return [
            Tool("list_all_classes", "All classes",
                 "Every class in your symbol list, sorted, with its "
                 "dictionary.",
                 closedSchema(pagingProperties(LIST_LIMIT)), readOnly,
                 self.listAllClasses, pagedSchema("classes", CLASS_ITEM)),
            Tool("list_classes", "Dictionary classes",
                 "The classes a symbol dictionary holds, sorted.",
                 closedSchema(dict(dictionaryArgument, **pagingProperties(LIST_LIMIT)),
                              required=["dictionaryName"]),
                 readOnly, self.listClasses,
                 pagedSchema("classes", CLASS_ITEM)),
            Tool("list_dictionaries", "Dictionaries",
                 "Your symbol list's dictionaries in lookup order (a name "
                 "resolves to the first that has it), with entry counts.",
                 closedSchema(), readOnly, self.listDictionaries,
                 resultSchema(dictionaries={
                     "type": "array",
                     "items": resultSchema(name=OPTIONAL_STRING,
                                           entries={"type": "integer"})})),
            Tool("list_dictionary_entries", "Dictionary entries",
                 "A symbol dictionary's entries, sorted, each a class or a "
                 "global.",
                 closedSchema(dict(dictionaryArgument, **pagingProperties(LIST_LIMIT)),
                              required=["dictionaryName"]),
                 readOnly, self.listDictionaryEntries,
                 pagedSchema("entries", resultSchema(
                     name=STRING,
                     kind={"enum": ["class", "global"]}),
                     {"dictionary": STRING})),
        ]

    @inlineCallbacks
    def listAllClasses(self, call: ToolCall,
                       arguments: JsonObject) -> Steps[ToolResult]:
        found = yield call.runTemplate("list_all_classes", {})
        classes = sorted(
            {(name, dictionary["dictionary"])
             for dictionary in found for name in dictionary["classes"]},
            key=lambda pair: (nameOrder(pair[0]), pair[1] or ""))
        return pagedResult(
            [{"className": name, "dictionary": dictionary}
             for name, dictionary in classes],
            arguments, "classes",
            lambda item:
                f"{item['className']}  ({item['dictionary'] or UNNAMED})")

    @inlineCallbacks
    def listClasses(self, call: ToolCall,
                    arguments: JsonObject) -> Steps[ToolResult]:
        dictionary = arguments["dictionaryName"]
        names = yield call.runTemplate("list_classes",
                                       {"dictionaryName": dictionary})
        offset, limit = window(arguments, LIST_LIMIT)
        if offset == 0 and (limit is None or limit >= len(set(names))):
            # Seen whole, which removing the dictionary asks for.
            call.ledger.recordRead(dictionaryKey(dictionary),
                                   " ".join(sorted(set(names))))
        return pagedResult(
            [{"className": name, "dictionary": dictionary}
             for name in sorted(set(names), key=nameOrder)],
            arguments, "classes", lambda item: item["className"])

    @inlineCallbacks
    def listDictionaries(self, call: ToolCall,
                         arguments: JsonObject) -> Steps[ToolResult]:
        found = yield call.runTemplate("list_dictionaries", {})
        dictionaries = [{"name": each["name"], "entries": each["size"]}
                        for each in found]
        text = "\n".join(
            f"{each['name'] or UNNAMED}  "
            f"({counted(each['entries'], 'entry', 'entries')})"
            for each in dictionaries)
        return ToolResult(text or "(none)",
                               {"dictionaries": dictionaries})

    @inlineCallbacks
    def listDictionaryEntries(self, call: ToolCall,
                              arguments: JsonObject) -> Steps[ToolResult]:
        dictionary = arguments["dictionaryName"]
        found = yield call.runTemplate("list_dictionary_entries",
                                       {"dictionaryName": dictionary})
        entries = sorted(
            ({"name": each["name"],
              "kind": "class" if each["isClass"] else "global"}
             for each in found),
            key=lambda entry: nameOrder(entry["name"]))
        return pagedResult(
            entries, arguments, "entries",
            lambda entry: f"{entry['name']}  ({entry['kind']})",
            {"dictionary": dictionary})

"""
The compact catalog surface (C{--surface catalog}): C{tools/list}
advertises an everyday set and three catalog tools; every served tool stays
callable by name, and is found with C{tool_search}, described whole by
C{tool_get} and called through C{tool_call} by a client that calls only
what its list holds.

C{tool_call} never runs here: the protocol layer takes a valid call of it
as the direct call it names (L{gsmcpd.protocol.catalogsurface}), so
validation, scopes, confirmations and session rules are the direct call's
own.
"""



import functools
import json
from collections.abc import Iterable
from typing import NoReturn

import attr

from gsmcpd.tools.arguments import (
    MAX_INTEGER,
    STRING,
    JsonObject,
    nonEmptyArgument,
    uncapped,
)
from gsmcpd.tools.base import (
    NO_SESSION,
    Tool,
    ToolCall,
    ToolError,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    resultSchema,
)
from gsmcpd.tools.catalog import AdvertisedTool, ToolCatalog
from gsmcpd.tools.toolsearch import searchTools

SURFACES = ("full", "catalog")
"""What C{--surface} may name; C{full} lists every served tool."""

EVERYDAY = ("status", "execute_code", "describe_class", "get_method_source",
            "compile_method", "find_senders", "run_test_class", "commit",
            "abort")
"""What the catalog surface lists besides its own tools, where served."""

TOOL_CALL = "tool_call"

@attr.s(frozen=True, auto_attribs=True)
class ListedTool(AdvertisedTool):
    """
    A tool as the catalog surface lists it: what an agent reads before any
    work (name, description, input schema, annotations), read on every
    session.  C{tool_get} gives it whole: its title, its output schema and
    the default caps of its arguments, which the daemon enforces either
    way; a result holds the same structured content either way.
    """

    @functools.cached_property
    def _listed(self) -> JsonObject:
        return {"name": self.name, "description": self.description,
                "inputSchema": uncapped(self.inputSchema),
                "annotations": self.annotations}

    def descriptor(self) -> JsonObject:
        return self._listed

HIT = resultSchema(name=STRING, title=STRING, description=STRING,
                   listed={"type": "boolean"})


class CatalogToolset(Toolset):
    """
    C{tool_search}, C{tool_get} and C{tool_call} over one catalog: the
    tools a request's scopes open, so a search never names a tool the
    caller may not call.
    """

    name = "catalog"
    title = "Tool catalog"

    def __init__(self, catalog: ToolCatalog) -> None:
        super().__init__()
        self.catalog = catalog

    def tools(self) -> list[Tool]:
        return [
            Tool("tool_search", "Search tools",
                 "Find served tools by words (e.g. 'delete dictionary'), "
                 "synonyms included; best first.",
                 closedSchema({"query": nonEmptyArgument(),
                               "limit": {"type": "integer", "minimum": 1,
                                         "maximum": MAX_INTEGER,
                                         "default": 10}}, ["query"]),
                 annotations(True), self.search,
                 resultSchema(tools={"type": "array", "items": HIT},
                              total={"type": "integer"}),
                 runsOn=NO_SESSION),
            Tool("tool_get", "Describe tool",
                 "One served tool whole: title, schemas, annotations.",
                 closedSchema({"name": nonEmptyArgument()}, ["name"]),
                 annotations(True), self.get,
                 resultSchema(tool={"type": "object"}), runsOn=NO_SESSION),
            Tool(TOOL_CALL, "Call tool",
                 "Call any served tool by name, exactly as a direct call.",
                 closedSchema({"name": nonEmptyArgument(),
                               "arguments": {"type": "object"}}, ["name"]),
                 annotations(False), self.refuseNested,
                 {"type": "object"}, runsOn=NO_SESSION),
        ]

    def search(self, call: ToolCall, arguments: JsonObject) -> ToolResult:
        hits = searchTools([tool for tool in self.catalog
                            if tool.name not in CATALOG_TOOLS],
                           arguments["query"])
        limit = arguments.get("limit", 10)
        found = [{"name": hit.tool.name, "title": hit.tool.title,
                  "description": hit.tool.description,
                  "listed": self.catalog.lists(hit.tool.name)}
                 for hit in hits[:limit]]
        text = "\n".join(f"{each['name']}: {each['description']}"
                         for each in found) or "No served tool matches."
        if len(hits) > limit:
            text += f"\n({len(hits) - limit} more: raise limit)"
        return ToolResult(text, {"tools": found, "total": len(hits)})

    def get(self, call: ToolCall, arguments: JsonObject) -> ToolResult:
        tool = self.catalog.get(arguments["name"])
        if tool is None:
            raise ToolError("notFound", f"no served tool is named "
                            f"{arguments['name']!r}: try tool_search")
        descriptor = call.describe(tool)
        return ToolResult(json.dumps(descriptor, ensure_ascii=False),
                          {"tool": descriptor})

    def refuseNested(self, call: ToolCall, arguments: JsonObject) -> NoReturn:
        # Reached only when the protocol layer did not take the call as
        # the one it names: that is, when it names tool_call itself.
        raise ToolError("invalidParams",
                        "tool_call calls another tool, not itself")


class CatalogSurface(ToolCatalog):
    """
    A L{ToolCatalog} that serves its toolsets' tools and the catalog tools,
    and advertises only the everyday set and the catalog tools.
    """

    def __init__(self, toolsets: Iterable[Toolset]) -> None:
        toolsets = [each for each in toolsets
                    if not isinstance(each, CatalogToolset)]
        super().__init__([*toolsets, CatalogToolset(self)])
        self._listed: frozenset[str] = frozenset()

    def advertised(self) -> list[AdvertisedTool]:
        """
        The everyday set and the catalog tools, each as a L{ListedTool}.
        """
        if self._advertised is None:
            self._advertised = [
                ListedTool(**attr.asdict(tool, recurse=False))
                for tool in self
                if tool.name in EVERYDAY or tool.name in CATALOG_TOOLS]
            self._listed = frozenset(tool.name for tool in self._advertised)
        return self._advertised

    def lists(self, name: str) -> bool:
        self.advertised()
        return name in self._listed


CATALOG_TOOLS = ("tool_search", "tool_get", TOOL_CALL)


def servedCatalog(surface: str, toolsets: Iterable[Toolset]) -> ToolCatalog:
    """
    The catalog a deployment serves: every tool listed (C{full}), or the
    compact C{catalog} surface.
    """
    return CatalogSurface(toolsets) if surface == "catalog" \
        else ToolCatalog(toolsets)

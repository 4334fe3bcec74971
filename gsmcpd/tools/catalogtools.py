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

import json

import attr

from gsmcpd.tools.arguments import MAX_INTEGER, STRING, nonEmptyArgument
from gsmcpd.tools.base import (
    NO_SESSION, Tool, ToolError, ToolResult, Toolset, annotations,
    closedSchema, resultSchema)
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.toolsearch import searchTools

SURFACES = ("full", "catalog")
"""What C{--surface} may name; C{full} lists every served tool."""

EVERYDAY = ("status", "execute_code", "describe_class", "get_method_source",
            "compile_method", "find_senders", "run_test_class", "commit",
            "abort")
"""What the catalog surface lists besides its own tools, where served."""

TOOL_CALL = "tool_call"

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

    def __init__(self, catalog):
        super().__init__()
        self.catalog = catalog

    def tools(self):
        return [
            Tool("tool_search", "Search tools",
                 "Find served tools by words (e.g. 'delete dictionary', "
                 "'senders'), matched with synonyms in names, titles and "
                 "descriptions; best first. Call a hit by name, or via "
                 "tool_call.",
                 closedSchema({"query": nonEmptyArgument(),
                               "limit": {"type": "integer", "minimum": 1,
                                         "maximum": MAX_INTEGER,
                                         "default": 10}}, ["query"]),
                 annotations(True), self.search,
                 resultSchema(tools={"type": "array", "items": HIT},
                              total={"type": "integer"}),
                 runsOn=NO_SESSION),
            Tool("tool_get", "Describe tool",
                 "One served tool's whole descriptor: schemas, "
                 "annotations.",
                 closedSchema({"name": nonEmptyArgument()}, ["name"]),
                 annotations(True), self.get,
                 resultSchema(tool={"type": "object"}), runsOn=NO_SESSION),
            Tool(TOOL_CALL, "Call tool",
                 "Call any served tool by name with its arguments, exactly "
                 "as a direct call; answers that tool's result.",
                 closedSchema({"name": nonEmptyArgument(),
                               "arguments": {"type": "object"}}, ["name"]),
                 annotations(False), self.refuseNested,
                 {"type": "object"}, runsOn=NO_SESSION),
        ]

    def search(self, call, arguments):
        hits = searchTools([tool for tool in self.catalog
                            if tool.name not in CATALOG_TOOLS],
                           arguments["query"])
        limit = arguments.get("limit", 10)
        listed = {tool.name for tool in self.catalog.advertised()}
        found = [{"name": hit.tool.name, "title": hit.tool.title,
                  "description": hit.tool.description,
                  "listed": hit.tool.name in listed}
                 for hit in hits[:limit]]
        text = "\n".join(f"{each['name']}: {each['description']}"
                         for each in found) or "No served tool matches."
        if len(hits) > limit:
            text += f"\n({len(hits) - limit} more: raise limit)"
        return ToolResult(text, {"tools": found, "total": len(hits)})

    def get(self, call, arguments):
        tool = self.catalog.get(arguments["name"])
        if tool is None:
            raise ToolError("notFound", f"no served tool is named "
                            f"{arguments['name']!r}: try tool_search")
        descriptor = tool.descriptor()
        return ToolResult(json.dumps(descriptor, ensure_ascii=False),
                          {"tool": descriptor})

    def refuseNested(self, call, arguments):
        # Reached only when the protocol layer did not take the call as
        # the one it names: that is, when it names tool_call itself.
        raise ToolError("invalidParams",
                        "tool_call calls another tool, not itself")


class CatalogSurface(ToolCatalog):
    """
    A L{ToolCatalog} that serves its toolsets' tools and the catalog tools,
    and advertises only the everyday set and the catalog tools.
    """

    def __init__(self, toolsets):
        toolsets = [each for each in toolsets
                    if not isinstance(each, CatalogToolset)]
        super().__init__([*toolsets, CatalogToolset(self)])
        self._advertised = None

    def advertised(self):
        """
        The everyday set and the catalog tools, listed without their output
        schemas to keep C{tools/list} small: C{tool_get} gives a tool
        whole, and a result holds the same structured content either way.
        """
        if self._advertised is None:
            self._advertised = [
                attr.evolve(tool, outputSchema=None) for tool in self
                if tool.name in EVERYDAY or tool.name in CATALOG_TOOLS]
        return self._advertised


CATALOG_TOOLS = ("tool_search", "tool_get", TOOL_CALL)


def servedCatalog(surface, toolsets):
    """
    The catalog a deployment serves: every tool listed (C{full}), or the
    compact C{catalog} surface.
    """
    return CatalogSurface(toolsets) if surface == "catalog" \
        else ToolCatalog(toolsets)

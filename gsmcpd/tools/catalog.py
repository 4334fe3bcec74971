"""
The served tool surface: the tools of the toolsets a deployment names.

Nothing is served that the deployment did not name: a toolset being
importable is not a toolset being exposed.  Core toolsets are named by
their short names; a toolset of one's own by C{package.module:ClassName}.
"""

import functools
import json
from collections.abc import Collection, Iterable, Iterator, Sequence
from importlib import import_module
from typing import Any

import attr

from gsmcpd.tools.arguments import JsonObject, Schema, uncapped
from gsmcpd.tools.base import METHOD_SCHEMA, Tool, Toolset
from gsmcpd.tools.paging import PAGE_SCHEMA

CORE_TOOLSETS = {
    "browsing": "gsmcpd.tools.browsing:BrowsingToolset",
    "execution": "gsmcpd.tools.execution:ExecutionToolset",
    "listing": "gsmcpd.tools.listing:ListingToolset",
    "mutation": "gsmcpd.tools.mutation:MutationToolset",
    "search": "gsmcpd.tools.search:SearchToolset",
    "session": "gsmcpd.tools.session:SessionToolset",
    "testing": "gsmcpd.tools.sunit:TestingToolset",
}
"""The seven core toolsets: the reference design's 31 tools."""

OTHER_TOOLSETS = {
    "admin": "gsmcpd.tools.admin:AdminToolset",
    "changes": "gsmcpd.tools.changes:ChangesToolset",
    "debugger": "gsmcpd.tools.debugger:DebuggerToolset",
    "debugging": "gsmcpd.tools.debugging:DebuggingToolset",
    "refactoring": "gsmcpd.tools.refactoring:RefactoringToolset",
    "tonel": "gsmcpd.tools.tonel:TonelToolset",
}
"""Toolsets shipped besides the core ones."""

DEFAULT_TOOLSETS = (*CORE_TOOLSETS, "debugging")
"""What a deployment that names none serves: the core toolsets, and
C{debugging}, what helps an agent most once a call has failed or is slow."""

SCOPED_TOOLSETS = frozenset({"admin"})
"""Toolsets that tell one user about the others: with authentication on,
the daemon serves one only if C{--auth-scope-toolsets} maps a scope to it."""


def unservedToolsets(served: Collection[str]) -> list[str]:
    """
    The names of the shipped toolsets (core, then the others) that none of
    C{served}, the toolset names a deployment serves, is.
    """
    return [name for name in (*CORE_TOOLSETS, *OTHER_TOOLSETS)
            if name not in served]


class ToolsetError(ValueError):
    """
    A toolset name or its options cannot be served; the message says why.
    """


def toolsetClass(name: str) -> type[Toolset]:
    """
    The L{Toolset} class C{name} stands for.

    @raise ToolsetError: for an unknown name or an import path that does
        not lead to a toolset.
    """
    path = CORE_TOOLSETS.get(name) or OTHER_TOOLSETS.get(name, name)
    if ":" not in path:
        raise ToolsetError(
            f"unknown toolset {name!r}: name one of "
            f"{', '.join([*CORE_TOOLSETS, *OTHER_TOOLSETS])}, or "
            "package.module:ClassName")
    moduleName, _, className = path.partition(":")
    try:
        found: type[Toolset] = getattr(import_module(moduleName), className)
        return found
    except (ImportError, AttributeError) as e:
        raise ToolsetError(f"toolset {name!r} cannot be loaded: {e}")


def buildToolsets(names: Sequence[str],
                  options: dict[str, JsonObject] | None = None,
                  ) -> list[Toolset]:
    """
    Instantiate the toolsets C{names}, each with its own options.

    @param options: toolset name to option name to value.
    @raise ToolsetError: for an unknown toolset, options for a toolset that
        is not served, or an option a toolset does not declare.
    """
    options = dict(options or {})
    unserved = sorted(set(options) - set(names))
    if unserved:
        raise ToolsetError(
            f"options are set for {', '.join(map(repr, unserved))}, which "
            f"{'is' if len(unserved) == 1 else 'are'} not served "
            f"(--toolsets names {', '.join(names)})")
    toolsets = []
    for name in names:
        try:
            toolsets.append(toolsetClass(name)(options.get(name)))
        except ValueError as e:
            raise ToolsetError(str(e))
    return toolsets


SAID_ONCE = (PAGE_SCHEMA, METHOD_SCHEMA)
"""Shapes many results share (a list's page, a method), which the
instructions describe once (L{gsmcpd.tools.instructions.LIMITS}), not
every listed output schema that holds one."""


def advertisedOutput(schema: Schema, nested: bool = False) -> Schema:
    """
    An output schema as C{tools/list} describes it: a shape of L{SAID_ONCE}
    is left to the instructions; and below the root (whose type MCP
    requires) an object's or an array's type is left to the C{properties}
    or C{items} that say it.
    """
    if nested and schema in SAID_ONCE:
        return {}
    implied = "object" if "properties" in schema else \
        "array" if isinstance(schema.get("items"), dict) else None
    listed = {key: value for key, value in schema.items()
              if not (nested and key == "type" and value == implied)}
    if "properties" in schema:
        listed["properties"] = {name: advertisedOutput(each, True) for
                                name, each in schema["properties"].items()}
    if implied == "array":
        listed["items"] = advertisedOutput(schema["items"], True)
    return listed


SHARED_BYTES = 60
"""The least size, as JSON, of a sub-schema L{sharedOnce} says once."""


def _subSchemas(schema: Schema, name: str,
                found: list[tuple[str, Schema]]) -> list[tuple[str, Schema]]:
    """
    Every sub-schema of C{schema} (a property's, an array's items, an
    alternative) with the name of the property it was first met under.
    """
    for key, each in schema.items():
        if key == "properties":
            for property, value in each.items():
                found.append((property, value))
                _subSchemas(value, property, found)
        elif key == "items" and isinstance(each, dict):
            found.append((name, each))
            _subSchemas(each, name, found)
    return found


def _replaced(schema: Any, shared: Schema, reference: Schema) -> Any:
    """C{schema} with each sub-schema equal to C{shared} a C{reference}."""
    if schema == shared:
        return reference
    if not isinstance(schema, dict):
        return schema
    return {key: ({name: _replaced(value, shared, reference)
                   for name, value in each.items()} if key == "properties"
                  else _replaced(each, shared, reference) if key == "items"
                  else each)
            for key, each in schema.items()}


def sharedOnce(schema: Schema) -> Schema:
    """
    C{schema} with each sub-schema it holds more than once (of at least
    L{SHARED_BYTES}) said once in C{$defs}, the largest first, and
    referred to by C{$ref} wherever it stood: the same schema, as a
    validator reads it, in fewer bytes.
    """
    definitions: dict[str, Schema] = {}
    while True:
        seen: dict[str, list[str]] = {}
        for name, each in _subSchemas(schema, "item", []):
            text = json.dumps(each, sort_keys=True)
            if len(text) >= SHARED_BYTES:
                seen.setdefault(text, []).append(name)
        repeated = [text for text, names in seen.items() if len(names) > 1]
        if not repeated:
            break
        text = max(repeated, key=len)
        name = seen[text][0]
        while name in definitions:
            name += "_"
        definitions[name] = json.loads(text)
        schema = _replaced(schema, definitions[name],
                           {"$ref": f"#/$defs/{name}"})
    return dict(schema, **{"$defs": definitions}) if definitions else schema


@attr.s(frozen=True, auto_attribs=True)
class AdvertisedTool(Tool):
    """
    A tool as C{tools/list} describes it, which every session reads before
    any work: without the default caps of its arguments
    (L{gsmcpd.tools.arguments.DEFAULT_CAPS}), which the daemon enforces
    either way, and with its output schema as L{advertisedOutput} says it,
    each repeated part said once (L{sharedOnce})
    (its results meet the whole schema either way).
    """

    @functools.cached_property
    def _advertised(self) -> JsonObject:
        described = dict(super().descriptor(),
                         inputSchema=uncapped(self.inputSchema))
        if self.outputSchema is not None:
            described["outputSchema"] = sharedOnce(
                advertisedOutput(self.outputSchema))
        return described

    def descriptor(self) -> JsonObject:
        return self._advertised


class OutOfScope(LookupError):
    """A served tool the toolsets a token's scopes open leave out."""


class ToolCatalog:
    """
    Tool name to L{Tool}, from a list of toolsets.
    """

    def __init__(self, toolsets: Iterable[Toolset]) -> None:
        self.toolsets = tuple(toolsets)
        self._narrowed: dict[frozenset[str], ToolCatalog] = {}
        self._advertised: list[AdvertisedTool] | None = None
        self._tools: dict[str, Tool] = {}
        for toolset in self.toolsets:
            for tool in toolset.tools():
                if tool.name in self._tools:
                    raise ToolsetError(
                        f"tool {tool.name!r} is served by two toolsets")
                self._tools[tool.name] = tool

    @classmethod
    def named(cls, names: Sequence[str] = tuple(CORE_TOOLSETS),
              options: dict[str, JsonObject] | None = None) -> "ToolCatalog":
        """
        The catalog of the toolsets C{names} (default: the core seven).
        """
        return cls(buildToolsets(names, options))

    def narrowed(self, names: frozenset[str] | None) -> "ToolCatalog":
        """
        The catalog of those of its toolsets C{names} lists, made once per
        set of names (a token's scopes choose them): C{self} for L{None}.
        """
        if names is None:
            return self
        if names not in self._narrowed:
            self._narrowed[names] = type(self)(
                [each for each in self.toolsets if each.name in names])
        return self._narrowed[names]

    def advertised(self) -> list["AdvertisedTool"]:
        """
        The tools C{tools/list} describes, each as an L{AdvertisedTool}: all
        of them (a compact surface lists fewer, every one still callable by
        name).
        """
        if self._advertised is None:
            self._advertised = [AdvertisedTool(**attr.asdict(
                tool, recurse=False)) for tool in self]
        return self._advertised

    def lists(self, name: str) -> bool:
        """
        Whether C{tools/list} describes the tool C{name}, so its client has
        seen its schema.
        """
        return name in self._tools

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def scoped(self, name: str, names: frozenset[str] | None
               ) -> Tool | None:
        """
        The tool C{name} of those of its toolsets C{names} lists (all:
        L{None}), looked up in one call: L{None} for one it does not serve.

        @raise OutOfScope: for one it serves that C{names} leave out.
        """
        tool = self.narrowed(names).get(name)
        if tool is None and name in self._tools:
            raise OutOfScope(name)
        return tool

    def __iter__(self) -> Iterator[Tool]:
        return iter(sorted(self._tools.values(), key=lambda t: t.name))

    def __len__(self) -> int:
        return len(self._tools)

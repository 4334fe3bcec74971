"""
What a toolset offers besides tools: resources, resource templates and
prompts, as values the protocol layer describes and serves, and what the
served toolsets offer together (L{Surface}: completion and log messages
too).
"""

import re
from collections.abc import Callable
from typing import Any

import attr

from gsmcpd.tools.arguments import JsonObject
from gsmcpd.tools.base import ANY_SESSION, NO_SESSION

READ_NEEDS = attr.validators.in_((ANY_SESSION, NO_SESSION))
"""What reading a resource may need: a GemStone session (in the 2026 era a
throwaway one), or none."""


@attr.s(frozen=True, auto_attribs=True)
class Resource:
    """
    A resource at a fixed URI.

    @ivar read: called with a L{gsmcpd.tools.base.ToolCall} and the URI;
        answers (or fires with) a list of MCP resource contents.
    """

    uri: str
    name: str
    read: Callable[..., Any]
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    runsOn: str = attr.ib(default=ANY_SESSION, validator=READ_NEEDS)
    """Whether reading it needs a GemStone session (as L{Tool.runsOn})."""

    def descriptor(self) -> JsonObject:
        return _described(self, uri=self.uri)


@attr.s(frozen=True, auto_attribs=True)
class ResourceTemplate:
    """
    Resources at URIs matching an RFC 6570 level-1 template, e.g.
    C{gemstone://class/{className}/definition}.

    @ivar read: called with a ToolCall, the URI and the template's
        variables.
    @ivar complete: called with a variable's name and its partial value;
        answers candidate values (or fires with them), or L{None}.
    """

    uriTemplate: str
    name: str
    read: Callable[..., Any]
    title: str | None = None
    description: str | None = None
    mimeType: str | None = None
    complete: Callable[..., Any] | None = None
    runsOn: str = attr.ib(default=ANY_SESSION, validator=READ_NEEDS)
    """Whether reading one needs a GemStone session (as L{Tool.runsOn})."""

    def match(self, uri: str) -> dict[str, str] | None:
        """
        The template's variables for C{uri}, or L{None} if it does not fit.
        """
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)",
                         re.escape(self.uriTemplate))
        found = re.fullmatch(pattern, uri)
        return found.groupdict() if found else None

    def descriptor(self) -> JsonObject:
        return _described(self, uriTemplate=self.uriTemplate)


@attr.s(frozen=True, auto_attribs=True)
class Prompt:
    """
    A prompt template a user picks.

    @ivar arguments: C{({"name", "description", "required"}, ...)}.
    @ivar get: called with the arguments; answers the messages (or fires
        with them).
    @ivar complete: as for L{ResourceTemplate.complete}.
    """

    name: str
    get: Callable[..., Any]
    arguments: tuple[JsonObject, ...] = ()
    title: str | None = None
    description: str | None = None
    complete: Callable[..., Any] | None = None
    asks: bool = False
    """Whether it asks the client something before it answers: then
    C{get} is also given the request's context, to ask through."""

    def descriptor(self) -> JsonObject:
        return _described(self, arguments=[dict(a) for a in self.arguments])


def _described(item: "Resource | ResourceTemplate | Prompt",
               **fields: Any) -> JsonObject:
    described = {"name": item.name, **fields}
    for key in ("title", "description", "mimeType"):
        value = getattr(item, key, None)
        if value is not None:
            described[key] = value
    return described


class Surface:
    """
    Everything the served toolsets offer besides tools; a capability is
    declared only when something served provides it.
    """

    def __init__(self, toolsets: Any) -> None:
        self.resources = {r.uri: r for t in toolsets for r in t.resources()}
        self.templates = [r for t in toolsets for r in t.resourceTemplates()]
        self.prompts = {p.name: p for t in toolsets for p in t.prompts()}
        self.logging = any(t.usesLogging for t in toolsets)

    def capabilities(self) -> dict[str, Any]:
        """The server capabilities beyond C{tools}: only what is served."""
        declared = {}
        if self.resources or self.templates:
            declared["resources"] = {"subscribe": True, "listChanged": False}
        if self.prompts:
            declared["prompts"] = {"listChanged": False}
        if any(p.complete for p in self.prompts.values()) or \
                any(r.complete for r in self.templates):
            declared["completions"] = {}
        if self.logging:
            declared["logging"] = {}
        return declared

    def completable(self, ref: JsonObject) -> "Prompt | ResourceTemplate | None":
        """What a C{completion/complete} reference names: a prompt by name,
        a resource template by its URI template, or L{None}."""
        if ref.get("type") == "ref/prompt":
            name = ref.get("name")
            return self.prompts.get(name) if isinstance(name, str) else None
        return next((t for t in self.templates if ref.get("type") ==
                     "ref/resource" and t.uriTemplate == ref.get("uri")), None)

    def resolve(self, uri: str) -> tuple[Resource | ResourceTemplate,
                                          dict[str, str]] | None:
        """The offering C{uri} names and its variables, or L{None}."""
        if uri in self.resources:
            return self.resources[uri], {}
        for template in self.templates:
            variables = template.match(uri)
            if variables is not None:
                return template, variables
        return None

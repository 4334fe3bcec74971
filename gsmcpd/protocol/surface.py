"""
What a server offers besides tools (resources, resource templates, prompts,
completion, log messages), from the toolsets; a capability is declared only
when something served provides it.
"""

from typing import Any

from gsmcpd.tools.offerings import Resource, ResourceTemplate


class Surface:
    """Everything the served toolsets offer besides tools."""

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

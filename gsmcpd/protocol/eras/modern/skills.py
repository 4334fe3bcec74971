"""
Skills (the C{io.modelcontextprotocol/skills} extension): guides an agent
loads first, each a C{SKILL.md} at C{skill://<name>/SKILL.md}, listed with
its SHA-256 digest and size so a client can verify what it reads.
"""

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import attr

from gsmcpd.protocol.jsonrpc import JsonObject, invalidParams, refuseCursor

EXTENSION = "io.modelcontextprotocol/skills"
MIME_TYPE = "text/markdown"


@attr.s(frozen=True, auto_attribs=True)
class Skill:
    """
    @ivar name: lowercase words joined by hyphens.
    @ivar description: one sentence: what it is for and when to load it.
    """

    name: str
    description: str
    body: str

    @property
    def uri(self) -> str:
        return f"skill://{self.name}/SKILL.md"

    def manifest(self) -> bytes:
        # A JSON string is a YAML double-quoted scalar: the description
        # parses back to exactly the entry's frontmatter, colons and all.
        return (f"---\nname: {self.name}\n"
                f"description: {json.dumps(self.description)}\n"
                f"---\n\n{self.body.strip()}\n").encode()

    def entry(self) -> JsonObject:
        """Its C{skills/list} entry: each file (one) with digest and size."""
        manifest = self.manifest()
        return {"uri": self.uri,
                "frontmatter": {"name": self.name,
                                "description": self.description},
                "resources": [{
                    "uri": self.uri,
                    "digest": "sha256:" + hashlib.sha256(manifest).hexdigest(),
                    "size": len(manifest)}]}

    def descriptor(self) -> JsonObject:
        return {"uri": self.uri, "name": self.name,
                "description": self.description, "mimeType": MIME_TYPE}

    def contents(self) -> list[JsonObject]:
        return [{"uri": self.uri, "mimeType": MIME_TYPE,
                 "text": self.manifest().decode("utf-8")}]


class Skills:
    """The skills this server serves, by URI."""

    def __init__(self, skills: Iterable["Skill"]) -> None:
        self._byUri = {skill.uri: skill for skill in skills}

    @classmethod
    def fromGuides(cls, guides: Iterable[Any]) -> "Skills":
        """From L{gsmcpd.tools.guides.Guide}s (or anything shaped so)."""
        return cls(Skill(guide.name, guide.description, guide.body)
                   for guide in guides)

    def __bool__(self) -> bool:
        return bool(self._byUri)

    def __iter__(self) -> Iterator["Skill"]:
        return iter(self._byUri.values())

    def methods(self) -> dict[str, Callable[[Any], JsonObject]]:
        """The skill methods' handlers, for the method table."""
        return {"skills/list": lambda request: self.list(request.params),
                "skills/get": lambda request: self.get(request.params)}

    def list(self, params: JsonObject) -> JsonObject:
        """Every entry, in one page."""
        refuseCursor(params, "skills/list")
        return {"skills": [skill.entry() for skill in self]}

    def get(self, params: JsonObject) -> JsonObject:
        """One entry; C{-32602} for a URI that is no skill here."""
        uri = params.get("uri")
        skill = self._byUri.get(uri) if isinstance(uri, str) else None
        if skill is None:
            raise invalidParams(f"no skill {uri!r}")
        return {"skill": skill.entry()}

"""
Paging for list-shaped tools.

A tool result has no cursor in the protocol, so list-shaped tools page with
arguments of their own, C{limit} and C{offset}, and say in a header line
which window this is, of how many, and which offset fetches the next page.
Every list-shaped tool declares a default limit, so that a first page asked
for with default arguments stays small on a real stone's kernel (1,500
classes, 60,000 methods): a client that wants more pages on, or passes a
larger limit.
"""

from collections.abc import Sequence
from typing import Any

import attr

from gsmcpd.tools.arguments import JsonObject, Schema
from gsmcpd.tools.base import resultSchema

LIST_LIMIT = 300
"""The default page of the listings (names): about 30 KB on a kernel."""


def pagingProperties(defaultLimit: int | None = None) -> Schema:
    """
    The C{limit} and C{offset} input-schema properties.  Every session
    reads them once per paged tool, so they say no more than their names
    and JSON Schema's C{default} do not: what C{limit 0} means is said once,
    in the instructions (L{gsmcpd.tools.instructions.LIMITS}), and an
    offset starts at 0 as anyone expects.
    """
    limit: Schema = {"type": "integer", "minimum": 0}
    if defaultLimit is None:
        limit["description"] = "default: all"
    else:
        limit["default"] = defaultLimit
    return {"limit": limit, "offset": {"type": "integer", "minimum": 0}}


_COUNT = {"type": ["integer", "null"]}

PAGE_SCHEMA = resultSchema(offset={"type": "integer"}, limit=_COUNT,
                           total=_COUNT, atLeast=_COUNT, nextOffset=_COUNT)
"""The C{page} member of a paged tool's structured result."""


@attr.s(frozen=True, auto_attribs=True)
class Page:
    """
    One window onto a list.

    @ivar items: the items in the window.
    @ivar total: how many there are in all, or L{None} when a scan stopped
        early and cannot know (then there is at least one past the window).
    """

    items: list[Any]
    offset: int
    limit: int | None
    total: int | None

    @property
    def nextOffset(self) -> int | None:
        end = self.offset + len(self.items)
        if self.total is None:
            return end
        if self.limit == 0 or end >= self.total:
            return None
        return end

    def header(self) -> str:
        """
        The line that names the window, the total, and the next offset.
        """
        if self.limit == 0:
            return f"({self.total} in all; pass a limit to list them)"
        if not self.items:
            return ("(none)" if not self.offset else
                    f"(none at offset {self.offset}; there are {self.total})")
        first, last = self.offset + 1, self.offset + len(self.items)
        if self.total is None:
            return (f"(showing {first}-{last} of at least {last + 1}; the "
                    f"total is not known; pass offset: {last} for the next "
                    f"page)")
        more = "" if self.nextOffset is None else \
            f"; pass offset: {self.nextOffset} for the next page"
        return f"(showing {first}-{last} of {self.total}{more})"

    def structured(self) -> JsonObject:
        return {"offset": self.offset, "limit": self.limit,
                "total": self.total, "nextOffset": self.nextOffset,
                "atLeast": (self.offset + len(self.items) + 1
                            if self.total is None else None)}


def window(arguments: JsonObject,
           defaultLimit: int | None = None) -> tuple[int, int | None]:
    """
    C{(offset, limit)} from a tool's arguments.
    """
    return arguments.get("offset", 0), arguments.get("limit", defaultLimit)


def page(items: Sequence[Any], arguments: JsonObject,
         defaultLimit: int | None = None) -> Page:
    """
    The page of a fully known list that C{arguments} ask for.
    """
    offset, limit = window(arguments, defaultLimit)
    end = None if limit is None else offset + limit
    return Page(list(items[offset:end]), offset, limit, len(items))


def scanned(items: Sequence[Any], arguments: JsonObject, seen: int,
            defaultLimit: int | None = None) -> Page:
    """
    The page of a scan that skips C{offset} hits and stops one past the
    window, so it cannot know the total.

    @param items: the window plus at most one more.
    @param seen: how many hits the scan saw in all (skipped ones included);
        when it did not stop early, that is the total.
    """
    offset, limit = window(arguments, defaultLimit)
    if limit is not None and len(items) > limit:
        return Page(list(items[:limit]), offset, limit, None)
    return Page(list(items), offset, limit, seen)

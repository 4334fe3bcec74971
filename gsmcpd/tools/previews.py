"""
Refactoring previews: a preview is a value, the sources it read and the
sources it would write, kept in the session that made it until applied.

Applying one writes exactly what it showed, or nothing: a method it read
must still read the same in this session's view (its ledger), and the
stone checks again as each is written (the blind-write guardrail).
"""

import difflib
import secrets
import weakref
from collections import OrderedDict

import attr

from gsmcpd.tools.arguments import JsonObject
from gsmcpd.tools.ledger import Key, ReadLedger, methodKey

MAX_PREVIEWS = 16
"""Previews a session keeps; a seventeenth drops the oldest."""

MAX_PREVIEW_BYTES = 8 * 1024 * 1024
"""The sources a session's previews may hold together (characters, before
and after); past it the oldest go, though the newest is always kept."""


@attr.s(frozen=True, auto_attribs=True)
class MethodChange:
    """
    One method a refactoring changes: its source before and after, under
    its selector before and after (a rename compiles the new one and
    removes the old).
    """

    className: str
    meta: bool
    selector: str
    newSelector: str
    category: str | None
    before: str
    after: str
    newClassName: str | None = None
    """The class it moves to: a renamed class's own method."""

    @property
    def key(self) -> Key:
        return methodKey(self.className, self.selector, self.meta)

    @property
    def named(self) -> str:
        side = " class" if self.meta else ""
        return f"{self.className}{side}>>{self.selector}"

    def diff(self) -> str:
        """The change as a unified diff, named by the method."""
        side = " class" if self.meta else ""
        renamed = f"{self.newClassName or self.className}{side}>>" \
            f"{self.newSelector}"
        return "\n".join(difflib.unified_diff(
            self.before.splitlines(), self.after.splitlines(), self.named,
            renamed, lineterm="")) or f"--- {self.named}\n+++ {renamed}"

    def described(self) -> JsonObject:
        return {"className": self.className, "meta": self.meta,
                "selector": self.selector, "newSelector": self.newSelector,
                "diff": self.diff()}


@attr.s(frozen=True, auto_attribs=True)
class Preview:
    """
    What a refactoring would do: C{changes} to methods, and for a class
    rename, the class's own (C{renameClass}: old and new name).
    """

    previewId: str
    tool: str
    summary: str
    changes: tuple[MethodChange, ...]
    unchanged: tuple[JsonObject, ...]
    counts: JsonObject
    arguments: JsonObject
    """What the preview was asked with: applying it must name the same."""
    renameClass: tuple[str, str] | None = None
    moved: tuple[MethodChange, ...] = ()
    """A renamed class's own methods, which the rename compiles into its
    new version."""
    redefine: tuple[str, str, str] | None = None
    """An instance variable's rename: the class, the old and new name."""
    shown: tuple[JsonObject, ...] = ()
    """Changes shown before the methods' that are not methods': a class
    definition's."""

    @property
    def size(self) -> int:
        """The characters of source it holds."""
        return sum(len(each.before) + len(each.after)
                   for each in (*self.changes, *self.moved))


class PreviewShelf:
    """
    A session's previews by id, the newest L{MAX_PREVIEWS}.
    """

    def __init__(self) -> None:
        self._previews: OrderedDict[str, Preview] = OrderedDict()

    def newId(self) -> str:
        return "pv-" + secrets.token_hex(8)

    def keep(self, preview: Preview) -> None:
        self._previews[preview.previewId] = preview
        while len(self._previews) > MAX_PREVIEWS or (
                len(self._previews) > 1 and sum(
                    each.size for each in self._previews.values())
                > MAX_PREVIEW_BYTES):
            self._previews.popitem(last=False)

    def take(self, previewId: str) -> Preview | None:
        """The preview C{previewId}, removed: one is applied once."""
        return self._previews.pop(previewId, None)


_SHELVES: "weakref.WeakKeyDictionary[ReadLedger, PreviewShelf]" = \
    weakref.WeakKeyDictionary()


def shelfOf(ledger: ReadLedger) -> PreviewShelf:
    """
    The previews of the session whose read ledger is C{ledger}: they go
    with the session, and with it when it ends.
    """
    shelf = _SHELVES.get(ledger)
    if shelf is None:
        shelf = _SHELVES[ledger] = PreviewShelf()
    return shelf

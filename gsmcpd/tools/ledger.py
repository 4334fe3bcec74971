"""
The blind-write guardrail's ledger: what one session has read, in its
present view.

GemStone's conflict check is write-write against the view and does not
track what a session read, so without this a client could overwrite a
method it never looked at, or one that changed since it looked.  A tool that
overwrites or deletes a method or class definition asks the ledger for the
text this session last read of it, and the template refuses in the stone
unless that is still the current text.  A read recorded before the view
moved does not count.

The ledger's grain is the method; GemStone's is coarser.  A commit conflicts
with another session's when both changed one class (any of its methods,
its definition or its comment: the stone compares the class's method
dictionary, not the method) or added to or removed from one symbol
dictionary, so a session can be refused a commit over a method it never
touched, and two people editing one class must take turns.
"""

from collections.abc import Iterable

Key = tuple[str, ...] | tuple[str, str, bool, str]
"""What one read is of: a method, a class or a dictionary (L{methodKey},
L{classKey}, L{dictionaryKey})."""


def methodKey(className: str, selector: str, meta: object = False) -> Key:
    return ("method", className, bool(meta), selector)


def classKey(className: str) -> Key:
    return ("class", className)


def dictionaryKey(dictionaryName: str) -> Key:
    """
    The classes a symbol dictionary holds, as one thing read.
    """
    return ("dictionary", dictionaryName)


def describeKey(key: Key) -> str:
    """
    How a message names what a key stands for: C{Account>>deposit:},
    C{Account class>>new}, C{the class Account}, C{the dictionary
    Accounting, which holds classes,}.
    """
    if key[0] == "method":
        _, className, meta, selector = key
        return f"{className}{' class' if meta else ''}>>{selector}"
    if key[0] == "dictionary":
        return f"the dictionary {key[1]}, which holds classes,"
    return f"the class {key[1]}"


class ReadLedger:
    """
    Key to the text this session last read (or wrote) in its present view.
    """

    def __init__(self) -> None:
        self._texts: dict[Key, str] = {}
        self._objects: set[int] = set()

    def recordRead(self, key: Key, text: str) -> None:
        self._texts[key] = text

    def lastRead(self, key: Key) -> str | None:
        """
        The text last read of C{key} in this view, or L{None}.
        """
        return self._texts.get(key)

    def methodsRead(self, className: str) -> str:
        """
        The methods of C{className} read in this view, as the
        compile_class_definition template looks them up: space-separated,
        C{class>>} before a class-side selector, a space at each end.
        """
        return " " + " ".join(
            ("class>>" if key[2] else "") + key[3] for key in self._texts
            if key[0] == "method" and key[1] == className) + " "

    def forget(self, key: Key) -> None:
        self._texts.pop(key, None)

    def recordObjects(self, ids: Iterable[int]) -> None:
        """
        The object ids the inspector answered in this view.
        """
        self._objects.update(ids)

    def knowsObject(self, id: int) -> bool:
        return id in self._objects

    @property
    def objectsShown(self) -> bool:
        """
        Whether the inspector answered any id in this view (if not, the
        stone may forget every object it held for it).
        """
        return bool(self._objects)

    def viewMoved(self) -> list[Key]:
        """
        The view moved: nothing read before counts any more, nor any object
        id the inspector answered (not listed: an id is not a read).

        @return: the keys whose reads went stale, sorted.
        """
        stale = sorted(self._texts)
        self._texts.clear()
        self._objects.clear()
        return stale

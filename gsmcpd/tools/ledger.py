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


def methodKey(className, selector, meta=False):
    return ("method", className, bool(meta), selector)


def classKey(className):
    return ("class", className)


def dictionaryKey(dictionaryName):
    """
    The classes a symbol dictionary holds, as one thing read.
    """
    return ("dictionary", dictionaryName)


def describeKey(key):
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

    def __init__(self):
        self._texts = {}
        self._objects = set()

    def recordRead(self, key, text):
        self._texts[key] = text

    def lastRead(self, key):
        """
        The text last read of C{key} in this view, or L{None}.
        """
        return self._texts.get(key)

    def methodsRead(self, className):
        """
        The methods of C{className} read in this view, as the
        compile_class_definition template looks them up: space-separated,
        C{class>>} before a class-side selector, a space at each end.
        """
        return " " + " ".join(
            ("class>>" if key[2] else "") + key[3] for key in self._texts
            if key[0] == "method" and key[1] == className) + " "

    def forget(self, key):
        self._texts.pop(key, None)

    def recordObjects(self, ids):
        """
        The object ids the inspector answered in this view.
        """
        self._objects.update(ids)

    def knowsObject(self, id):
        return id in self._objects

    @property
    def objectsShown(self):
        """
        Whether the inspector answered any id in this view (if not, the
        stone may forget every object it held for it).
        """
        return bool(self._objects)

    def viewMoved(self):
        """
        The view moved: nothing read before counts any more, nor any object
        id the inspector answered (not listed: an id is not a read).

        @return: the keys whose reads went stale, sorted.
        """
        stale = sorted(self._texts)
        self._texts.clear()
        self._objects.clear()
        return stale

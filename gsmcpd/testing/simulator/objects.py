"""
Smalltalk values as the simulated stone holds them, and how GemStone prints
them.

Numbers, C{nil}, C{true} and C{false} are Python's own (C{int},
C{float}, L{fractions.Fraction}, L{None}, L{True}, L{False}); the rest are
the small classes below.  They compare by identity, as Smalltalk's C{==}
does; C{=} is L{equal}.
"""

import re
from fractions import Fraction

import attr

SMALLINT_MIN = -(1 << 60)
SMALLINT_MAX = (1 << 60) - 1

_PLAIN_SYMBOL = re.compile(r"\A(?:[A-Za-z_][A-Za-z0-9_]*:?)+\Z|\A[-+*/\\<>=~@%|&?,]+\Z")


@attr.s(eq=False)
class String:
    """
    A String: mutable, so C{at:put:} works; C{text} is replaced, not shared.
    A literal of compiled code is C{invariant}.
    """

    text = attr.ib()
    invariant = attr.ib(default=False, kw_only=True)


@attr.s(eq=False)
class Unicode16(String):
    """
    A String holding a character a byte cannot (what a literal or a UTF-8
    decode with such a character answers in GemStone 3.7).
    """


def string(text):
    """
    The String, or Unicode16 when a character needs it, holding C{text}.
    """
    if text.isascii() or max(text) <= "\xff":
        return String(text)
    return Unicode16(text)


@attr.s(frozen=True)
class Symbol:
    """
    A Symbol: equal text means the same object, as in GemStone.
    """

    text = attr.ib()


@attr.s(frozen=True)
class Character:
    char = attr.ib()


@attr.s(eq=False)
class Array:
    """
    An Array; a literal of compiled code is C{invariant}.
    """

    items = attr.ib(factory=list)
    invariant = attr.ib(default=False, kw_only=True)


@attr.s(eq=False)
class OrderedCollection:
    items = attr.ib(factory=list)


@attr.s(eq=False)
class SortedCollection(OrderedCollection):
    """
    An OrderedCollection kept in the order of its sort block (None: C{<=}).
    """

    sortBlock = attr.ib(default=None)


@attr.s(eq=False)
class ByteArray:
    data = attr.ib(default=b"")


@attr.s(eq=False)
class Utf8(ByteArray):
    """
    UTF-8 bytes, as C{encodeAsUTF8} answers them.
    """


@attr.s(eq=False)
class SymbolList:
    """
    A session's symbol list (C{System myUserProfile symbolList}); its
    dictionaries live in the session's transaction.
    """

    session = attr.ib()


@attr.s(frozen=True)
class CompiledMethod:
    """
    A GsNMethod: the method C{selector} of C{behavior} (a kernel class, a
    L{UserClass}, or either's metaclass).
    """

    behavior = attr.ib()
    selector = attr.ib()


@attr.s(eq=False)
class ActiveMethod:
    """
    The GsNMethod a frame of the stack runs (L{frames}): one object per
    method, doit or block, so reflection answers the same one each time.
    A doit's C{behavior} and C{selector} are None; a block's C{home} is the
    method it is in, C{node} its tree.
    """

    behavior = attr.ib()
    selector = attr.ib()
    source = attr.ib()
    home = attr.ib(default=None)
    node = attr.ib(default=None)
    blocks = attr.ib(factory=dict)


@attr.s(frozen=True)
class ExceptionSet:
    """
    Exception classes joined with C{,}; a handler for it catches any.
    """

    classes = attr.ib()


@attr.s(eq=False)
class Dictionary:
    """
    A Dictionary; keys are held by L{keyOf} so equal Strings find each other.
    """

    entries = attr.ib(factory=dict)     # keyOf(key) -> (key, value)


@attr.s(eq=False)
class SessionTempsDictionary(Dictionary):
    """
    A session's SessionTemps (L{gsmcpd.testing.simulator.sessiontemps}):
    a Dictionary's entries, of GemStone's class SessionTemps.
    """


@attr.s(eq=False)
class Delay:
    seconds = attr.ib()


@attr.s(frozen=True)
class SymbolDictionaryRef:
    """
    A symbol dictionary of the repository (C{UserGlobals}, C{Globals}); its
    contents live in the transaction model, not in this object.
    """

    name = attr.ib()


@attr.s(frozen=True)
class UserProfile:
    userId = attr.ib()


@attr.s(frozen=True)
class UserClass:
    """
    A class defined in the repository (or its metaclass, when C{meta}),
    named rather than held: its definition and methods live in the
    session's view, so the same name means the same class, as a Symbol does.
    """

    className = attr.ib()
    meta = attr.ib(default=False)
    version = attr.ib(default=None, eq=False)
    """The version of the class history it is (None: the current one);
    C{==} tells versions apart, lookup does not."""

    @property
    def name(self):
        return f"{self.className} class" if self.meta else self.className


@attr.s(frozen=True)
class MethodDictionary:
    """
    The GsMethodDictionary of a class's one side (its class side when
    C{meta}): what a commit that compiled a method conflicts on.  Only its
    identity is modelled; the methods live in the session's view.
    """

    className = attr.ib()
    meta = attr.ib(default=False)


@attr.s(frozen=True)
class SymbolSet:
    """
    The per-class SymbolSet a commit that compiled a method conflicts on;
    only its identity is modelled.
    """

    className = attr.ib()


@attr.s(eq=False)
class Instance:
    """
    An instance of a user class: its class (a L{UserClass}, or a kernel
    class for C{Object new}) and its named instance variables.
    """

    cls = attr.ib()
    slots = attr.ib(factory=dict)


@attr.s(eq=False)
class BlockClosure:
    """
    A block and the frame it closes over.
    """

    node = attr.ib()
    frame = attr.ib()

    @property
    def numArgs(self):
        return len(self.node.params)


def keyOf(value):
    """
    A hashable stand-in for C{value} as a dictionary key (Strings and
    Symbols with the same text are the same key).
    """
    if isinstance(value, (String, Symbol)):
        return ("text", value.text)
    if isinstance(value, (bool, int, float, Fraction, Character, UserClass)) or value is None:
        return ("value", type(value).__name__ == "bool", value)
    return ("identity", id(value))


def equal(a, b):
    """
    Smalltalk C{=}.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isNumber(a) and isNumber(b):
        return a == b
    if isinstance(a, (String, Symbol)) and isinstance(b, (String, Symbol)) \
            and isinstance(a, Unicode16) != isinstance(b, Unicode16):
        # GemStone on a String-configured image (measured on 3.7.x):
        # ArgumentError, not false.
        from gsmcpd.testing.simulator.errors import unicodeComparison
        raise unicodeComparison()
    if isinstance(a, String) and isinstance(b, (String, Symbol)):
        return a.text == b.text
    if isinstance(a, ByteArray) and isinstance(b, ByteArray):
        return a.data == b.data
    if isinstance(a, Symbol):
        return a == b
    if isinstance(a, (Character, UserClass, SymbolDictionaryRef, CompiledMethod)):
        return a == b
    for kind, compare in EQUALITY.items():
        if isinstance(a, kind):
            return compare(a, b)
    if type(a) is type(b) and isinstance(a, (Array, OrderedCollection)):
        return (len(a.items) == len(b.items)
                and all(equal(x, y)
                        for x, y in zip(a.items, b.items, strict=True)))
    return a is b


def isNumber(value):
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)


def normalize(number):
    """
    A Fraction with denominator 1 is an Integer in Smalltalk.
    """
    if isinstance(number, Fraction) and number.denominator == 1:
        return number.numerator
    return number


def className(value):
    """
    The name of C{value}'s class, as GemStone 3.7 names it.
    """
    from gsmcpd.testing.simulator.kernel import classOf
    return classOf(value).name


def article(name):
    return "an" if name[:1] in "AEIOU" else "a"


def printString(value):
    """
    What C{value printString} answers on GemStone 3.7.
    """
    from gsmcpd.testing.simulator.kernel import StClass
    if value is None:
        return "nil"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _printFloat(value)
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, String):
        return "'" + value.text.replace("'", "''") + "'"
    if isinstance(value, Symbol):
        if _PLAIN_SYMBOL.match(value.text):
            return "#" + value.text
        return "#'" + value.text.replace("'", "''") + "'"
    if isinstance(value, Character):
        return "$" + value.char
    if isinstance(value, ByteArray):
        return f"{article(className(value))}{className(value)}(" + "".join(
            f" {b}" for b in value.data) + " )"
    if isinstance(value, (Array, OrderedCollection)):
        return printElements(value, value.items)
    if isinstance(value, Dictionary):
        name = className(value)
        inner = ", ".join(f"{printString(k)}->{printString(v)}"
                          for k, v in value.entries.values())
        return f"{article(name)}{name}( {inner})"
    for kind, printer in PRINTERS.items():
        if isinstance(value, kind):
            return printer(value)
    if isinstance(value, (StClass, UserClass)):
        return value.name
    if isinstance(value, SymbolDictionaryRef):
        return f"a SymbolDictionary named {value.name}"
    if isinstance(value, CompiledMethod):
        return f"{value.behavior.name}>>{value.selector}"
    name = className(value)
    return f"{article(name)}{name}"


def printElements(value, items):
    """
    GemStone's print of a collection: its class with its article, then its
    elements between parentheses, separated by commas.
    """
    name = className(value)
    inner = "".join(" " + printString(each) + ("," if i < len(items) - 1 else "")
                    for i, each in enumerate(items))
    return f"{article(name)}{name}({inner or ' '})"


PRINTERS = {}
"""C{{python type: function}}: how the values of the kernel modules'
own types print (L{printString} falls back on them)."""

EQUALITY = {}
"""C{{python type: function(a, b)}}: C{=} for the kernel modules' own types."""


def displayString(value):
    """
    What C{value displayString} answers: Strings and Symbols without quotes.
    """
    if isinstance(value, (String, Symbol)):
        return value.text
    if isinstance(value, Character):
        return value.char
    return printString(value)


def _printFloat(value):
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "PlusInfinity" if value > 0 else "MinusInfinity"
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        return f"{mantissa}e{int(exponent)}"
    return text

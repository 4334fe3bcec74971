"""
Tonel, the file format GemStone's Rowan (and Pharo's Iceberg) keeps code
in under git: written and read here, in the daemon, so the stone sees only
ordinary definitions and compiles.

A package is a directory: C{package.st}, one C{<Class>.class.st} per class
it defines and one C{<Class>.extension.st} per class it only adds methods
to.  A file is an optional comment, a STON-like header (C{Class {...}}),
then its methods, each a metadata map and C{Account >> selector [body]}.
Written as Rowan writes it for GemStone: string values quoted, the
header's keys in Rowan's order (C{#type} after C{#superclass}, only for a
byte or indexable class), empty lists left out, class-side methods
before instance-side ones, each side by selector (code points), one blank
line before each method.  A method's body is its source after the
pattern, verbatim, so C{write(parse(text)) == text} for what this module
wrote, and a method's source comes back as it went out.
"""

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

import attr

from gsmcpd.smalltalk import SmalltalkSyntaxError, closing_bracket, parse_selector


@attr.s(frozen=True, auto_attribs=True)
class TonelMethod:
    """One method as a Tonel file holds it (C{line}: where it starts)."""

    className: str
    meta: bool
    selector: str
    category: str
    source: str
    path: str = attr.ib(default="", eq=False)
    line: int = attr.ib(default=0, eq=False)


@attr.s(frozen=True, auto_attribs=True)
class TonelClass:
    """A class definition, as a C{.class.st} file's header holds it."""

    name: str
    superclass: str | None
    instVars: tuple[str, ...] = ()
    classVars: tuple[str, ...] = ()
    pools: tuple[str, ...] = ()
    classInstVars: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    category: str | None = None
    comment: str = ""
    classType: str | None = None
    """Rowan's C{#type}: C{byteSubclass} or C{variable} (indexable); None
    for a pointer class, which Rowan writes without one."""


@attr.s(frozen=True, auto_attribs=True)
class TonelFile:
    """
    One parsed file: C{kind} is C{package}, C{class} or C{extension};
    C{name} the package's or the class's.
    """

    path: str
    kind: str
    name: str
    definition: TonelClass | None
    methods: tuple[TonelMethod, ...]


class TonelSyntaxError(ValueError):
    """A file that is not Tonel: where (1-based) and why."""

    def __init__(self, path: str, line: int, column: int,
                 message: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path, self.line, self.column = path, line, column
        self.message = message


_T = TypeVar("_T")

# Writing

_LISTS = (("instVars", "instVars"), ("classVars", "classVars"),
          ("pools", "pools"), ("classInstVars", "classInstVars"),
          ("gs_options", "options"))
"""Header keys and the attributes they hold, in the order Rowan writes
them (between C{#superclass} and C{#category})."""


CLASS_TYPES = ("byteSubclass", "variable")
"""The C{#type}s a class is loaded with, as Rowan writes them for GemStone's
byte and indexable classes."""


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _header(kind: str, pairs: list[tuple[str, str]]) -> str:
    body = ",\n".join(f"\t#{key} : {value}" for key, value in pairs)
    return f"{kind} {{\n{body}\n}}\n"


def packageFile(name: str) -> str:
    """C{package.st}'s text."""
    return _header("Package", [("name", _quoted(name))])


def _definition(definition: TonelClass) -> str:
    pairs = [("name", _quoted(definition.name)),
             ("superclass", _quoted(definition.superclass or "nil"))]
    if definition.classType is not None:
        pairs.append(("type", _quoted(definition.classType)))
    for key, attribute in _LISTS:
        names = getattr(definition, attribute)
        if names:
            items = ",\n".join(f"\t\t{_quoted(each)}" for each in names)
            pairs.append((key, f"[\n{items}\n\t]"))
    if definition.category is not None:
        pairs.append(("category", _quoted(definition.category)))
    comment = ("" if not definition.comment else
               '"\n' + definition.comment.replace('"', '""') + '\n"\n')
    return comment + _header("Class", pairs)


_PATTERN = re.compile(
    r"\s*(?:(?P<keywords>[A-Za-z_]\w*:\s*[A-Za-z_]\w*"
    r"(?:\s*[A-Za-z_]\w*:\s*[A-Za-z_]\w*)*)"
    r"|(?P<binary>[-+*/\\<>=~@%|&?,!]+\s*[A-Za-z_]\w*)"
    r"|(?P<unary>[A-Za-z_]\w*)(?![\w:]))")


def splitSource(source: str) -> tuple[str, str]:
    """
    A method's source as Tonel writes it: its pattern on one line (runs of
    blanks made one space) and the rest, verbatim.
    """
    match = _PATTERN.match(source)
    if match is None:
        first, newline, rest = source.partition("\n")
        return first.strip(), newline + rest
    return " ".join(match.group().split()), source[match.end():]


def methodOrder(methods: Iterable[TonelMethod]) -> list[TonelMethod]:
    """Class side first, each side by selector in code points."""
    return sorted(methods, key=lambda m: (not m.meta, m.selector))


def methodText(method: TonelMethod) -> str:
    """One method as a file holds it: its metadata, then its definition."""
    pattern, body = splitSource(method.source)
    side = " class" if method.meta else ""
    return (f"{{ #category : {_quoted(method.category)} }}\n"
            f"{method.className}{side} >> {pattern} [{body}\n]\n")


def _methods(methods: Iterable[TonelMethod]) -> str:
    return "".join("\n" + methodText(each) for each in methodOrder(methods))


def classFile(definition: TonelClass,
              methods: Iterable[TonelMethod]) -> str:
    """A C{.class.st} file's text."""
    return _definition(definition) + _methods(methods)


def extensionFile(className: str, methods: Iterable[TonelMethod]) -> str:
    """A C{.extension.st} file's text."""
    return _header("Extension", [("name", _quoted(className))]) + \
        _methods(methods)


# Reading

_NAME = re.compile(r"[A-Za-z_][\w]*")
_BLANKS = re.compile(r"\s*")


class _Reader:
    """A cursor over one file's text, reporting where it failed."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text, self.pos = path, text, 0

    def error(self, message: str, pos: int | None = None) -> TonelSyntaxError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        return TonelSyntaxError(self.path, line,
                                at - (self.text.rfind("\n", 0, at) + 1) + 1,
                                message)

    def blanks(self) -> None:
        match = _BLANKS.match(self.text, self.pos)
        self.pos = match.end() if match else self.pos

    def atEnd(self) -> bool:
        self.blanks()
        return self.pos >= len(self.text)

    def expect(self, literal: str) -> None:
        self.blanks()
        if not self.text.startswith(literal, self.pos):
            raise self.error(f"expected {literal!r}")
        self.pos += len(literal)

    def peek(self, literal: str) -> bool:
        self.blanks()
        return self.text.startswith(literal, self.pos)

    def name(self) -> str:
        self.blanks()
        match = _NAME.match(self.text, self.pos)
        if match is None:
            raise self.error("expected a name")
        self.pos = match.end()
        return match.group()

    def quoted(self, quote: str) -> str:
        start, parts, pos = self.pos, [], self.pos + 1
        while True:
            end = self.text.find(quote, pos)
            if end < 0:
                raise self.error(f"unterminated {quote}", start)
            parts.append(self.text[pos:end])
            if not self.text.startswith(quote, end + 1):
                self.pos = end + 1
                return "".join(parts)
            parts.append(quote)
            pos = end + 2

    def value(self) -> object:
        """A STON value: string, symbol, list, map, nil, true, false."""
        self.blanks()
        char = self.text[self.pos:self.pos + 1]
        if char == "'":
            return self.quoted("'")
        if char == "#":
            self.pos += 1
            return self.quoted("'") if self.peek("'") else self.name()
        if char == "[":
            return self.sequence("[", "]", self.value)
        if char == "{":
            return self.map()
        word = self.name()
        if word in ("nil", "true", "false"):
            return {"nil": None, "true": True, "false": False}[word]
        raise self.error(f"unexpected {word!r}", self.pos - len(word))

    def sequence(self, opener: str, closer: str,
                 item: Callable[[], _T]) -> list[_T]:
        self.expect(opener)
        items: list[_T] = []
        if not self.peek(closer):
            while True:
                items.append(item())
                if not self.peek(","):
                    break
                self.expect(",")
        self.expect(closer)
        return items

    def map(self) -> dict[str, object]:
        def pair() -> tuple[str, object]:
            self.expect("#")
            key = self.quoted("'") if self.peek("'") else self.name()
            self.expect(":")
            return key, self.value()
        return dict(self.sequence("{", "}", pair))


def _strings(reader: _Reader, header: dict[str, object], key: str,
             pos: int) -> tuple[str, ...]:
    value = header.get(key, [])
    if not isinstance(value, list) or not all(
            isinstance(each, str) for each in value):
        raise reader.error(f"#{key} must be a list of names", pos)
    return tuple(value)


def _string(reader: _Reader, header: dict[str, object], key: str,
            pos: int, default: str | None = None) -> str | None:
    value = header.get(key, default)
    if value is not None and not isinstance(value, str):
        raise reader.error(f"#{key} must be a string", pos)
    return value


def _classDefinition(reader: _Reader, header: dict[str, object],
                     comment: str, pos: int) -> TonelClass:
    name = _string(reader, header, "name", pos)
    if not name:
        raise reader.error("the class has no #name", pos)
    superclass = _string(reader, header, "superclass", pos, "nil")
    lists = {attribute: _strings(reader, header, key, pos)
             for key, attribute in _LISTS}
    classType = _string(reader, header, "type", pos, "normal")
    if classType not in ("normal", *CLASS_TYPES):
        raise reader.error(f"a class of #type {classType!r} is not loaded "
                           f"(only {', '.join(CLASS_TYPES)} or none)", pos)
    return TonelClass(
        name, None if superclass == "nil" else superclass,
        lists["instVars"], lists["classVars"], lists["pools"],
        lists["classInstVars"], lists["options"],
        _string(reader, header, "category", pos), comment,
        None if classType == "normal" else classType)


def _method(reader: _Reader, className: str) -> TonelMethod:
    start = reader.pos
    metadata = reader.map()
    category = metadata.get("category")
    if not isinstance(category, str):
        raise reader.error("a method needs a #category string", start)
    line = reader.text.count("\n", 0, start) + 1
    owner = reader.name()
    meta = False
    if reader.peek("class"):
        reader.name()
        meta = True
    if owner != className:
        raise reader.error(f"a method of {owner} in {className}'s file")
    reader.expect(">>")
    reader.blanks()
    opener = reader.text.find("[", reader.pos)
    if opener < 0:
        raise reader.error("expected '[' after the method's pattern")
    pattern = " ".join(reader.text[reader.pos:opener].split())
    try:
        selector = parse_selector(pattern)
    except SmalltalkSyntaxError as e:
        raise reader.error(e.message)
    try:
        closer = closing_bracket(reader.text, opener + 1)
    except SmalltalkSyntaxError as e:
        raise reader.error(e.message, e.offset)
    body = reader.text[opener + 1:closer]
    reader.pos = closer + 1
    return TonelMethod(className, meta, selector, category,
                       pattern + body.removesuffix("\n"),
                       reader.path, line)


def parseFile(path: str, text: str) -> TonelFile:
    """
    One Tonel file read whole.

    @raise TonelSyntaxError: where it is not Tonel.
    """
    reader = _Reader(path, text)
    comment = ""
    if reader.peek('"'):
        comment = reader.quoted('"').removeprefix("\n").removesuffix("\n")
    reader.blanks()
    start = reader.pos
    kind = reader.name()
    if kind not in ("Package", "Class", "Extension"):
        raise reader.error("expected Package, Class or Extension", start)
    header = reader.map()
    if kind == "Package":
        name = _string(reader, header, "name", start)
        if not reader.atEnd():
            raise reader.error("a package file holds only its name")
        return TonelFile(path, "package", name or "", None, ())
    definition = _classDefinition(reader, header, comment, start) \
        if kind == "Class" else None
    name = definition.name if definition else _string(
        reader, header, "name", start)
    if not name:
        raise reader.error("the extension has no #name", start)
    methods = []
    while not reader.atEnd():
        methods.append(_method(reader, name))
    return TonelFile(path, kind.lower(), name, definition, tuple(methods))

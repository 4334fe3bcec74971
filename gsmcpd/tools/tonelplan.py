"""
Between Tonel files and the stone: the stone's classes as Tonel, the
changes a set of files makes to them (what C{diff_tonel} shows and
C{load_tonel} compiles), and the C{base} token that names the versions an
export read.  Pure: the toolset (L{gsmcpd.tools.tonel}) runs the
templates.
"""

import base64
import difflib
import hashlib
import json
import zlib
from collections.abc import Iterable, Sequence

import attr

from gsmcpd.smalltalk import Literal, Message, SmalltalkSyntaxError, parse_expression
from gsmcpd.tools.arguments import JsonObject
from gsmcpd.tools.compiling import methodName
from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.tonelformat import (
    TonelClass,
    TonelFile,
    TonelMethod,
    TonelSyntaxError,
    classFile,
    extensionFile,
    methodOrder,
    methodText,
    packageFile,
    parseFile,
)


@attr.s(frozen=True, auto_attribs=True)
class StoneClass:
    """A class as the stone holds it: its definition, its home, its
    methods."""

    definition: TonelClass
    dictionary: str
    methods: tuple[TonelMethod, ...]
    expression: str
    """Its definition expression, as C{Class>>definition} answers it."""

    @property
    def package(self) -> str:
        return self.definition.category or self.dictionary

    @property
    def ownMethods(self) -> list[TonelMethod]:
        """Its package's methods: not those of an extension category
        (C{*name}), which another package's extension file holds."""
        return [each for each in self.methods
                if not each.category.startswith("*")]


def _definitionParts(definition: str) -> dict[str, tuple[str, ...]]:
    """
    The pools and options a class's definition expression names (no
    selector answers them on every version): its keyword arguments.
    """
    try:
        statements = parse_expression(definition).statements
    except SmalltalkSyntaxError:
        return {}
    message = statements[0] if statements else None
    if not isinstance(message, Message) or ":" not in message.selector:
        return {}
    parts = {}
    keywords = [each + ":" for each in message.selector.split(":")[:-1]]
    for keyword, argument in zip(keywords, message.args, strict=True):
        if isinstance(argument, Literal) and isinstance(argument.value, tuple):
            parts[keyword] = tuple(str(each.value) if isinstance(each, Literal)
                                   else str(each) for each in argument.value)
    return parts


def _ownComment(name: str, comment: str | None) -> str:
    """
    A class's comment, or none: for a class without one, GemStone's
    C{comment} answers a text of its own making ("No class-specific
    documentation for ...", then the hierarchy), which is not the class's
    and would not survive a round trip.
    """
    generated = f"No class-specific documentation for {name}, hierarchy is: "
    return "" if not comment or comment.startswith(generated) else comment


def stoneClass(record: JsonObject) -> StoneClass:
    """One class of the C{export_tonel} template's answer."""
    parts = _definitionParts(record["definition"])
    name = record["className"]
    definition = TonelClass(
        name, record["superclass"], tuple(record["instVarNames"]),
        tuple(record["classVarNames"]),
        parts.get("poolDictionaries:", ()),
        tuple(record["classInstVarNames"]), parts.get("options:", ()),
        record["category"], _ownComment(name, record["comment"]),
        record["classType"])
    methods = tuple(TonelMethod(name, each["meta"], each["selector"],
                                each["category"], each["source"])
                    for each in record["methods"])
    return StoneClass(definition, record["dictionary"], methods,
                      record["definition"])


def stoneExtensions(records: Sequence[JsonObject]) -> list[TonelMethod]:
    """The extension methods the C{export_tonel} template answered."""
    return [TonelMethod(record["className"], each["meta"], each["selector"],
                        each["category"], each["source"])
            for record in records for each in record["methods"]]


@attr.s(auto_attribs=True)
class StoneRead:
    """
    What one or more pages of the C{export_tonel} template read: classes,
    how many the scope holds, extension methods, how many classes the
    stone has in each category it named (L{exportedFiles}'s whole
    packages), and how those the extensions name are spelt.
    """

    classes: list[StoneClass] = attr.Factory(list)
    total: int = 0
    extensions: list[TonelMethod] = attr.Factory(list)
    sizes: dict[str, int] = attr.Factory(dict)
    names: dict[str, str] = attr.Factory(dict)
    """Packages as a class category spells them, by their names in lower
    case."""

    def add(self, value: JsonObject) -> None:
        """One page's answer."""
        self.classes.extend(stoneClass(each) for each in value["classes"])
        self.extensions.extend(stoneExtensions(value["extensions"]))
        self.sizes.update(value["packageSizes"])
        self.names.update(value["packageNames"])
        self.total = value["total"]


def _extensionPackage(category: str, names: dict[str, str]) -> str:
    """
    The package an extension category (C{*name}, in any case) names: a
    category the stone has, as it spells it, else the name as written.
    """
    name = category[1:]
    return names.get(name.lower(), name)


def exportedFiles(read: StoneRead) -> list[JsonObject]:
    """
    The files of what C{read} holds as Rowan lays packages out: for each
    package, its C{package.st} where the files hold the whole package
    (every class the stone has in that category: C{diff_tonel} reads a
    C{package.st} as the directory being the package, so a class file
    missing from it as the class removed), its classes' files, then its
    extensions, a file per class they extend.
    """
    packages: dict[str, list[StoneClass]] = {}
    for each in read.classes:
        packages.setdefault(each.package, []).append(each)
    names = {name.lower(): name for name in [*read.sizes, *packages]}
    names.update(read.names)
    extended: dict[str, dict[str, list[TonelMethod]]] = {}
    for method in read.extensions:
        extended.setdefault(
            _extensionPackage(method.category, names), {}).setdefault(
            method.className, []).append(method)
    for package in sorted(set(extended) - set(packages)):
        packages[package] = []
    files: list[JsonObject] = []
    for package, members in packages.items():
        if read.sizes.get(package) == sum(
                each.definition.category == package for each in members):
            files.append({"path": f"{package}/package.st",
                          "content": packageFile(package)})
        files.extend({"path": f"{package}/{each.definition.name}.class.st",
                      "content": classFile(each.definition, each.ownMethods)}
                     for each in members)
        byClass = extended.get(package, {})
        files.extend({"path": f"{package}/{name}.extension.st",
                      "content": extensionFile(name, byClass[name])}
                     for name in sorted(byClass))
    return files


# The versions an export read

def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def versions(classes: Sequence[StoneClass],
              extensions: Iterable[TonelMethod]) -> dict[str, str]:
    """The version of each class and method: a digest of its text."""
    found = {}
    for each in classes:
        found[f"class {each.definition.name}"] = _digest(
            classFile(each.definition, ()))
    for method in [*(m for each in classes for m in each.methods),
                   *extensions]:
        found[_methodKey(method)] = _digest(
            method.category + "\0" + method.source)
    return found


def _methodKey(method: TonelMethod) -> str:
    return "method " + methodName(method.className, method.selector,
                                  method.meta)


def baseToken(classes: Sequence[StoneClass],
              extensions: Iterable[TonelMethod] = ()) -> str:
    """A token naming the version of each class and method exported."""
    packed = zlib.compress(json.dumps(versions(classes, extensions),
                                      sort_keys=True).encode())
    return "tonel1." + base64.urlsafe_b64encode(packed).decode()


BASE_LIMIT = 64 << 20
"""Bytes the tokens of one C{base} may inflate to, together.  An export's
base holds a key and a 16-digit digest per class and method, about 60
bytes each, which deflate shrinks about four times: a synthetic base of
100,000 methods in 2,500 classes (more than a kernel export) is 6.1 MB,
1.5 MB deflated.  A crafted token must not inflate to gigabytes on the
reactor thread."""


def readBase(token: str) -> dict[str, str]:
    """
    The versions C{token} names (several tokens, of an export's pages,
    may be given separated by spaces).

    @raise ToolError: C{invalidParams} for anything else.
    """
    named: dict[str, str] = {}
    budget = BASE_LIMIT
    for each in token.split():
        try:
            if not each.startswith("tonel1."):
                raise ValueError(each)
            inflating = zlib.decompressobj()
            text = inflating.decompress(base64.urlsafe_b64decode(
                each[len("tonel1."):]), budget)
            if inflating.unconsumed_tail or not inflating.eof:
                raise ValueError(each)  # larger than any export's base
            budget -= len(text)
            found = json.loads(text)
            if not isinstance(found, dict):
                raise ValueError(each)
        except (ValueError, zlib.error):
            raise ToolError("invalidParams", "base is not a token "
                            "export_tonel answered")
        named.update(found)
    return named


# Files against the stone

@attr.s(frozen=True, auto_attribs=True)
class Change:
    """
    One difference the files make: to a class's definition (C{method}
    L{None}) or to one method; C{old}/C{new} are L{None} where it is
    absent.
    """

    className: str
    change: str
    path: str
    old: TonelClass | TonelMethod | None
    new: TonelClass | TonelMethod | None

    @property
    def method(self) -> TonelMethod | None:
        either = self.new or self.old
        return either if isinstance(either, TonelMethod) else None

    @property
    def key(self) -> str:
        method = self.method
        return f"class {self.className}" if method is None \
            else _methodKey(method)

    def text(self, side: TonelClass | TonelMethod | None) -> str:
        if side is None:
            return ""
        if isinstance(side, TonelClass):
            return classFile(side, ())
        return methodText(side)

    def diff(self) -> str:
        return "".join(difflib.unified_diff(
            self.text(self.old).splitlines(True),
            self.text(self.new).splitlines(True),
            f"stone/{self.path}", self.path))

    def structured(self) -> JsonObject:
        method = self.method
        return {"className": self.className, "change": self.change,
                "selector": None if method is None else method.selector,
                "meta": False if method is None else method.meta,
                "path": self.path, "diff": self.diff()}

    def describe(self) -> str:
        method = self.method
        return f"{self.change} " + (
            f"class {self.className}" if method is None else
            methodName(method.className, method.selector, method.meta))


def parsedFiles(files: Sequence[JsonObject]) -> list[TonelFile]:
    """
    The files as Tonel, a class defined or extended once.

    @raise ToolError: C{compileError} naming every file that is not
        Tonel, with its line and column.
    """
    parsed: list[TonelFile] = []
    errors: list[JsonObject] = []
    for file in files:
        try:
            parsed.append(parseFile(file["path"], file["content"]))
        except TonelSyntaxError as e:
            errors.append({"path": e.path, "line": e.line,
                           "column": e.column, "message": e.message})
    seen: set[tuple[str, str]] = set()
    for each in parsed:
        if each.kind != "package" and (each.kind, each.name) in seen:
            errors.append({"path": each.path, "line": 1, "column": 1,
                           "message": f"{each.name} is in two files"})
        seen.add((each.kind, each.name))
    if errors:
        raise filesError("Some files are not Tonel", errors)
    return parsed


def filesError(headline: str, errors: list[JsonObject],
               notUndone: Sequence[str] = ()) -> ToolError:
    """
    The C{compileError} of files: each error at its file, line and
    column; and, where taking back a load's steps failed, what stays.
    """
    lines = "\n".join(f"{e['path']}:{e['line']}:{e['column']}: "
                      f"{e['message']}" for e in errors)
    if not notUndone:
        return ToolError("compileError", f"{headline}; nothing was "
                         f"changed:\n{lines}", {"errors": errors})
    stays = "\n".join(f"- {each}" for each in notUndone)
    return ToolError(
        "compileError", f"{headline}:\n{lines}\nTaking back what was done "
        f"failed, so some of the changes stay (uncommitted; abort "
        f"discards every uncommitted change):\n{stays}",
        {"errors": errors, "notUndone": list(notUndone)})


def changes(parsed: Sequence[TonelFile], stone: dict[str, StoneClass],
            packages: Iterable[str] = ()) -> list[Change]:
    """
    What the files change in the stone: each class definition and method
    added, changed or removed (a method is removed only from a class the
    files define, not one they extend; a class only from a package whose
    C{package.st} they hold), definitions first.
    """
    defined = {each.name for each in parsed if each.definition is not None}
    found: list[Change] = [
        Change(name, "removed", f"{package}/{name}.class.st",
               stone[name].definition, None)
        for package in packages for name in sorted(stone)
        if stone[name].definition.category == package
        and name not in defined]
    for each in parsed:
        if each.kind == "package":
            continue
        there = stone.get(each.name)
        if each.definition is not None:
            before = None if there is None else there.definition
            if before != each.definition:
                found.append(Change(each.name, "added" if before is None
                                    else "changed", each.path, before,
                                    each.definition))
        theirs = {} if there is None else {
            (m.meta, m.selector): m for m in there.methods}
        for method in each.methods:
            old = theirs.pop((method.meta, method.selector), None)
            if old != method:
                found.append(Change(each.name, "added" if old is None
                                    else "changed", each.path, old, method))
        if each.definition is not None and there is not None:
            found.extend(Change(each.name, "removed", each.path, old, None)
                         for old in methodOrder(there.ownMethods)
                         if (old.meta, old.selector) in theirs)
    return found

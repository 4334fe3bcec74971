"""
The Tonel toolset: the stone's code out as Tonel files, the difference a
set of files makes, and the files compiled back in.

The agent's own file tools and git do the files; parsing and writing
Tonel happen here (L{gsmcpd.tools.tonelformat}), and the stone sees the
mutation tools' guarded templates: a class definition, a method, a
removal, each passing the blind-write guardrail.  C{load_tonel} is all or
nothing: files that do not parse change nothing, and a method the stone's
compiler refuses takes back everything the load had done.  Served when
named.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from urllib.parse import unquote

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import (
    BOOLEAN,
    INTEGER,
    OPTIONAL_STRING,
    STRING,
    JsonObject,
    flagArgument,
    stringArgument,
)
from gsmcpd.tools.base import (
    ANY_SESSION,
    OWN_SESSION,
    Steps,
    Tool,
    ToolCall,
    ToolError,
    ToolResult,
    annotations,
    closedSchema,
    counted,
    resultSchema,
)
from gsmcpd.tools.confirm import CONFIRM_OPTION, confirmedIf, confirming
from gsmcpd.tools.journal import itemised
from gsmcpd.tools.ledger import ReadLedger, classKey, methodKey
from gsmcpd.tools.mutation import MutationToolset
from gsmcpd.tools.offerings import ResourceTemplate
from gsmcpd.tools.paging import pagingProperties
from gsmcpd.tools.tonelapply import Loader
from gsmcpd.tools.tonelformat import TonelFile, packageFile
from gsmcpd.tools.tonelplan import (
    Change,
    StoneClass,
    StoneRead,
    baseToken,
    changes,
    exportedFiles,
    parsedFiles,
    readBase,
    versions,
)

EXPORT_LIMIT = 100
"""Classes (a file each) an export answers by default."""

PAGE_SOURCE = 400_000
"""Characters of method source after which a page ends early: a result
is at most a megabyte, and JSON escapes some."""

FILES = {"type": "array", "maxItems": 10000, "items": {
    "type": "object", "additionalProperties": False,
    "required": ["path", "content"],
    "properties": {"path": stringArgument(), "content": {
        "type": "string", "maxLength": 4 << 20}}}}
"""Tonel files in: each its path in the package and its text."""

FILE_SCHEMA = resultSchema(path=STRING, content=STRING)

CHANGE_SCHEMA = resultSchema(
    className=STRING, change=STRING, selector=OPTIONAL_STRING, meta=BOOLEAN,
    path=STRING, diff=STRING)
"""One change: C{added}, C{changed} or C{removed}, of a class definition
(selector null) or a method, with its unified diff against the stone."""


class TonelToolset(MutationToolset):
    """
    C{export_tonel}, C{diff_tonel} and C{load_tonel}; loading passes the
    mutation tools' guardrail and their C{kernelClasses} option.
    """

    name = "tonel"
    title = "Tonel"
    declaredOptionNames = ("kernelClasses", CONFIRM_OPTION)
    instructions = (
        "export_tonel writes a package as Tonel files for your git "
        "checkout; diff_tonel shows what edited files would change; "
        "load_tonel compiles that, all or nothing, uncommitted (pass the "
        "export's base so another session's newer code is never undone).")

    def tools(self) -> list[Tool]:
        return itemised([
            Tool("export_tonel", "Export Tonel",
                 "A class, a class category (a package) or a dictionary as "
                 "Tonel files, laid out as Rowan does; base names the "
                 "versions read, for load_tonel.",
                 closedSchema({"className": stringArgument(),
                               "category": stringArgument(),
                               "dictionary": stringArgument(),
                               **pagingProperties(EXPORT_LIMIT)}),
                 annotations(True), self.exportTonel,
                 resultSchema(files={"type": "array", "items": FILE_SCHEMA},
                              base=STRING, total=INTEGER,
                              nextOffset={"type": ["integer", "null"]}),
                 runsOn=ANY_SESSION),
            Tool("diff_tonel", "Diff Tonel",
                 "What Tonel files would change in the stone: each class "
                 "and method added, changed or removed, with a unified "
                 "diff; nothing for what is equal.",
                 closedSchema({"files": FILES}, required=["files"]),
                 annotations(True), self.diffTonel,
                 resultSchema(changes={"type": "array",
                                       "items": CHANGE_SCHEMA}),
                 runsOn=ANY_SESSION),
            Tool("load_tonel", "Load Tonel",
                 "Compile what diff_tonel reports, superclasses first, all "
                 "or nothing, uncommitted; with base, refused if the stone "
                 "changed since that export (without base, nothing "
                 "guards code you did not see). Methods missing from the "
                 "files, and classes missing from a package whose "
                 "package.st they hold, are removed only with "
                 "removeMissing.",
                 closedSchema({"files": FILES, "base": stringArgument(),
                               "removeMissing": flagArgument(
                                   "default false")},
                              required=["files"]),
                 annotations(False, destructive=True), self.loadTonel,
                 resultSchema(changes={"type": "array",
                                       "items": CHANGE_SCHEMA},
                              kept={"type": "array", "items": STRING}),
                 streams=confirming(self),  # asked on the call's stream
                 runsOn=OWN_SESSION),
        ])

    def resourceTemplates(self) -> list[ResourceTemplate]:
        return [ResourceTemplate(
            "gemstone://tonel/{package}/{file}", "tonel-file",
            self.readFile, title="Tonel file",
            description="One file of export_tonel's package layout "
                        "(package.st, <Class>.class.st or "
                        "<Class>.extension.st), as this session sees it",
            mimeType="text/plain")]

    @inlineCallbacks
    def readClasses(self, call: ToolCall, classNames: list[str] | None,
                    category: str | None = None,
                    dictionary: str | None = None, offset: int = 0,
                    limit: int | None = None) -> Steps[StoneRead]:
        """
        The stone's classes as Tonel, with the extension methods of the
        first page: a page of them, or with no C{limit} all from
        C{offset} (the template ends a page early at a size; the next one
        is read then).
        """
        read = StoneRead()
        while True:
            value = yield call.runTemplate("export_tonel", {
                "classNames": classNames, "category": category,
                "dictionaryName": dictionary, "offset": offset,
                "limit": limit, "sourceBudget": PAGE_SOURCE})
            read.add(value)
            offset += len(value["classes"])
            if limit is not None or offset >= value["total"] or \
                    not value["classes"]:
                return read

    @inlineCallbacks
    def exportTonel(self, call: ToolCall,
                    arguments: JsonObject) -> Steps[ToolResult]:
        scopes = [key for key in ("className", "category", "dictionary")
                  if key in arguments]
        if len(scopes) != 1:
            raise ToolError("invalidParams", "export_tonel needs one of "
                            "className, category or dictionary")
        className = arguments.get("className")
        offset = arguments.get("offset", 0)
        read = yield self.readClasses(
            call, None if className is None else [className],
            arguments.get("category"), arguments.get("dictionary"), offset,
            arguments.get("limit", EXPORT_LIMIT))
        total = read.total
        if not total and not read.extensions:
            raise ToolError("notFound", f"No class is named {className}"
                            if className else "No class is in "
                            f"{arguments.get('category') or arguments.get('dictionary')}")
        end = offset + len(read.classes)
        counting = arguments.get("limit") == 0  # the count alone
        nextOffset = end if end < total and not counting else None
        files = [] if counting else exportedFiles(read)
        more = "" if nextOffset is None else \
            f"; pass offset: {nextOffset} for the next page"
        text = "\n".join([f"{counted(len(files), 'file')} of "
                          f"{counted(total, 'class', 'classes')}{more}:",
                          *(each["path"] for each in files)])
        return ToolResult(text, {"files": files,
                                 "base": baseToken(read.classes,
                                                   read.extensions),
                                 "total": total, "nextOffset": nextOffset})

    @inlineCallbacks
    def readFile(self, call: ToolCall, uri: str, package: str,
                 file: str) -> Steps[list[JsonObject]]:
        package, file = unquote(package), unquote(file)
        if file == "package.st":
            return [{"uri": uri, "mimeType": "text/plain",
                     "text": packageFile(package)}]
        if file.endswith(".extension.st"):
            read = yield self.readClasses(call, None, package, limit=0)
        else:
            read = yield self.readClasses(
                call, [file.removesuffix(".class.st")])
        found = [each for each in exportedFiles(read)
                 if each["path"] == f"{package}/{file}"]
        if not found:
            raise ToolError("notFound", f"No Tonel file {package}/{file} "
                            "(export_tonel lists a package's files)")
        text = found[0]["content"]
        return [{"uri": uri, "mimeType": "text/plain", "text": text}]

    @inlineCallbacks
    def changesOf(self, call: ToolCall, parsed: Sequence[TonelFile],
                  ) -> Steps[tuple[list[Change], dict[str, StoneClass]]]:
        """
        What C{parsed} changes in the stone, and the stone's classes: those
        the files name, and every class of a package whose C{package.st}
        they hold (one without its file is removed).
        """
        packages = sorted({each.name for each in parsed
                           if each.kind == "package"})
        stone: dict[str, StoneClass] = {}
        for package in packages:
            read = yield self.readClasses(call, [], package)
            stone.update((each.definition.name, each)
                         for each in read.classes)
        names = sorted({each.name for each in parsed
                        if each.kind != "package"} - set(stone))
        if names or not packages:
            read = yield self.readClasses(call, names)
            stone.update((each.definition.name, each)
                         for each in read.classes)
        return changes(parsed, stone, packages), stone

    @inlineCallbacks
    def diffTonel(self, call: ToolCall,
                  arguments: JsonObject) -> Steps[ToolResult]:
        found, _ = yield self.changesOf(call, parsedFiles(arguments["files"]))
        return ToolResult(_report(found, "No change: the files are what "
                                  "the stone holds.", diffs=True),
                          {"changes": [each.structured() for each in found]})

    @inlineCallbacks
    def loadTonel(self, call: ToolCall,
                  arguments: JsonObject) -> Steps[ToolResult]:
        parsed = parsedFiles(arguments["files"])
        found, stone = yield self.changesOf(call, parsed)
        removeMissing = arguments.get("removeMissing", False)
        kept = [each.describe().removeprefix("removed ") for each in found
                if each.change == "removed" and not removeMissing]
        found = [each for each in found
                 if each.change != "removed" or removeMissing]
        if "base" in arguments:
            _checkBase(readBase(arguments["base"]), found, stone)
        removed = [each for each in found if each.change == "removed"]
        if removed:
            yield confirmedIf(
                self, call, _removalQuestion(removed),
                "remove " + " and ".join(
                    counted(*each) for each in _removedCounts(removed)))
        with _readForTheLoad(call.ledger, stone):
            yield Loader(self, call, stone, {
                (m.className, m.meta, m.selector): m
                for each in parsed for m in each.methods}).load(found)
        return ToolResult(
            _report(found, "No change: the files are what the stone holds.")
            + "".join(f"\nkept (not in the files; removeMissing removes "
                      f"it): {each}" for each in kept),
            {"changes": [each.structured() for each in found],
             "kept": kept})


@contextmanager
def _readForTheLoad(ledger: ReadLedger,
                    stone: dict[str, StoneClass]) -> Iterator[None]:
    """
    The stone's classes as read here, for the load's guarded steps, and
    only for them: the agent saw the files, not these texts, so a later
    compile_method or delete_method must still ask it to read first.
    What the load wrote (the files' own text) stays read; every other
    key is as before the load.
    """
    loaded = {classKey(each.definition.name): each.expression
              for each in stone.values()}
    loaded.update({methodKey(m.className, m.selector, m.meta): m.source
                   for each in stone.values() for m in each.methods})
    before = {key: ledger.lastRead(key) for key in loaded}
    for key, text in loaded.items():
        ledger.recordRead(key, text)
    try:
        yield
    finally:
        for key, text in loaded.items():
            if ledger.lastRead(key) == text:  # not written, or taken back
                previous = before[key]
                if previous is None:
                    ledger.forget(key)
                else:
                    ledger.recordRead(key, previous)


def _checkBase(base: dict[str, str], found: list[Change],
               stone: dict[str, StoneClass]) -> None:
    """
    Refuse a load that would overwrite what changed in the stone since
    the export C{base} names.
    """
    current = versions(list(stone.values()), ())
    moved = [each.key.split(" ", 1)[1] for each in found
             if base.get(each.key) != current.get(each.key)
             and (each.key in base or each.key in current)]
    if moved:
        raise ToolError(
            "refused", f"Changed in the stone since the export base names "
            f"(another session's commit, or another change): "
            f"{', '.join(moved[:20])}{' and more' if len(moved) > 20 else ''}"
            f"; nothing was loaded. Export again, merge, then load.",
            {"changed": moved})


def _removedCounts(removed: list[Change]) -> list[tuple[int, str, str]]:
    """How many classes and methods C{removed} removes, those it does."""
    classes = sum(each.method is None for each in removed)
    return [each for each in ((classes, "class", "classes"),
                              (len(removed) - classes, "method", "methods"))
            if each[0]]


def _removalQuestion(removed: list[Change]) -> str:
    """Asking to go ahead with a load's removals, naming each."""
    what = " and ".join(many for _, _, many in _removedCounts(removed))
    return f"Load these files, removing the {what} they lack?\n" + \
        "\n".join(f"- {each.describe().removeprefix('removed ')}"
                  for each in removed)


def _report(found: list[Change], none: str, diffs: bool = False) -> str:
    if not found:
        return none
    lines = [f"{counted(len(found), 'change')}:"]
    for each in found:
        lines.append(each.describe())
        if diffs and each.change == "changed":
            lines.append(each.diff().rstrip("\n"))
    return "\n".join(lines)

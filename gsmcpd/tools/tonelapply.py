"""
Compiling Tonel changes into the stone, all or nothing.

Each step is a mutation tool's own (a class definition, a comment, a
method, a removal), guarded as it is.  Nothing is sent before every
changed method parses here; a step the stone refuses (a compile error,
an unknown superclass) lets the others run, so every error is told at
once, and then every step done is taken back, last first.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attr
from twisted.internet.defer import Deferred, inlineCallbacks

from gsmcpd.smalltalk import SmalltalkSyntaxError, parse_method
from gsmcpd.tools.arguments import JsonObject
from gsmcpd.tools.base import Steps, ToolCall, ToolError, counted
from gsmcpd.tools.compiling import describeErrors, methodName
from gsmcpd.tools.tonelformat import TonelClass, TonelMethod
from gsmcpd.tools.tonelplan import Change, StoneClass, filesError

if TYPE_CHECKING:
    from gsmcpd.tools.mutation import MutationToolset


def _where(method: TonelMethod, offset: int, message: str) -> JsonObject:
    """
    A method's error at its place in its file: C{offset} (0-based) in
    its source, whose pattern starts on the line after the metadata.
    """
    source = method.source
    line = source.count("\n", 0, offset)
    column = offset - (source.rfind("\n", 0, offset) + 1) + 1
    if line == 0:
        prefix = f"{method.className}{' class' if method.meta else ''} >> "
        column += len(prefix)
    return {"path": method.path, "line": method.line + 1 + line,
            "column": column, "message": message}


def syntaxErrors(found: list[Change]) -> list[JsonObject]:
    """Each added or changed method that does not parse, located."""
    errors = []
    for change in found:
        method = change.new
        if isinstance(method, TonelMethod):
            try:
                parse_method(method.source)
            except SmalltalkSyntaxError as e:
                errors.append(_where(method, e.offset, e.message))
            except RecursionError:
                errors.append(_where(method, 0, "nests too deeply to parse"))
    return errors


def superclassesFirst(found: list[Change]) -> list[Change]:
    """The class definitions among C{found}, a superclass before its
    subclasses; then the methods, in the files' order; then the classes
    removed, a subclass before its superclass (the stone removes no
    class that has subclasses)."""
    definitions = {each.className: each for each in found
                   if each.method is None and each.new is not None}
    ordered: list[Change] = []

    def visit(change: Change) -> None:
        if change in ordered:
            return
        assert isinstance(change.new, TonelClass)
        superclass = definitions.get(change.new.superclass or "")
        if superclass is not None and superclass is not change:
            visit(superclass)
        ordered.append(change)

    for each in definitions.values():
        visit(each)
    removed = [each for each in found
               if each.method is None and each.new is None]
    while removed:
        parents = {each.old.superclass for each in removed
                   if isinstance(each.old, TonelClass)}
        leaves = [each for each in removed
                  if each.className not in parents] or removed
        removed = [each for each in removed if each not in leaves]
        ordered.extend(leaves)
    return [*(each for each in ordered if each.new is not None),
            *(each for each in found if each.method is not None),
            *(each for each in ordered if each.new is None)]


def _definitionArguments(definition: TonelClass) -> JsonObject:
    return {"className": definition.name,
            "superclassName": definition.superclass or "nil",
            "instVarNames": list(definition.instVars),
            "classVars": list(definition.classVars),
            "classInstVars": list(definition.classInstVars),
            "poolDictionaries": list(definition.pools),
            "options": list(definition.options),
            "classType": definition.classType,
            **({} if definition.category is None
               else {"category": definition.category})}


def _lostMessage(className: str, selector: str, meta: bool,
                 errors: list[JsonObject] | None) -> str:
    named = methodName(className, selector, meta)
    why = "was dropped by the new definition" if errors is None else (
        "did not compile in the new definition ("
        + describeErrors(errors).replace("\n", "; ") + ")")
    return f"{named} {why}: change it in the files too"


Undo = Callable[[], Deferred[Any]]


@attr.s(auto_attribs=True)
class Loader:
    """One load: its steps, and how to take back each step done."""

    tools: "MutationToolset"
    call: ToolCall
    stone: dict[str, StoneClass]
    files: dict[tuple[str, bool, str], TonelMethod] = attr.Factory(dict)
    """The files' methods, by class, side and selector."""
    undo: list[Undo] = attr.Factory(list)
    compiled: set[tuple[str, bool, str]] = attr.Factory(set)

    @inlineCallbacks
    def load(self, found: list[Change]) -> Steps[None]:
        """
        Compile C{found}, or nothing.

        @raise ToolError: C{compileError} with each error's file, line and
            column, after taking back every step done.
        """
        errors = syntaxErrors(found)
        self.compiled = {(each.className, each.meta, each.selector)
                         for each in (change.new for change in found)
                         if isinstance(each, TonelMethod)}
        if errors:
            raise filesError("Some methods do not parse", errors)
        for change in superclassesFirst(found):
            try:
                yield self.step(change)
            except ToolError as e:
                errors.extend(self.located(change, e))
        if errors:
            failed = yield self.rollBack()
            raise filesError("The stone refused some of the changes",
                             errors, failed)

    @inlineCallbacks
    def rollBack(self) -> Steps[list[str]]:
        """
        Take back every step done, last first, each whatever the others
        did: one that fails must not leave the rest applied.

        @return: why each step that could not be taken back failed.
        """
        failed = []
        for undo in reversed(self.undo):
            try:
                yield undo()
            except ToolError as e:
                failed.append(e.message)
        return failed

    def located(self, change: Change, error: ToolError) -> list[JsonObject]:
        method = change.method
        if method is None:
            return [{"path": change.path, "line": 1, "column": 1,
                     "message": error.message},
                    *(error.details or {}).get("located", [])]
        details = (error.details or {}).get("errors") or [
            {"offset": 1, "message": error.message}]
        return [_where(method, each["offset"] - 1, each["message"])
                for each in details]

    def _run(self, method: Callable[[ToolCall, JsonObject], Any],
             arguments: JsonObject) -> Deferred[Any]:
        return method(self.call, arguments)

    @inlineCallbacks
    def step(self, change: Change) -> Steps[None]:
        old, new = change.old, change.new
        if isinstance(new, TonelClass):
            yield self.define(new, old if isinstance(old, TonelClass)
                              else None)
        elif isinstance(new, TonelMethod):
            yield self.compile(new)
            self.undo.append(
                (lambda: self.compile(old)) if isinstance(
                    old, TonelMethod) else (lambda: self.remove(new)))
        elif isinstance(old, TonelMethod):
            yield self.remove(old)
            self.undo.append(lambda: self.compile(old))
        elif isinstance(old, TonelClass):
            yield self._run(self.tools.deleteClass, {"className": old.name})
            self.undo.append(lambda: self.restore(old))

    @inlineCallbacks
    def define(self, new: TonelClass, old: TonelClass | None) -> Steps[None]:
        if old is None or attr.evolve(old, comment="") != attr.evolve(
                new, comment=""):
            result = yield self._run(
                self.tools.compileClassDefinition,
                dict(_definitionArguments(new), **self.home(new, old)))
            lost = [(each["selector"], each["meta"], each.get("errors"))
                    for each in result.structured["failures"]
                    + result.structured["dropped"]]
            if old is None:
                self.undo.append(lambda: self._run(
                    self.tools.deleteClass, {"className": new.name}))
            else:
                self.undo.append(lambda: self.redefine(old, lost))
            # One the files change is compiled by its own step next.
            lost = [each for each in lost
                    if (new.name, each[1], each[0]) not in self.compiled]
            if lost:
                located = {each[:2]: self.lostAt(new.name, *each)
                           for each in lost}
                untold = [_lostMessage(new.name, *each) for each in lost
                          if not located[each[:2]]]
                raise ToolError("compileError", (
                    f"the new definition of {new.name} loses "
                    f"{counted(len(lost), 'method')} the files do not "
                    f"change") + (": " + "; ".join(untold) if untold else
                                  " (each told at its place)"),
                    {"located": [where for each in located.values()
                                 for where in each]})
        if new.comment != (old.comment if old else ""):
            yield self._run(self.tools.setClassComment,
                            {"className": new.name, "comment": new.comment})
            if old is not None:
                self.undo.append(lambda: self._run(
                    self.tools.setClassComment,
                    {"className": new.name, "comment": old.comment}))

    def lostAt(self, className: str, selector: str, meta: bool,
               errors: list[JsonObject] | None) -> list[JsonObject]:
        """
        Where the files hold a method a redefinition lost: each compile
        error in it, or its pattern; nothing where they do not hold it.
        """
        method = self.files.get((className, meta, selector))
        if method is None:
            return []
        named = methodName(className, selector, meta)
        return [_where(method, each["offset"] - 1, f"{named} would not "
                       f"compile in the new definition: {each['message']}")
                for each in errors or []] or [_where(
                    method, 0, f"{named} would be dropped by the new "
                    f"definition")]

    @inlineCallbacks
    def redefine(self, old: TonelClass,
                 lost: list[tuple[str, bool, Any]]) -> Steps[None]:
        """Take back a redefinition: the old definition, then each method
        the new version lost, as the stone had it."""
        yield self._run(self.tools.compileClassDefinition,
                        _definitionArguments(old))
        had = {(each.selector, each.meta): each
               for each in self.stone[old.name].methods}
        for selector, meta, _ in lost:
            yield self.compile(had[selector, meta])

    @inlineCallbacks
    def restore(self, old: TonelClass) -> Steps[None]:
        """Take back a class's removal: its definition in its dictionary,
        its comment, and every method as the stone had it."""
        had = self.stone[old.name]
        yield self._run(self.tools.compileClassDefinition, dict(
            _definitionArguments(old), dictionary=had.dictionary))
        if old.comment:
            yield self._run(self.tools.setClassComment,
                            {"className": old.name, "comment": old.comment})
        for each in had.methods:
            yield self.compile(each)

    def home(self, new: TonelClass, old: TonelClass | None) -> JsonObject:
        """
        Where a new class goes: the dictionary of a class of its package
        the stone has, else the default (a class keeps its own).
        """
        if old is not None or new.category is None:
            return {}
        for each in self.stone.values():
            if each.definition.category == new.category:
                return {"dictionary": each.dictionary}
        return {}

    def compile(self, method: TonelMethod) -> Deferred[Any]:
        return self._run(self.tools.compileMethod, {
            "className": method.className, "meta": method.meta,
            "source": method.source, "category": method.category})

    def remove(self, method: TonelMethod) -> Deferred[Any]:
        return self._run(self.tools.deleteMethod, {
            "className": method.className, "selector": method.selector,
            "meta": method.meta})


"""
Applying a refactoring's preview: every method it read must read the same
now, then each is written through the mutation tools' guarded compile path
(L{gsmcpd.tools.mutation.MutationToolset.guarded}); a refusal or a compile
failure part way takes back what was written, so the preview is applied
whole or not at all.
"""

from typing import TYPE_CHECKING

from twisted.internet.defer import Deferred, inlineCallbacks, succeed

from gsmcpd.tools.arguments import JsonObject
from gsmcpd.tools.base import Steps, ToolCall, ToolError
from gsmcpd.tools.compiling import compileError, locatedErrors
from gsmcpd.tools.confirm import confirmedIf
from gsmcpd.tools.ledger import Key, classKey, methodKey
from gsmcpd.tools.previews import MethodChange, Preview
from gsmcpd.tools.renameivar import DEFAULT_CATEGORY, redefined, refuseStale

if TYPE_CHECKING:
    from gsmcpd.tools.mutation import MutationToolset

Done = list[tuple[str, MethodChange]]
"""The steps written so far: C{replaced}, C{created} or C{deleted}."""


def _subject(change: MethodChange, selector: str) -> JsonObject:
    return {"className": change.className, "meta": change.meta,
            "selector": selector}


def _newKey(change: MethodChange) -> Key:
    return methodKey(change.className, change.newSelector, change.meta)


@inlineCallbacks
def _compile(toolset: "MutationToolset", call: ToolCall, change: MethodChange,
             selector: str, source: str) -> Steps[None]:
    key = methodKey(change.className, selector, change.meta)
    value = yield toolset.guarded(call, "compile_method", dict(
        _subject(change, selector), source=source, category=change.category,
        replaces=None), key, "get_method_source")
    if "compileErrors" in value:
        raise compileError(f"{change.named} did not compile as rewritten",
                           _subject(change, selector),
                           locatedErrors(source, value["compileErrors"]))
    call.ledger.recordRead(key, value["source"])


@inlineCallbacks
def _delete(toolset: "MutationToolset", call: ToolCall, change: MethodChange,
            selector: str) -> Steps[None]:
    key = methodKey(change.className, selector, change.meta)
    yield toolset.guarded(call, "delete_method", _subject(change, selector),
                          key, "get_method_source")
    call.ledger.forget(key)


@inlineCallbacks
def _write(toolset: "MutationToolset", call: ToolCall, change: MethodChange,
           done: Done) -> Steps[None]:
    if change.newSelector == change.selector:
        yield _compile(toolset, call, change, change.selector, change.after)
        done.append(("replaced", change))
        return
    yield _compile(toolset, call, change, change.newSelector, change.after)
    done.append(("created", change))
    yield _delete(toolset, call, change, change.selector)
    done.append(("deleted", change))


@inlineCallbacks
def _undo(toolset: "MutationToolset", call: ToolCall,
          done: Done) -> Steps[None]:
    for step, change in reversed(done):
        if step == "replaced":
            yield _compile(toolset, call, change, change.selector,
                           change.before)
        elif step == "created":
            yield _delete(toolset, call, change, change.newSelector)
        else:
            yield _compile(toolset, call, change, change.selector,
                           change.before)


@inlineCallbacks
def _renameClass(toolset: "MutationToolset", call: ToolCall, preview: Preview,
                 back: bool = False) -> Steps[None]:
    """
    Rename the preview's class (or, C{back}, undo that), compiling its own
    methods into the new version as the preview rewrote them.
    """
    assert preview.renameClass is not None
    old, new = preview.renameClass[::-1] if back else preview.renameClass
    value = yield call.runTemplate("rename_class", {
        "className": old, "newName": new, "kernelClasses": toolset.kernelClasses,
        "methods": [[c.meta, c.selector, c.category or DEFAULT_CATEGORY,
                     c.after if back else c.before,
                     c.before if back else c.after] for c in preview.moved]})
    refuseStale(value, old)
    if "shape" in value:
        raise ToolError("refused", f"{old} is not a plain subclass: without "
                        f"class-instance variables or options, which a "
                        f"rename would lose: it is not renamed",
                        {"definition": value["shape"]})
    for reason, what in (("subclasses", "has subclasses"),
                         ("aliases", "is bound under other names too")):
        if reason in value:
            raise ToolError("refused", f"{old} {what} ({', '.join(value[reason])}"
                            f"): rename them, or remove them, first",
                            {reason: value[reason]})
    if value["failures"]:
        failed = value["failures"][0]
        source = next(c.after for c in preview.moved
                      if (c.meta, c.selector) == (failed["meta"],
                                                  failed["selector"]))
        raise compileError(f"{new}>>{failed['selector']} did not compile "
                           f"as rewritten", {"className": new},
                           locatedErrors(source, failed["errors"]))
    for change in preview.moved:
        call.ledger.forget(methodKey(old, change.selector, change.meta))
        call.ledger.recordRead(methodKey(new, change.selector, change.meta),
                               change.before if back else change.after)
    call.ledger.forget(classKey(old))


def confirmRemovals(toolset: "MutationToolset", call: ToolCall,
                    preview: Preview) -> Deferred[None]:
    """
    With C{--confirm-destructive}, ask before applying C{preview} if it
    removes anything (a renamed method's old selector, a renamed class's
    old binding), listing it.
    """
    removed = _removals(preview)
    if not removed:
        return succeed(None)
    return confirmedIf(toolset, call, "\n- ".join(
        [f"Apply {preview.previewId}, removing:", *removed]),
        f"apply {preview.previewId}")


def _removals(preview: Preview) -> list[str]:
    removed = [f"the method {change.named} (renamed {change.newSelector})"
               for change in preview.changes
               if change.newSelector != change.selector]
    if preview.renameClass is not None:
        old, new = preview.renameClass
        removed.insert(0, f"the class binding {old} (a new version named "
                       f"{new} takes its {len(preview.moved)} methods)")
    return removed


@inlineCallbacks
def applied(toolset: "MutationToolset", call: ToolCall,
            preview: Preview) -> Steps[None]:
    """
    Write C{preview}'s changes, all of them or none.

    A preview is not a read (its client saw diffs): a method must read as
    the preview found it wherever this session read it since, and the
    stone compares each with the preview's text as it is written.

    @raise ToolError: C{refused} naming the methods that changed since the
        preview, or the first write that failed (nothing is then changed).
    """
    stale = [change.named for change in (*preview.moved, *preview.changes)
             if call.ledger.lastRead(change.key) not in (None, change.before)]
    if stale:
        raise ToolError(
            "refused", f"{', '.join(stale)} changed since {preview.previewId} "
            f"was made (or this session's view moved), so applying it would "
            f"overwrite code it did not show; nothing was changed: preview "
            f"again.", {"stale": stale})
    read = {change.key: call.ledger.lastRead(change.key)
            for change in preview.changes}
    for change in preview.changes:
        call.ledger.recordRead(change.key, change.before)
    try:
        yield _written(toolset, call, preview)
    except ToolError:
        for key, text in read.items():
            if text is None:
                call.ledger.forget(key)
            else:
                call.ledger.recordRead(key, text)
        raise
    _journal(call, preview)


@inlineCallbacks
def _written(toolset: "MutationToolset", call: ToolCall,
             preview: Preview) -> Steps[None]:
    if preview.redefine is not None:
        try:
            yield redefined(toolset, call, preview)
        except ToolError as e:
            raise ToolError(e.kind, f"{e.message} Nothing of "
                            f"{preview.previewId} was applied.", e.details)
    if preview.renameClass is not None:
        try:
            yield _renameClass(toolset, call, preview)
        except ToolError as e:
            raise ToolError(e.kind, f"{e.message} Nothing of "
                            f"{preview.previewId} was applied.", e.details)
    done: Done = []
    current = None
    try:
        for current in preview.changes:
            yield _write(toolset, call, current, done)
    except ToolError as e:
        assert current is not None
        try:
            yield _undo(toolset, call, done)
            if preview.renameClass is not None:
                yield _renameClass(toolset, call, preview, back=True)
        except ToolError as undoing:
            raise ToolError(
                "refused", f"{current.named}: {e.message} Taking back the "
                f"{len(done)} writes before it failed too ({undoing.message}"
                f"); abort discards every uncommitted change.",
                {"failed": current.named})
        raise ToolError(
            e.kind, f"{current.named}: {e.message} Nothing of "
            f"{preview.previewId} was applied.",
            dict(e.details or {}, failed=current.named))


def _journal(call: ToolCall, preview: Preview) -> None:
    if preview.renameClass is not None:
        old, new = preview.renameClass
        call.journal.record("renamed", f"class {old} to {new}", new)
    for change in preview.changes:
        if change.newSelector == change.selector:
            call.journal.record("compiled", change.named, change.className,
                                method=change.key, previous=change.before,
                                category=None)
            continue
        renamed = change.named[:-len(change.selector)] + change.newSelector
        call.journal.record("compiled", renamed, change.className,
                            method=_newKey(change), previous=None)
        call.journal.record("deleted", change.named, change.className,
                            method=change.key, previous=change.before,
                            category=change.category)

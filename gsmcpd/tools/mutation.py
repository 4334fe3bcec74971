"""
The Mutation toolset: change the repository's code, never committing.

Every tool here leaves its change uncommitted, so the client can run the
tests against it before deciding; C{commit} keeps it and C{abort} undoes it,
a shape-changing class redefinition and a symbol-list change included.  A
tool that overwrites or deletes a method or class definition passes the
blind-write guardrail (L{gsmcpd.tools.ledger}): the session must have read
what it replaces in its present view, and the template checks in the stone
that it is still what was read.  The guardrail is per method, but the
stone's conflicts are per class (L{gsmcpd.tools.session}): two sessions
changing different methods of one class cannot both commit.  A class Globals holds under its name is
the kernel's: the templates refuse to change one, as GemTalk's server does,
unless the toolset's C{kernelClasses} option is true; beyond that, who may
change what is the stone's business (its users and security policies).
"""





from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.arguments import (
    BOOLEAN,
    IDENTIFIER,
    INTEGER,
    META,
    STRING,
    JsonObject,
    flagArgument,
    namesArgument,
    stringArgument,
)
from gsmcpd.tools.base import (
    OWN_SESSION,
    Steps,
    Tool,
    ToolCall,
    ToolError,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    counted,
    resultSchema,
)
from gsmcpd.tools.compiling import (
    COMPILE_ERROR_SCHEMA,
    compileError,
    definedSelector,
    definitionReport,
    locatedErrors,
    methodName,
    unreadMethodsRefusal,
)
from gsmcpd.tools.confirm import (
    CONFIRM_OPTION,
    confirmClassDeletion,
    confirmedIf,
    confirming,
)
from gsmcpd.tools.journal import itemised
from gsmcpd.tools.ledger import Key, classKey, describeKey, dictionaryKey, methodKey

KERNEL_DICTIONARIES = ("Globals", "UserGlobals", "Published")
"""The kernel's own symbol dictionaries, which remove_dictionary refuses."""

DEFAULT_CATEGORY = "as yet unclassified"

_CLASS_NAME = stringArgument()


class MutationToolset(Toolset):
    name = "mutation"
    title = "Mutation"
    declaredOptionNames: tuple[str, ...] = ("kernelClasses", CONFIRM_OPTION)
    instructions = (
        "Changes stay uncommitted until you commit or abort: run the tests "
        "first. "
        "A write needs a read of what it replaces in your present view, and "
        "is refused if that changed since. Commits conflict per class: if "
        "another session commits any change to a class you changed, your "
        "commit fails, so people editing one class take turns.")

    def tools(self) -> list[Tool]:
        confirms = confirming(self)  # asked on the call's stream in 2025
        return itemised([
            Tool("add_dictionary", "Add dictionary",
                 "Add a SymbolDictionary at the end of your symbol list; "
                 "refused if the list has the name.",
                 closedSchema({"dictionaryName": stringArgument(
                     pattern=IDENTIFIER)},
                     required=["dictionaryName"]),
                 annotations(False), self.addDictionary,
                 resultSchema(dictionaryName=STRING, position=INTEGER),
                 runsOn=OWN_SESSION),
            Tool("remove_dictionary", "Remove dictionary",
                 "Remove a dictionary from your symbol list, so what it "
                 "holds can no longer be named; refused for Globals, "
                 "UserGlobals and Published. One holding classes needs "
                 "list_classes first.",
                 closedSchema({"dictionaryName": stringArgument()},
                     required=["dictionaryName"]),
                 annotations(False, destructive=True), self.removeDictionary,
                 resultSchema(dictionaryName=STRING, entries=INTEGER),
                 streams=confirms,
                 runsOn=OWN_SESSION),
            Tool("compile_class_definition", "Define class",
                 "Define or redefine a class from named parts (nothing is "
                 "evaluated). Redefining needs get_class_definition first "
                 "(and reads of methods it may drop); refused if it has "
                 "subclasses. A shape change makes a new version, "
                 "recompiling its methods and reporting failures.",
                 closedSchema({
                     "className": stringArgument(pattern=IDENTIFIER),
                     "superclassName": stringArgument("default Object"),
                     "instVarNames": namesArgument(),
                     "classVars": namesArgument(),
                     "classInstVars": namesArgument(),
                     "poolDictionaries": {"type": "array", "items": STRING},
                     "dictionary": stringArgument(
                         "default: its own, else UserGlobals"),
                     "options": namesArgument("e.g. subclassesDisallowed"),
                     "category": stringArgument(),
                     "recompileMethods": flagArgument(
                         "default true; false drops them instead")},
                     required=["className"]),
                 annotations(False, destructive=True),
                 self.compileClassDefinition,
                 resultSchema(
                     className=STRING, dictionary=STRING, created=BOOLEAN,
                     newVersion=BOOLEAN, changed=BOOLEAN, definition=STRING,
                     recompiled=INTEGER,
                     failures={"type": "array", "items": resultSchema(
                         selector=STRING, meta=BOOLEAN,
                         errors={"type": "array",
                                 "items": COMPILE_ERROR_SCHEMA})},
                     dropped={"type": "array", "items": resultSchema(
                         selector=STRING, meta=BOOLEAN)}),
                         runsOn=OWN_SESSION),
            Tool("compile_method", "Compile method",
                 "Compile a method from its full source (selector line "
                 "first), new or replacing its selector's (needs "
                 "get_method_source first). Category default: the replaced "
                 "one's (replaces: a rename's old selector).",
                 closedSchema({
                     "className": _CLASS_NAME,
                     "source": stringArgument(),
                     "category": stringArgument(),
                     "replaces": stringArgument(),
                     "meta": META},
                     required=["className", "source"]),
                 annotations(False, destructive=True), self.compileMethod,
                 resultSchema(
                     className=STRING, meta=BOOLEAN, selector=STRING,
                     category=STRING, created=BOOLEAN,
                     warnings={"type": "array", "items": STRING}),
                     runsOn=OWN_SESSION),
            Tool("delete_method", "Delete method",
                 "Remove a method; needs get_method_source first.",
                 closedSchema({
                     "className": _CLASS_NAME,
                     "selector": stringArgument(),
                     "meta": META},
                     required=["className", "selector"]),
                 annotations(False, destructive=True, idempotent=True),
                 self.deleteMethod,
                 resultSchema(className=STRING, meta=BOOLEAN,
                              selector=STRING, category=STRING),
                 streams=confirms,
                 runsOn=OWN_SESSION),
            Tool("delete_class", "Delete class",
                 "Remove a class and its methods from its dictionary; needs "
                 "get_class_definition first; refused if it has subclasses.",
                 closedSchema({"className": _CLASS_NAME},
                              required=["className"]),
                 annotations(False, destructive=True, idempotent=True),
                 self.deleteClass,
                 resultSchema(className=STRING, dictionary=STRING,
                              methods=INTEGER),
                 streams=confirms,
                 runsOn=OWN_SESSION),
            Tool("set_class_comment", "Set class comment",
                 "Replace a class's comment.",
                 closedSchema({
                     "className": _CLASS_NAME,
                     "comment": stringArgument()},
                     required=["className", "comment"]),
                 annotations(False, destructive=True, idempotent=True),
                 self.setClassComment,
                 resultSchema(className=STRING, comment=STRING),
                 runsOn=OWN_SESSION),
        ])

    @inlineCallbacks
    def addDictionary(self, call: ToolCall,
                      arguments: JsonObject) -> Steps[ToolResult]:
        value = yield call.runTemplate("add_dictionary", arguments)
        call.journal.record("added", f"dictionary {value['dictionaryName']}")
        return ToolResult(
            f"Added dictionary {value['dictionaryName']} at position "
            f"{value['position']} of the symbol list.", value)

    @inlineCallbacks
    def removeDictionary(self, call: ToolCall,
                         arguments: JsonObject) -> Steps[ToolResult]:
        name = arguments["dictionaryName"]
        if name in KERNEL_DICTIONARIES:
            raise ToolError(
                "refused", f"{name} is one of the kernel's own dictionaries "
                f"({', '.join(KERNEL_DICTIONARIES)}); removing it from the "
                f"symbol list would break the session, so it is refused.")
        yield confirmedIf(self, call, f"Remove the symbol dictionary {name} "
                          "from your symbol list, with every class and global "
                          "in it?", f"remove dictionary {name}")
        # The guardrail covers the classes it holds, as list_classes shows.
        key = dictionaryKey(name)
        listing = call.ledger.lastRead(key)
        value = yield self.guarded(
            call, "remove_dictionary", {
                "dictionaryName": name, "expectedCount": None
                if listing is None else str(len(listing.split()))},
            key, "list_classes")
        call.ledger.forget(key)
        call.journal.record("removed", f"dictionary {name}")
        return ToolResult(
            f"Removed dictionary {name} from the symbol list (it held "
            f"{counted(value['entries'], 'entry', 'entries')}).", value)

    @inlineCallbacks
    def compileClassDefinition(self, call: ToolCall,
                               arguments: JsonObject) -> Steps[ToolResult]:
        className = arguments["className"]
        key = classKey(className)
        value = yield self.guarded(
            call, "compile_class_definition", {
                "className": className,
                "superclassName": arguments.get("superclassName", "Object"),
                "instVarNames": arguments.get("instVarNames", []),
                "classVars": arguments.get("classVars", []),
                "classInstVars": arguments.get("classInstVars", []),
                "poolDictionaries": arguments.get("poolDictionaries", []),
                "dictionaryName": arguments.get("dictionary"),
                "options": arguments.get("options", []),
                "category": arguments.get("category"),
                "classType": arguments.get("classType"),
                "recompileMethods": arguments.get("recompileMethods", True),
                "readMethods": call.ledger.methodsRead(className)},
            key, "get_class_definition",
            "redefining it would leave them subclasses of the old version; "
            "change them first")
        if "unreadMethods" in value:
            raise unreadMethodsRefusal(className, value["unreadMethods"])
        call.ledger.recordRead(key, value["definition"])
        call.journal.record("defined", f"class {className}", className)
        for lost in value["failures"] + value["dropped"]:
            # Gone from the new version; revert_method compiles it again.
            key = methodKey(className, lost["selector"], lost["meta"])
            previous = lost.get("source") or call.ledger.lastRead(key)
            if previous is not None:
                call.journal.record(
                    "dropped", methodName(className, lost["selector"],
                                          lost["meta"]),
                    className, method=key, previous=previous)
        failures = [{"selector": f["selector"], "meta": f["meta"],
                     "errors": locatedErrors(f["source"], f["errors"])}
                    for f in value["failures"]]
        structured = dict(value, className=className, failures=sorted(
            failures, key=lambda f: (f["meta"], f["selector"])))
        return ToolResult(definitionReport(structured), structured)

    @inlineCallbacks
    def compileMethod(self, call: ToolCall,
                      arguments: JsonObject) -> Steps[ToolResult]:
        className, source = arguments["className"], arguments["source"]
        meta = arguments.get("meta", False)
        selector = definedSelector(className, meta, source)
        previous = call.ledger.lastRead(methodKey(className, selector, meta))
        value = yield self.guarded(
            call, "compile_method", {
                "className": className, "meta": meta, "selector": selector,
                "source": source, "category": arguments.get("category"),
                "replaces": arguments.get("replaces")},
            methodKey(className, selector, meta), "get_method_source")
        named = methodName(className, selector, meta)
        if "compileErrors" in value:
            raise compileError(
                f"{named} did not compile",
                {"className": className, "meta": meta, "selector": selector},
                locatedErrors(source, value["compileErrors"]))
        compiled = value["selector"]
        if compiled != selector:
            # The guardrail vouched for #selector only.
            raise ToolError(
                "refused", f"The stone compiled this source as "
                f"{methodName(className, compiled, meta)}, not "
                f"{named} as this server read it; the change is not "
                f"committed: abort undoes it.")
        call.ledger.recordRead(methodKey(className, compiled, meta),
                               value["source"])
        created = value["created"]
        call.journal.record(
            "compiled", named, className, method=methodKey(
                className, compiled, meta),
            previous=None if created else previous, category=None if created
            or "category" in arguments else value["category"])
        structured = {"className": className, "meta": meta,
                      "selector": compiled, "category": value["category"],
                      "created": value["created"], "warnings": value["warnings"]}
        warned = "".join(f"\nwarning: {each}" for each in value["warnings"])
        return ToolResult(
            f"Compiled {methodName(className, compiled, meta)} "
            f"({'new method' if value['created'] else 'replaced'}; "
            f"category '{value['category']}')." + warned, structured)

    @inlineCallbacks
    def deleteMethod(self, call: ToolCall,
                     arguments: JsonObject) -> Steps[ToolResult]:
        className, selector = arguments["className"], arguments["selector"]
        meta = arguments.get("meta", False)
        key = methodKey(className, selector, meta)
        named = methodName(className, selector, meta)
        yield confirmedIf(self, call, f"Delete the method {named}?",
                          f"delete {named}")
        value = yield self.guarded(
            call, "delete_method",
            {"className": className, "meta": meta, "selector": selector},
            key, "get_method_source")
        previous = call.ledger.lastRead(key)
        call.ledger.forget(key)
        call.journal.record("deleted", named, className, method=key,
                            previous=previous, category=value["category"])
        return ToolResult(
            f"Deleted {named} (it was in "
            f"'{value['category']}').",
            {"className": className, "meta": meta, "selector": selector,
             "category": value["category"]})

    @inlineCallbacks
    def deleteClass(self, call: ToolCall,
                    arguments: JsonObject) -> Steps[ToolResult]:
        className = arguments["className"]
        key = classKey(className)
        yield confirmClassDeletion(self, call, className)
        value = yield self.guarded(
            call, "delete_class", {"className": className}, key,
            "get_class_definition", "delete or redefine them first")
        call.ledger.forget(key)
        call.journal.record("deleted", f"class {className}", className)
        return ToolResult(
            f"Deleted class {className} from {value['dictionary']}, with "
            f"{counted(value['methods'], 'method')}.",
            dict(value, className=className))

    @inlineCallbacks
    def setClassComment(self, call: ToolCall,
                        arguments: JsonObject) -> Steps[ToolResult]:
        value = yield call.runTemplate(
            "set_class_comment", dict(arguments, kernelClasses=self.kernelClasses))
        call.journal.record("commented", f"class {value['className']}",
                            value["className"])
        return ToolResult(f"Set the comment of {value['className']}.",
                               value)

    @property
    def kernelClasses(self) -> bool:
        """
        Whether the mutation tools may change kernel classes (the
        C{kernelClasses} option; by default they refuse).
        """
        return self.optionNamed("kernelClasses", False) is True

    @inlineCallbacks
    def guarded(self, call: ToolCall, template: str, arguments: JsonObject,
                key: Key, readTool: str,
                withSubclasses: str | None = None) -> Steps[JsonObject]:
        """
        Run a template that overwrites or deletes what C{key} names, passing
        the text this session last read of it for the stone to compare.

        The template answers C{unread} when the subject exists and nothing
        was read, C{stale} when it changed since the read, and
        C{subclasses} when a class it would change has subclasses; each is a
        refusal with nothing changed.
        """
        value = yield call.runTemplate(
            template, dict(arguments, expected=call.ledger.lastRead(key),
                           kernelClasses=self.kernelClasses))
        if value.get("unread"):
            call.requireRead(key, readTool)
        if value.get("stale"):
            raise ToolError(
                "refused", f"{_capitalised(describeKey(key))} changed since "
                f"this session read it (another session committed a "
                f"change, or it was changed another way), so this would "
                f"overwrite a version you have not seen; call {readTool} "
                f"again, then retry.")
        if "subclasses" in value:
            raise ToolError(
                "refused", f"{key[1]} has subclasses "
                f"({', '.join(value['subclasses'])}): {withSubclasses}.",
                {"subclasses": value["subclasses"]})
        return value


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]

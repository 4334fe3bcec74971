"""
The Mutation toolset: change the repository's code, never committing.

Every tool here leaves its change uncommitted, so the client can run the
tests against it before deciding; C{commit} keeps it and C{abort} undoes it,
a shape-changing class redefinition and a symbol-list change included.  A
tool that overwrites or deletes a method or class definition passes the
blind-write guardrail (L{gsmcpd.tools.ledger}): the session must have read
what it replaces in its present view, and the template checks in the stone
that it is still what was read.  A class Globals holds under its name is
the kernel's: the templates refuse to change one, as GemTalk's server does,
unless the toolset's C{kernelClasses} option is true; beyond that, who may
change what is the stone's business (its users and security policies).
"""

from twisted.internet.defer import inlineCallbacks, returnValue

from gsmcpd.smalltalk import SmalltalkSyntaxError, parse_method
from gsmcpd.tools.base import (
    Tool, ToolError, ToolResult, Toolset, annotations, closedSchema)
from gsmcpd.tools.compiling import (
    COMPILE_ERROR_SCHEMA, compileError, definitionReport, locatedErrors,
    methodName)
from gsmcpd.tools.confirm import (
    CONFIRM_OPTION, confirmClassDeletion, confirmedIf, confirming)
from gsmcpd.tools.ledger import classKey, describeKey, methodKey

IDENTIFIER = "^[A-Za-z][A-Za-z0-9_]*$"

KERNEL_DICTIONARIES = ("Globals", "UserGlobals", "Published")
"""The kernel's own symbol dictionaries, which remove_dictionary refuses."""

DEFAULT_CATEGORY = "as yet unclassified"

NOT_COMMITTED = " Not committed."

_STRING = {"type": "string"}
_BOOLEAN = {"type": "boolean"}
_INTEGER = {"type": "integer"}

def _string(description, **constraints):
    return dict(_STRING, description=description, **constraints)


def _names(description):
    return {"type": "array", "description": description,
            "items": {"type": "string", "pattern": IDENTIFIER}}


def _flag(description):
    return dict(_BOOLEAN, description=description)


_CLASS_NAME = _string("name of the class")
_META = _flag("true for the class-side method (default false)")


class MutationToolset(Toolset):
    name = "mutation"
    title = "Mutation"
    declaredOptionNames = ("kernelClasses", CONFIRM_OPTION)
    instructions = (
        "The mutation tools (compile_method, compile_class_definition, "
        "delete_method, delete_class, set_class_comment, add_dictionary, "
        "remove_dictionary) change code in your session without committing: "
        "run the tests, then commit to keep the change or abort to undo it. "
        "Read before you overwrite: changing or deleting an existing method "
        "needs get_method_source (or export_class_source) first, and "
        "redefining or deleting a class needs get_class_definition first, "
        "in your present view (commit, abort and refresh end it); a write "
        "over something that changed since you read it is refused. compile_class_definition builds the "
        "definition from named parts and evaluates nothing; on a shape "
        "change it recompiles the class's methods and reports any that fail.")

    def tools(self):
        confirms = confirming(self)  # asked on the call's stream in 2025
        return [
            Tool("add_dictionary", "Add symbol dictionary",
                 "Create a SymbolDictionary and append it to this user's "
                 "symbol list. Refused if something of that name is already "
                 "in the symbol list." + NOT_COMMITTED,
                 closedSchema({"dictionaryName": _string(
                     "name of the new dictionary", pattern=IDENTIFIER)},
                     required=["dictionaryName"]),
                 annotations(False), self.addDictionary,
                 closedSchema({"dictionaryName": _STRING,
                               "position": _INTEGER},
                              required=["dictionaryName", "position"])),
            Tool("remove_dictionary", "Remove symbol dictionary",
                 "Remove a symbol dictionary from this user's symbol list "
                 "(destructive: what it holds can no longer be named). The "
                 "kernel's Globals, UserGlobals and Published are refused."
                 + NOT_COMMITTED,
                 closedSchema({"dictionaryName": _string(
                     "name of the dictionary to remove")},
                     required=["dictionaryName"]),
                 annotations(False, destructive=True), self.removeDictionary,
                 closedSchema({"dictionaryName": _STRING,
                               "entries": _INTEGER},
                              required=["dictionaryName", "entries"]),
                 streams=confirms),
            Tool("compile_class_definition", "Define or redefine a class",
                 "Define a class, or redefine an existing one, from named "
                 "parts: the definition is built by the server and nothing "
                 "is evaluated, so this cannot run arbitrary code (use "
                 "execute_code for that). The superclass (default Object), "
                 "pool dictionaries and dictionary (default: the class's "
                 "current one, else UserGlobals) are looked up by name. "
                 "Redefining an existing class needs get_class_definition "
                 "first and is refused if the class has subclasses. A shape "
                 "change (variables or superclass) makes a new class "
                 "version: its methods are recompiled onto it and any that "
                 "fail are reported, or with recompileMethods false they are "
                 "dropped." + NOT_COMMITTED,
                 closedSchema({
                     "className": _string("name of the class",
                                          pattern=IDENTIFIER),
                     "superclassName": _string(
                         "name of the superclass (default Object)"),
                     "instVarNames": _names("instance variable names"),
                     "classVars": _names("class variable names"),
                     "classInstVars": _names(
                         "class-side instance variable names"),
                     "poolDictionaries": {
                         "type": "array", "items": _STRING,
                         "description": "names of pool dictionaries in the "
                                        "symbol list"},
                     "dictionary": _string(
                         "dictionary to define the class in (default: where "
                         "it is now, else UserGlobals)"),
                     "options": _names(
                         "class options, e.g. subclassesDisallowed"),
                     "recompileMethods": _flag(
                         "on a shape change, recompile the old version's "
                         "methods onto the new one (default true); false "
                         "drops them")},
                     required=["className"]),
                 annotations(False, destructive=True),
                 self.compileClassDefinition,
                 closedSchema({
                     "className": _STRING, "dictionary": _STRING,
                     "created": _BOOLEAN, "newVersion": _BOOLEAN,
                     "changed": _BOOLEAN, "definition": _STRING,
                     "recompiled": _INTEGER,
                     "failures": {"type": "array", "items": closedSchema({
                         "selector": _STRING, "meta": _BOOLEAN,
                         "errors": {"type": "array",
                                    "items": COMPILE_ERROR_SCHEMA}},
                         required=["selector", "meta", "errors"])},
                     "dropped": {"type": "array", "items": closedSchema({
                         "selector": _STRING, "meta": _BOOLEAN},
                         required=["selector", "meta"])}},
                     required=["className", "dictionary", "created",
                               "newVersion", "changed", "definition",
                               "recompiled", "failures", "dropped"])),
            Tool("compile_method", "Compile method",
                 "Compile a method (new, or replacing the one with the same "
                 "selector) from its full source, selector line first. "
                 "Replacing an existing method needs get_method_source "
                 "first. The category defaults to the replaced method's, "
                 "else 'as yet unclassified'. A compile error names the "
                 "line and column; the compiler's warnings come with a successful "
                 "compile." + NOT_COMMITTED,
                 closedSchema({
                     "className": _CLASS_NAME,
                     "source": _string("the method's full source"),
                     "category": _string("method category"),
                     "meta": _META},
                     required=["className", "source"]),
                 annotations(False, destructive=True), self.compileMethod,
                 closedSchema({
                     "className": _STRING, "meta": _BOOLEAN,
                     "selector": _STRING, "category": _STRING,
                     "created": _BOOLEAN,
                     "warnings": {"type": "array", "items": _STRING}},
                     required=["className", "meta", "selector", "category",
                               "created", "warnings"])),
            Tool("delete_method", "Delete method",
                 "Remove a method from a class (destructive); needs "
                 "get_method_source first." + NOT_COMMITTED,
                 closedSchema({
                     "className": _CLASS_NAME,
                     "selector": _string("selector of the method"),
                     "meta": _META},
                     required=["className", "selector"]),
                 annotations(False, destructive=True, idempotent=True),
                 self.deleteMethod,
                 closedSchema({
                     "className": _STRING, "meta": _BOOLEAN,
                     "selector": _STRING, "category": _STRING},
                     required=["className", "meta", "selector",
                               "category"]),
                 streams=confirms),
            Tool("delete_class", "Delete class",
                 "Remove a class from its symbol dictionary, with its "
                 "methods (destructive); needs get_class_definition first, "
                 "and is refused if the class has subclasses."
                 + NOT_COMMITTED,
                 closedSchema({"className": _CLASS_NAME},
                              required=["className"]),
                 annotations(False, destructive=True, idempotent=True),
                 self.deleteClass,
                 closedSchema({
                     "className": _STRING, "dictionary": _STRING,
                     "methods": _INTEGER},
                     required=["className", "dictionary", "methods"]),
                 streams=confirms),
            Tool("set_class_comment", "Set class comment",
                 "Replace a class's comment." + NOT_COMMITTED,
                 closedSchema({
                     "className": _CLASS_NAME,
                     "comment": _string("the new comment")},
                     required=["className", "comment"]),
                 annotations(False, destructive=True, idempotent=True),
                 self.setClassComment,
                 closedSchema({"className": _STRING, "comment": _STRING},
                              required=["className", "comment"])),
        ]

    @inlineCallbacks
    def addDictionary(self, call, arguments):
        value = yield call.runTemplate("add_dictionary", arguments)
        call.journal.record("added", f"dictionary {value['dictionaryName']}")
        returnValue(ToolResult(
            f"Added dictionary {value['dictionaryName']} at position "
            f"{value['position']} of the symbol list.", value))

    @inlineCallbacks
    def removeDictionary(self, call, arguments):
        name = arguments["dictionaryName"]
        if name in KERNEL_DICTIONARIES:
            raise ToolError(
                "refused", f"{name} is one of the kernel's own dictionaries "
                f"({', '.join(KERNEL_DICTIONARIES)}); removing it from the "
                f"symbol list would break the session, so it is refused.")
        yield confirmedIf(self, call, f"Remove the symbol dictionary {name} "
                          "from your symbol list, with every class and global "
                          "in it?", f"remove dictionary {name}")
        value = yield call.runTemplate("remove_dictionary", arguments)
        call.journal.record("removed", f"dictionary {name}")
        returnValue(ToolResult(
            f"Removed dictionary {name} from the symbol list (it held "
            f"{_counted(value['entries'], 'entry', 'entries')}).", value))

    @inlineCallbacks
    def compileClassDefinition(self, call, arguments):
        className = arguments["className"]
        key = classKey(className)
        value = yield self._guarded(
            call, "compile_class_definition", {
                "className": className,
                "superclassName": arguments.get("superclassName", "Object"),
                "instVarNames": arguments.get("instVarNames", []),
                "classVars": arguments.get("classVars", []),
                "classInstVars": arguments.get("classInstVars", []),
                "poolDictionaries": arguments.get("poolDictionaries", []),
                "dictionaryName": arguments.get("dictionary"),
                "options": arguments.get("options", []),
                "recompileMethods": arguments.get("recompileMethods", True)},
            key, "get_class_definition",
            "redefining it would leave them subclasses of the old version; "
            "change them first")
        call.ledger.recordRead(key, value["definition"])
        call.journal.record("defined", f"class {className}", className)
        failures = [{"selector": f["selector"], "meta": f["meta"],
                     "errors": locatedErrors(f["source"], f["errors"])}
                    for f in value["failures"]]
        structured = dict(value, className=className, failures=sorted(
            failures, key=lambda f: (f["meta"], f["selector"])))
        returnValue(ToolResult(definitionReport(structured), structured))

    @inlineCallbacks
    def compileMethod(self, call, arguments):
        className, source = arguments["className"], arguments["source"]
        meta = arguments.get("meta", False)
        try:
            selector = parse_method(source).selector
        except SmalltalkSyntaxError as e:
            raise compileError(
                f"The method source for {className} does not parse",
                {"className": className, "meta": meta, "selector": None},
                locatedErrors(source, [{"offset": e.offset + 1,
                                        "number": None,
                                        "message": e.message}]))
        value = yield self._guarded(
            call, "compile_method", {
                "className": className, "meta": meta, "selector": selector,
                "source": source, "category": arguments.get("category")},
            methodKey(className, selector, meta), "get_method_source")
        named = methodName(className, selector, meta)
        if "compileErrors" in value:
            raise compileError(
                f"{named} did not compile",
                {"className": className, "meta": meta, "selector": selector},
                locatedErrors(source, value["compileErrors"]))
        compiled = value["selector"]
        call.ledger.recordRead(methodKey(className, compiled, meta),
                               value["source"])
        call.journal.record("compiled", methodName(className, compiled, meta),
                            className)
        structured = {"className": className, "meta": meta,
                      "selector": compiled, "category": value["category"],
                      "created": value["created"], "warnings": value["warnings"]}
        warned = "".join(f"\nwarning: {each}" for each in value["warnings"])
        returnValue(ToolResult(
            f"Compiled {methodName(className, compiled, meta)} "
            f"({'new method' if value['created'] else 'replaced'}; "
            f"category '{value['category']}')." + warned, structured))

    @inlineCallbacks
    def deleteMethod(self, call, arguments):
        className, selector = arguments["className"], arguments["selector"]
        meta = arguments.get("meta", False)
        key = methodKey(className, selector, meta)
        named = methodName(className, selector, meta)
        yield confirmedIf(self, call, f"Delete the method {named}?",
                          f"delete {named}")
        value = yield self._guarded(
            call, "delete_method",
            {"className": className, "meta": meta, "selector": selector},
            key, "get_method_source")
        call.ledger.forget(key)
        call.journal.record("deleted", named, className)
        returnValue(ToolResult(
            f"Deleted {named} (it was in "
            f"'{value['category']}').",
            {"className": className, "meta": meta, "selector": selector,
             "category": value["category"]}))

    @inlineCallbacks
    def deleteClass(self, call, arguments):
        className = arguments["className"]
        key = classKey(className)
        yield confirmClassDeletion(self, call, className)
        value = yield self._guarded(
            call, "delete_class", {"className": className}, key,
            "get_class_definition", "delete or redefine them first")
        call.ledger.forget(key)
        call.journal.record("deleted", f"class {className}", className)
        returnValue(ToolResult(
            f"Deleted class {className} from {value['dictionary']}, with "
            f"{_counted(value['methods'], 'method', 'methods')}.",
            dict(value, className=className)))

    @inlineCallbacks
    def setClassComment(self, call, arguments):
        value = yield call.runTemplate(
            "set_class_comment", dict(arguments, kernelClasses=self.kernelClasses))
        call.journal.record("commented", f"class {value['className']}",
                            value["className"])
        returnValue(ToolResult(f"Set the comment of {value['className']}.",
                               value))

    @property
    def kernelClasses(self):
        """
        Whether the mutation tools may change kernel classes (the
        C{kernelClasses} option; by default they refuse).
        """
        return self.optionNamed("kernelClasses", False) is True

    @inlineCallbacks
    def _guarded(self, call, template, arguments, key, readTool,
                 withSubclasses=None):
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
        returnValue(value)


def _counted(number, one, many):
    return f"{number} {one if number == 1 else many}"


def _capitalised(text):
    return text[:1].upper() + text[1:]

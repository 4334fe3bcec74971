"""
The Browsing toolset: read one class, its definition, hierarchy and methods.

The reads that show a method's source or a class's definition record what
they showed in the session's read ledger (L{gsmcpd.tools.ledger}): that is
what licenses a later write to replace it.  They record the text exactly
as the stone answered it, keyed by the name the class resolved to, because
the write tools compare that text with the stone's current one.
"""



from collections.abc import Callable, Sequence
from itertools import groupby
from typing import Any
from urllib.parse import unquote

from twisted.internet.defer import Deferred, inlineCallbacks

from gsmcpd.tools.arguments import (
    BOOLEAN,
    META,
    OPTIONAL_STRING,
    STRING,
    JsonObject,
    Schema,
    nonEmptyArgument,
)
from gsmcpd.tools.base import (
    METHOD_SCHEMA,
    Steps,
    Tool,
    ToolCall,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    resultSchema,
)
from gsmcpd.tools.execution import MAX_VALUE_CHARACTERS, capped
from gsmcpd.tools.ledger import classKey, methodKey
from gsmcpd.tools.offerings import ResourceTemplate
from gsmcpd.tools.paging import LIST_LIMIT, PAGE_SCHEMA, page, pagingProperties

NAMES = {"type": "array", "items": STRING}


def singleValueResult(key: str, **more: Schema) -> Schema:
    """
    The output schema of a L{singleValue} result.
    """
    return resultSchema(totalCharacters={"type": "integer"}, truncated=BOOLEAN,
                  **{key: STRING}, **more)


def singleValue(key: str, text: str, heading: str | None = None,
                **more: Any) -> ToolResult:
    """
    A one-value result: the text capped at L{MAX_VALUE_CHARACTERS} with the
    marker (after a C{heading} line, if any), and the same capped value as
    data under C{key}, with C{more}.
    """
    total = len(text)
    shown = text[:MAX_VALUE_CHARACTERS]
    cut = capped(shown, total)
    return ToolResult(cut if heading is None else f"{heading}\n{cut}", dict(
        more, totalCharacters=total, truncated=total > MAX_VALUE_CHARACTERS,
        **{key: shown}))


def joined(names: Sequence[str]) -> str:
    return " ".join(names) if names else "(none)"


class BrowsingToolset(Toolset):
    name = "browsing"
    title = "Browsing"
    instructions = "To see a class, start with describe_class."

    def tools(self) -> list[Tool]:
        readOnly = annotations(readOnly=True)
        classOnly = closedSchema({"className": nonEmptyArgument()},
                                 required=["className"])
        return [
            Tool("describe_class", "Describe class",
                 "A class at a glance: superclass, variables, category, "
                 "comment, own selectors (not inherited ones).",
                 classOnly, readOnly, self.describeClass,
                 resultSchema(className=STRING, superclass=OPTIONAL_STRING,
                        category=OPTIONAL_STRING, comment=OPTIONAL_STRING,
                        instVarNames=NAMES, classVarNames=NAMES,
                        classInstVarNames=NAMES, instanceSelectors=NAMES,
                        classSelectors=NAMES)),
            Tool("export_class_source", "Export class source",
                 "The whole class as a topaz file-in (definition, comment, "
                 "every method). Counts as reading the definition and each "
                 "method shown.",
                 classOnly, readOnly, self.exportClassSource,
                 singleValueResult("fileOut", className=STRING)),
            Tool("get_class_definition", "Class definition",
                 "The class's definition expression. Counts as reading it.",
                 classOnly, readOnly, self.getClassDefinition,
                 singleValueResult("definition", className=STRING)),
            Tool("get_class_hierarchy", "Class hierarchy",
                 "The superclass chain from the root, and the direct "
                 "subclasses.",
                 classOnly, readOnly, self.getClassHierarchy,
                 resultSchema(className=STRING, superclasses=NAMES,
                        subclasses=NAMES)),
            Tool("get_method_source", "Method source",
                 "A method's source, after a line naming it and its "
                 "category. Counts as reading it.",
                 closedSchema({
                     "className": nonEmptyArgument(),
                     "selector": {"type": "string", "minLength": 1,
                                  "description": "e.g. printOn: or "
                                                 "at:put:"},
                     "meta": META},
                     required=["className", "selector"]),
                 readOnly, self.getMethodSource,
                 singleValueResult("source", className=STRING, meta=BOOLEAN,
                                   selector=STRING,
                                   category=OPTIONAL_STRING)),
            Tool("list_methods", "Methods",
                 "The selectors a class defines on each side, by category.",
                 closedSchema({"className": nonEmptyArgument(),
                               **pagingProperties(LIST_LIMIT)},
                              required=["className"]),
                 readOnly, self.listMethods,
                 resultSchema(className=STRING, methods={"type": "array",
                                                   "items": METHOD_SCHEMA},
                              page=PAGE_SCHEMA)),
        ]

    @inlineCallbacks
    def describeClass(self, call: ToolCall,
                      arguments: JsonObject) -> Steps[ToolResult]:
        found = yield call.runTemplate("describe_class", arguments)
        described = {key: found[key] for key in (
            "className", "superclass", "category", "comment",
            "instVarNames", "classVarNames", "classInstVarNames")}
        described["instanceSelectors"] = sorted(found["instanceSelectors"])
        described["classSelectors"] = sorted(found["classSelectors"])
        text = "\n".join([
            described["className"],
            f"superclass: {described['superclass'] or 'nil'}",
            f"category: {described['category'] or '(none)'}",
            f"instance variables: {joined(described['instVarNames'])}",
            f"class variables: {joined(described['classVarNames'])}",
            "class-instance variables: "
            f"{joined(described['classInstVarNames'])}",
            f"instance selectors: {joined(described['instanceSelectors'])}",
            f"class selectors: {joined(described['classSelectors'])}",
            f"comment: {described['comment'] or '(none)'}"])
        return ToolResult(text, described)

    def resourceTemplates(self) -> list[ResourceTemplate]:
        """
        A class's definition and its whole source as resources, for a
        client that attaches them to a conversation.
        """
        return [
            ResourceTemplate(
                "gemstone://class/{className}/definition", "class-definition",
                self._reader("get_class_definition", "definition"),
                title="Class definition",
                description="The class-definition expression of a class, as "
                            "this session sees it", mimeType="text/plain"),
            ResourceTemplate(
                "gemstone://class/{className}/source", "class-source",
                self._reader("export_class_source", "fileOut"),
                title="Class source",
                description="The topaz file-in of a class: its definition "
                            "and every method, as this session sees it",
                mimeType="text/plain"),
        ]

    def _reader(self, template: str, key: str,
                ) -> Callable[[ToolCall, str, str], Deferred[list[JsonObject]]]:
        """
        A resource reader answering C{key} of what C{template} answers for
        the class the URI names.
        """
        @inlineCallbacks
        def read(call: ToolCall, uri: str,
                 className: str) -> Steps[list[JsonObject]]:
            found = yield call.runTemplate(template,
                                           {"className": unquote(className)})
            return [{"uri": uri, "mimeType": "text/plain",
                     "text": found[key]}]
        return read

    @inlineCallbacks
    def exportClassSource(self, call: ToolCall,
                          arguments: JsonObject) -> Steps[ToolResult]:
        found = yield call.runTemplate("export_class_source", arguments)
        className = found["className"]
        exported = singleValue("fileOut", found["fileOut"],
                               className=className)
        call.ledger.recordRead(classKey(className), found["definition"])
        fileOut = found["fileOut"]
        shown = fileOut[:MAX_VALUE_CHARACTERS]  # as singleValue shows it
        for method in found["methods"]:
            # A truncated export showed only the methods before the cut.
            if len(fileOut) <= MAX_VALUE_CHARACTERS \
                    or method["source"].rstrip() in shown:
                call.ledger.recordRead(
                    methodKey(className, method["selector"], method["meta"]),
                    method["source"])
        return exported

    @inlineCallbacks
    def getClassDefinition(self, call: ToolCall,
                           arguments: JsonObject) -> Steps[ToolResult]:
        found = yield call.runTemplate("get_class_definition", arguments)
        call.ledger.recordRead(classKey(found["className"]),
                               found["definition"])
        return singleValue("definition", found["definition"],
                                className=found["className"])

    @inlineCallbacks
    def getClassHierarchy(self, call: ToolCall,
                          arguments: JsonObject) -> Steps[ToolResult]:
        found = yield call.runTemplate("get_class_hierarchy", arguments)
        superclasses = list(reversed(found["superclasses"]))
        subclasses = sorted(set(found["subclasses"]))
        chain = superclasses + [found["className"]]
        lines = [f"{'  ' * depth}{name}" for depth, name in enumerate(chain)]
        lines.append("direct subclasses:")
        lines.extend(f"  {name}" for name in subclasses or ["(none)"])
        return ToolResult("\n".join(lines), {
            "className": found["className"], "superclasses": superclasses,
            "subclasses": subclasses})

    @inlineCallbacks
    def getMethodSource(self, call: ToolCall,
                        arguments: JsonObject) -> Steps[ToolResult]:
        meta = arguments.get("meta", False)
        selector = arguments["selector"]
        found = yield call.runTemplate("get_method_source", {
            "className": arguments["className"], "selector": selector,
            "meta": meta})
        className = found["className"]
        call.ledger.recordRead(methodKey(className, selector, meta),
                               found["source"])
        behavior = f"{className} class" if meta else className
        return singleValue(
            "source", found["source"],
            f"{behavior}>>{selector} (category: "
            f"{found['category'] or '(none)'})",
            className=className, meta=meta, selector=selector,
            category=found["category"])

    @inlineCallbacks
    def listMethods(self, call: ToolCall,
                    arguments: JsonObject) -> Steps[ToolResult]:
        found = yield call.runTemplate(
            "list_methods", {"className": arguments["className"]})
        className = found["className"]
        methods = sorted(
            ({"className": className, "meta": each["meta"],
              "selector": each["selector"], "category": each["category"]}
             for each in found["methods"]),
            key=lambda m: (m["meta"], m["category"] or "", m["selector"]))
        window = page(methods, arguments, LIST_LIMIT)
        methods = window.items
        lines = [className, window.header()]
        for meta in (False, True):
            lines.append("class side:" if meta else "instance side:")
            onSide = [m for m in methods if m["meta"] == meta]
            for category, inCategory in groupby(
                    onSide, key=lambda m: m["category"]):
                lines.append(f"  {category or '(uncategorized)'}")
                lines.extend(f"    {m['selector']}" for m in inCategory)
            if not onSide:
                lines.append("  (none)")
        return ToolResult("\n".join(lines),
                          {"className": className, "methods": methods,
                           "page": window.structured()})

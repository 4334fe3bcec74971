"""
The mutation templates: add and remove dictionaries, define and delete
classes, compile and delete methods, set comments.

Each answers what its template answers on a real stone, refusals and the
guardrail's C{unread}/C{stale} markers included, so the daemon's side of
the guardrail runs unchanged against the simulator.
"""

import re

from gsmcpd.testing.simulator import errors, system
from gsmcpd.testing.simulator.handlers import codeModel, handler
from gsmcpd.testing.simulator.model import DEFAULT_CATEGORY, ClassInfo

_COMPILE_ERROR = re.compile(
    r"occurred \(error \d+\), (?P<message>.*), near source character "
    r"(?P<offset>\d+)", re.DOTALL)


def _texts(array):
    """
    A literal array of Strings, as Python strings.
    """
    return [each.text for each in array.items]


def _notFound(what):
    return {"gsmcpNotFound": f"No {what} is in the symbol list."}


def _guard(subject, expected):
    """
    The guardrail's answer for an existing C{subject}'s current text, or
    L{None} to go ahead.
    """
    if expected is None:
        return {"unread": True}
    if subject != expected:
        return {"stale": True}
    return None


def _compiled(compile):
    """
    Run C{compile}; L{None}, or the C{errorDetails} of the CompileError it
    raised, as the templates answer them.
    """
    try:
        compile()
    except errors.SmalltalkError as e:
        if e.number != errors.COMPILE_ERROR:
            raise
        match = _COMPILE_ERROR.search(e.description)
        return [{"number": e.number,
                 "offset": int(match["offset"]) if match else 1,
                 "message": match["message"] if match else e.description}]
    return None


@handler("add_dictionary")
def addDictionary(ev, args):
    name = args["dictionaryName"]
    if system.resolve(ev.session, name) is not None:
        return {"gsmcpRefused": f"The name {name} is taken: something of that name is "
                                "already in the symbol list. Choose another name."}
    model = codeModel(ev)
    model.addDictionary(name)
    return {"dictionaryName": name, "position": len(model.symbolList())}


@handler("remove_dictionary")
def removeDictionary(ev, args):
    name = args["dictionaryName"]
    model = codeModel(ev)
    entries = model.dictionaryEntries(name)
    if entries is None:
        return _notFound(f"dictionary named {name}")
    classes = sorted(value.name for value in entries.values()
                     if isinstance(value, ClassInfo))
    if classes:
        # The template's check: the same class names, as many as read.
        listed = args["expected"]
        refusal = _guard(classes, listed and sorted(listed.split()))
        if refusal or args["expectedCount"] != str(len(classes)):
            return refusal or {"stale": True}
    model.removeDictionary(name)
    return {"dictionaryName": name, "entries": len(entries)}


@handler("set_class_comment")
def setClassComment(ev, args):
    model = codeModel(ev)
    info = model.classNamed(args["className"])
    if info is None:
        return _notFound(f"class named {args['className']}")
    model.setComment(info.name, args["comment"])
    return {"className": info.name, "comment": args["comment"]}


@handler("compile_method")
def compileMethod(ev, args):
    model = codeModel(ev)
    className, meta, selector = args["className"], args["meta"], args["selector"]
    if model.classNamed(className) is None:
        return _notFound(f"class named {className}")
    existing = model.method(className, selector, meta)
    if existing is not None:
        refusal = _guard(existing.source, args["expected"])
        if refusal:
            return refusal
    category = args["category"]
    if category is None:
        category = existing.category if existing else DEFAULT_CATEGORY
    compiled = []
    failure = _compiled(lambda: compiled.append(
        model.compileMethod(className, args["source"], category, meta)))
    if failure is not None:
        return {"compileErrors": failure}
    return {"selector": compiled[0].selector, "category": category,
            "created": existing is None, "source": compiled[0].source}


@handler("delete_method")
def deleteMethod(ev, args):
    model = codeModel(ev)
    className, meta, selector = args["className"], args["meta"], args["selector"]
    existing = model.method(className, selector, meta) \
        if model.classNamed(className) is not None else None
    if existing is None:
        side = " class>>" if meta else ">>"
        return {"gsmcpNotFound": f"{className}{side}{selector} does not exist (no class "
                                 "of that name is in the symbol list, or it does not "
                                 "define that selector itself)."}
    refusal = _guard(existing.source, args["expected"])
    if refusal:
        return refusal
    model.removeMethod(className, selector, meta)
    return {"category": existing.category}


@handler("delete_class")
def deleteClass(ev, args):
    model = codeModel(ev)
    info = model.classNamed(args["className"])
    if info is None:
        return _notFound(f"class named {args['className']}")
    subclasses = model.subclassesOf(info.name)
    if subclasses:
        return {"subclasses": subclasses}
    refusal = _guard(model.definition(info.name), args["expected"])
    if refusal:
        return refusal
    methods = len(model.methods(info.name)) + len(model.methods(info.name, meta=True))
    model.removeClass(info.name)
    return {"dictionary": info.dictionary, "methods": methods}


def _unreadAtRisk(existing, methods, args):
    """
    The template's check: when the redefinition drops an instance variable
    or does not recompile, the methods not among C{readMethods}.
    """
    kept = set(_texts(args["instVarNames"]))
    keptClassSide = set(_texts(args["classInstVars"]))
    if args["recompileMethods"] and set(existing.instVarNames) <= kept and \
            set(existing.classInstVars) <= keptClassSide:
        return []
    read = args["readMethods"].split()
    return [("class>>" if meta else "") + selector
            for meta in (False, True) for selector in methods[meta]
            if ("class>>" if meta else "") + selector not in read]


@handler("compile_class_definition")
def compileClassDefinition(ev, args):
    model = codeModel(ev)
    name, superclassName = args["className"], args["superclassName"]
    existing = model.classNamed(name)
    requested = args["dictionaryName"]
    pools = _texts(args["poolDictionaries"])
    symbolList = model.symbolList()
    if existing is None and system.resolve(ev.session, name) is not None:
        return {"gsmcpRefused": f"{name} names something in the symbol list that is not "
                                "a class; choose another name."}
    if model.classNamed(superclassName) is None:
        return _notFound(f"class named {superclassName} (the superclass)")
    if requested is not None and requested not in symbolList:
        return _notFound(f"dictionary named {requested}")
    missing = [pool for pool in pools if pool not in symbolList]
    if missing:
        return _notFound(f"pool dictionary named {missing[0]}")
    before = None
    old = {}
    if existing is not None:
        subclasses = model.subclassesOf(name)
        if subclasses:
            return {"subclasses": subclasses}
        before = model.definition(name)
        refusal = _guard(before, args["expected"])
        if refusal:
            return refusal
        old = {meta: model.methods(name, meta) for meta in (False, True)}
        unread = _unreadAtRisk(existing, old, args)
        if unread:
            return {"unreadMethods": unread}
    info, newVersion = model.defineClass(
        name, superclassName, _texts(args["instVarNames"]), _texts(args["classVars"]),
        _texts(args["classInstVars"]), pools,
        requested or (existing.dictionary if existing else system.USER_GLOBALS.name),
        _texts(args["options"]))
    failures, dropped, recompiled = [], [], 0
    for meta, methods in old.items() if newVersion else ():
        for selector, method in sorted(methods.items()):
            if not args["recompileMethods"]:
                dropped.append({"selector": selector, "meta": meta})
                continue
            failure = _compiled(lambda: model.compileMethod(
                name, method.source, method.category, meta))
            if failure is None:
                recompiled += 1
            else:
                failures.append({"selector": selector, "meta": meta,
                                 "source": method.source, "errors": failure})
    definition = model.definition(name)
    return {"className": info.name, "dictionary": info.dictionary,
            "created": existing is None, "newVersion": newVersion,
            "changed": before != definition, "definition": definition,
            "recompiled": recompiled, "failures": failures, "dropped": dropped}

"""
The browsing templates: one class, its definition, hierarchy and methods.
"""

from gsmcpd.testing.simulator.handlers import codeModel, handler


def _browsed(template):
    """
    Register C{template}'s handler, given the model and the ClassInfo the
    C{className} argument resolves to; a name that is not a class answers
    the template's not-found answer instead.
    """
    def register(function):
        @handler(template)
        def resolved(ev, args):
            model = codeModel(ev)
            info = model.classNamed(args["className"])
            if info is None:
                return {"gsmcpNotFound": (
                    f"Class not found: {args['className']} (no class of that name in "
                    "this session's symbol list; list_all_classes or list_classes "
                    "lists the classes)")}
            return function(model, info, args)
        return function
    return register


def _bothSides(model, name):
    return [*model.methods(name).values(), *model.methods(name, meta=True).values()]


@_browsed("describe_class")
def describeClass(model, info, args):
    return {"className": info.name, "superclass": info.superclassName,
            "instVarNames": list(info.instVarNames), "classVarNames": list(info.classVars),
            "classInstVarNames": list(info.classInstVars), "category": info.category,
            "comment": info.comment,
            "instanceSelectors": list(model.methods(info.name)),
            "classSelectors": list(model.methods(info.name, meta=True))}


@_browsed("get_class_definition")
def getClassDefinition(model, info, args):
    return {"className": info.name, "definition": model.definition(info.name)}


@_browsed("export_class_source")
def exportClassSource(model, info, args):
    return {"className": info.name, "definition": model.definition(info.name),
            "fileOut": model.fileOut(info.name),
            "methods": [{"meta": m.meta, "selector": m.selector, "source": m.source}
                        for m in _bothSides(model, info.name)]}


@_browsed("get_class_hierarchy")
def getClassHierarchy(model, info, args):
    superclasses, current = [], info.superclassName
    while current is not None:
        superclasses.append(current)
        above = model.classNamed(current)
        current = above.superclassName if above else None
    return {"className": info.name, "superclasses": superclasses,
            "subclasses": model.subclassesOf(info.name)}


@_browsed("get_method_source")
def getMethodSource(model, info, args):
    meta, selector = args["meta"], args["selector"]
    method = model.method(info.name, selector, meta)
    if method is None:
        behavior = f"{info.name} class" if meta else info.name
        return {"gsmcpNotFound": (
            f"Method not found: {behavior}>>{selector} (list_methods lists the "
            f"selectors of {info.name})")}
    return {"className": info.name, "category": method.category, "source": method.source}


@_browsed("list_methods")
def listMethods(model, info, args):
    return {"className": info.name,
            "methods": [{"meta": m.meta, "selector": m.selector, "category": m.category}
                        for m in _bothSides(model, info.name)]}

"""
Classes as objects in the simulated stone: Behavior, Class and Metaclass3
(reflection, compiling and removing methods, GemStone 3.7's class
definition), GsNMethod, and ClassOrganizer's searches.

A class is a kernel L{StClass} or a repository L{UserClass}, either side;
what they hold lives in the session's L{gsmcpd.testing.simulator.model.CodeModel}
(C{ev.code}).
"""

from gsmcpd.testing.simulator import compiler, errors, exceptions, searches
from gsmcpd.testing.simulator.kernel import (
    CLASSES,
    KERNEL_INSTVARS,
    SmalltalkMethod,
    StClass,
    classOf,
    method,
    text,
)
from gsmcpd.testing.simulator.model import DEFAULT_CATEGORY, MethodInfo
from gsmcpd.testing.simulator.objects import (
    ActiveMethod,
    Array,
    CompiledMethod,
    Instance,
    String,
    Symbol,
    SymbolDictionaryRef,
    UserClass,
    string,
)


def parts(behavior):
    """
    C{(className, meta, version)} of a class or metaclass.
    """
    if isinstance(behavior, UserClass):
        return behavior.className, behavior.meta, behavior.version
    if isinstance(behavior, StClass):
        if behavior.metaclass is None:
            return behavior.name.removesuffix(" class"), True, None
        return behavior.name, False, None
    # Every caller passes a class: anything else is the model's own bug.
    raise TypeError(f"simulated stone: {classOf(behavior).name} is not a class")


def methodsOf(ev, behavior):
    """
    C{{selector: MethodInfo}} a class defines itself in the repository.
    (The kernel's own methods, Python or Smalltalk, run but are not shown:
    a real stone shows its kernel's sources, the simulator has none to show.)
    """
    name, meta, version = parts(behavior)
    return ev.code.methodsOf(name, meta, version)


def methodOf(ev, behavior, selector):
    """
    The MethodInfo of C{selector} the class defines itself, or None: one
    read for a current class, not a listing of its methods.
    """
    name, meta, version = parts(behavior)
    history = ev.code.classHistory(name)
    if version is None or not history or history[-1].version == version:
        return ev.code.method(name, selector, meta) or kernelMethod(ev, behavior, selector)
    return ev.code.methodsOf(name, meta, version).get(selector)


KERNEL_CATEGORY = "simulated stone"


def kernelMethod(ev, behavior, selector):
    """
    The MethodInfo of a method the model implements in the kernel class
    (or metaclass) C{behavior}, or None: a Smalltalk one with its source,
    a Python one with a source that says so (a real stone shows GemStone's).
    """
    if selector not in kernelSelectors(ev, behavior):
        return None
    found = behavior.methods[selector]
    name, meta, _ = parts(behavior)
    if isinstance(found, SmalltalkMethod):
        return MethodInfo(name, meta, selector, found.category, found.source)
    keywords = selector.split(":")[:-1]
    pattern = (" ".join(f"{keyword}: arg{i + 1}" for i, keyword in enumerate(keywords))
               if keywords else selector if selector[0].isalpha() else f"{selector} arg1")
    return MethodInfo(name, meta, selector, KERNEL_CATEGORY, (
        f"{pattern}\n\t\"A primitive of the simulated stone's model, in Python; "
        f"GemStone's own source is not shown.\"\n\t<primitive: 0>"))


def _found(ev, behavior, selector):
    found = methodOf(ev, behavior, text(selector))
    if found is None:
        raise errors.keyNotFound(f"#{text(selector)}")
    return found


# ----------------------------------------------------------------- Behavior

@method("Object", "isBehavior")
def _isBehaviorNot(ev, receiver):
    return False


@method("Behavior", "isBehavior")
def _isBehavior(ev, receiver):
    return True


@method("Behavior", "name")
def _name(ev, receiver):
    name, meta, _ = parts(receiver)
    return String(f"{name} class") if meta else Symbol(name)


@method("Behavior", "isMeta")
def _isMeta(ev, receiver):
    return parts(receiver)[1]


@method("Behavior", "theNonMetaClass", "thisClass")
def _theNonMetaClass(ev, receiver):
    name, meta, version = parts(receiver)
    if not meta:
        return receiver
    return UserClass(name, version=version) if isinstance(receiver, UserClass) else CLASSES[name]


@method("Behavior", "superclass")
def _superclass(ev, receiver):
    if isinstance(receiver, StClass):
        return receiver.superclass
    return ev.code.superclassOf(receiver)


def _subclassesOf(ev, name, every=False):
    names = (ev.code.allSubclassesOf if every else ev.code.subclassesOf)(name)
    return [CLASSES[each] if ev.code.classNamed(each) is None and each in CLASSES
            else UserClass(each, version=ev.code.classNamed(each).version)
            for each in names]


@method("Behavior", "subclasses")
def _subclasses(ev, receiver):
    name, meta, _ = parts(receiver)
    return Array([] if meta else _subclassesOf(ev, name))


@method("Behavior", "inheritsFrom:")
def _inheritsFrom(ev, receiver, other):
    return receiver != other and ev.inherits(receiver, other)


@method("Behavior", "canUnderstand:")
def _canUnderstand(ev, receiver, selector):
    return ev.lookup(receiver, text(selector)) is not None


def kernelSelectors(ev, behavior):
    """
    The selectors the model implements in the kernel class (or metaclass)
    C{behavior} itself, less those the stone lacks; none for a user class.
    """
    if not isinstance(behavior, StClass):
        return set()
    return {selector for selector in behavior.methods
            if f"{behavior.name}>>{selector}" not in ev.lacking}


@method("Behavior", "selectors")
def _selectors(ev, receiver):
    return Array([Symbol(each) for each in sorted(set(methodsOf(ev, receiver))
                                                  | kernelSelectors(ev, receiver))])


@method("Behavior", "includesSelector:")
def _includesSelector(ev, receiver, selector):
    return methodOf(ev, receiver, text(selector)) is not None


@method("Behavior", "compiledMethodAt:")
def _compiledMethodAt(ev, receiver, selector):
    _found(ev, receiver, selector)
    return CompiledMethod(receiver, text(selector))


@method("Behavior", "compiledMethodAt:environmentId:")
def _compiledMethodAtEnv(ev, receiver, selector, environmentId):
    return _compiledMethodAt(ev, receiver, selector)


@method("Behavior", "sourceCodeAt:")
def _sourceCodeAt(ev, receiver, selector):
    return string(_found(ev, receiver, selector).source)


@method("Behavior", "categoryOfSelector:")
def _categoryOfSelector(ev, receiver, selector):
    found = methodOf(ev, receiver, text(selector))
    return None if found is None else Symbol(found.category)


@method("Behavior", "instVarNames")
def _instVarNames(ev, receiver):
    name, meta, _ = parts(receiver)
    info = ev.code.classInfo(name)
    return Array([Symbol(each) for each in (info.classInstVars if meta else info.instVarNames)])


@method("Behavior", "allInstVarNames")
def _allInstVarNames(ev, receiver):
    name, meta, _ = parts(receiver)
    if meta:
        # A metaclass's instances are classes: Class's variables come first.
        variables = ev.code.variablesOf(name, True)
        return Array([Symbol(each) for each, binding in variables.items()
                      if binding[0] in ("classSlot", "classInstVar")])
    return Array([Symbol(each) for each in ev.code.instVarNamesOf(name)])


@method("Behavior", "new", "basicNew")
def _new(ev, receiver):
    """
    A new instance with every instance variable nil (kernel classes with
    their own C{new} answer theirs first).
    """
    name, meta, _ = parts(receiver)
    if meta:
        raise errors.messageNotUnderstood(classOf(receiver).name, "new")
    if isinstance(receiver, StClass):
        return Instance(receiver, dict.fromkeys(KERNEL_INSTVARS.get(name, ())))
    return Instance(receiver, dict.fromkeys(ev.code.instVarNamesOf(name)))


@method("Behavior", "removeSelector:")
def _removeSelector(ev, receiver, selector):
    name, meta, _ = parts(receiver)
    ev.code.removeMethod(name, text(selector), meta)
    return receiver


@method("Behavior", "compileMethod:dictionaries:category:environmentId:")
def _compileMethodEnv(ev, receiver, source, dictionaries, category, environmentId):
    """
    Compile C{source} into the class: signal each CompileWarning (a handler
    resumes it to go on), then install it; a CompileError if it does not
    compile.  Answers the GsNMethod.
    """
    name, meta, _ = parts(receiver)
    if name in CLASSES and ev.code.classNamed(name) is None:
        raise errors.notFound(f"no class named {name}")
    body = text(source)
    tree = compiler.parseMethod(body)
    for offset, warning in compiler.warnings(tree):
        exceptions.signalCompileWarning(ev, warning, offset)
    info = ev.code.compileMethod(name, body, text(category) if category is not None
                                 else DEFAULT_CATEGORY, meta)
    return CompiledMethod(receiver, info.selector)


@method("Behavior", "compileMethod:dictionaries:category:")
def _compileMethod(ev, receiver, source, dictionaries, category):
    return _compileMethodEnv(ev, receiver, source, dictionaries, category, 0)


# -------------------------------------------------------------------- Class

def _classNamed(ev, receiver, selector):
    name, meta, _ = parts(receiver)
    if meta:
        raise errors.messageNotUnderstood(classOf(receiver).name, selector)
    return name


@method("Class", "comment")
def _comment(ev, receiver):
    return String(ev.code.comment(_classNamed(ev, receiver, "comment")))


@method("Class", "comment:")
def _setComment(ev, receiver, comment):
    ev.code.setComment(_classNamed(ev, receiver, "comment:"), text(comment))
    return receiver


@method("Class", "category")
def _category(ev, receiver):
    return Symbol(ev.code.classInfo(_classNamed(ev, receiver, "category")).category)


@method("Class", "category:")
def _setCategory(ev, receiver, category):
    """
    GemStone's file-out sets a class's category so, after defining it.
    """
    ev.code.setCategory(_classNamed(ev, receiver, "category:"), text(category))
    return receiver


@method("Class", "classVarNames")
def _classVarNames(ev, receiver):
    info = ev.code.classInfo(_classNamed(ev, receiver, "classVarNames"))
    return Array([Symbol(each) for each in info.classVars])


@method("Class", "definition")
def _definition(ev, receiver):
    return String(ev.code.definition(_classNamed(ev, receiver, "definition")))


@method("Class", "fileOutClass")
def _fileOutClass(ev, receiver):
    return String(ev.code.fileOut(_classNamed(ev, receiver, "fileOutClass")))


def definedClass(ev, receiver, keyword, kind, name, instVarNames, classVars,
                 classInstVars, poolDictionaries, dictionary, options):
    """
    A class defined by one of GemStone 3.7's class-creation messages
    (C{keyword}), of C{kind} (L{classkinds}; None: the superclass's).
    """
    if not isinstance(dictionary, SymbolDictionaryRef):
        raise errors.argumentTypeError(keyword)
    names = [[text(each) for each in array.items]
             for array in (instVarNames, classVars, classInstVars, options)]
    pools = [each.name if isinstance(each, SymbolDictionaryRef) else text(each)
             for each in poolDictionaries.items]
    superclassName, _, _ = parts(receiver)
    info, _ = ev.code.defineClass(text(name), superclassName, *names[:3], pools,
                                  dictionary=dictionary.name, options=names[3], kind=kind)
    return UserClass(info.name, version=info.version)


@method("Class",
        "subclass:instVarNames:classVars:classInstVars:poolDictionaries:inDictionary:options:")
def _subclass(ev, receiver, name, instVarNames, classVars, classInstVars,
              poolDictionaries, dictionary, options):
    """
    GemStone 3.7's class definition, as file-ins and tools send it.
    """
    return definedClass(ev, receiver, "subclass:", None, name, instVarNames,
                        classVars, classInstVars, poolDictionaries,
                        dictionary, options)


# ---------------------------------------------------------------- GsNMethod

@method("GsNMethod", "selector")
def _selector(ev, receiver):
    return None if receiver.selector is None else Symbol(receiver.selector)


@method("GsNMethod", "inClass")
def _inClass(ev, receiver):
    return receiver.behavior


@method("GsNMethod", "sourceString")
def _sourceString(ev, receiver):
    if isinstance(receiver, ActiveMethod):
        return string(receiver.source)
    return string(_found(ev, receiver.behavior, Symbol(receiver.selector)).source)


@method("GsNMethod", "environmentId")
def _environmentId(ev, receiver):
    return 0


# ----------------------------------------------------------- ClassOrganizer

def _compiled(ev, methods):  # each in its class's current version, == the global
    return Array([CompiledMethod(UserClass(m.className, m.meta, ev.code.classNamed(
        m.className).version), m.selector) for m in methods])


@method("ClassOrganizer", "implementorsOf:")
def _implementorsOf(ev, receiver, selector):
    return _compiled(ev, searches.indexOf(ev.code).implementors.get(text(selector), ()))


@method("ClassOrganizer", "sendersOf:")
def _sendersOf(ev, receiver, selector):
    """
    GemStone's answer: an Array of the methods and an Array of where in
    each the selector is sent (the model does not track where: 0 each).
    """
    methods = _compiled(ev, searches.indexOf(ev.code).senders.get(text(selector), ()))
    return Array([methods, Array([0] * len(methods.items))])


@method("ClassOrganizer", "referencesToObject:")
def _referencesToObject(ev, receiver, value):
    references = searches.indexOf(ev.code).references
    found = {}
    for name in ev.code.namesOf(value):
        for each in references.get(name, ()):
            found[(each.className, each.meta, each.selector)] = each
    return _compiled(ev, found.values())


@method("ClassOrganizer", "allSubclassesOf:")
def _allSubclassesOf(ev, receiver, behavior):
    if not isinstance(behavior, (StClass, UserClass)):
        raise errors.argumentTypeError("allSubclassesOf:")
    name, _, _ = parts(behavior)
    return Array(_subclassesOf(ev, name, every=True))


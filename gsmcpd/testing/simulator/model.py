"""
The simulated stone's code repository, as one session sees it: symbol
dictionaries, classes, methods and SUnit tests, read and written through the
session's L{gsmcpd.testing.simulator.repository.Transaction} (so views, uncommitted
changes, commit, abort and conflicts apply to code exactly as to data).

A test double, not GemStone.  The kernel model's methods (reflection,
dictionaries, SUnit) use this API; it is the contract between them and the
repository.  Errors a real stone would signal are
raised as L{gsmcpd.testing.simulator.errors.SmalltalkError} (so the envelope answers
them as C{{"error": ...}}).

Storage keys: C{('symbolList',)} the dictionary names;
C{('global', dictionary, name)} a binding, to a global or a class (a class
is bound under its own name where it was defined, and under any other
names in any dictionaries a user binds it, as in GemStone);
C{('class', name)} the class's history, a tuple of L{ClassInfo} oldest
first; C{('method', className, meta, selector)} a L{MethodInfo};
C{('classVar', className, name)} and C{('classInstVar', className, name)}
the values of class and class-instance variables.  What two sessions
conflict on is coarser than these keys, as in GemStone (a class's method
dictionary, not a method): L{gsmcpd.testing.simulator.grain}.
"""

import attr

from gsmcpd import smalltalk
from gsmcpd.testing.simulator import classkinds, compiler, errors, fileout, system
from gsmcpd.testing.simulator.kernel import CLASSES, KERNEL_INSTVARS, StClass
from gsmcpd.testing.simulator.objects import SymbolDictionaryRef, UserClass, printString
from gsmcpd.testing.simulator.repository import ABSENT

DEFAULT_CATEGORY = "as yet unclassified"
KERNEL_CATEGORY = "Kernel"


@attr.s(frozen=True, auto_attribs=True)
class MethodInfo:
    """
    One compiled method.
    """

    className: str
    meta: bool            # class side?
    selector: str
    category: str
    source: str


@attr.s(frozen=True, auto_attribs=True)
class ClassInfo:
    """
    One class (its current version).

    @ivar dictionary: the symbol dictionary that holds it.
    @ivar version: 1 for the first definition; a shape-changing
        redefinition makes the next version (GemStone's class history).
    @ivar superclassVersion: the version of a user superclass it was
        defined under: a class holds its superclass by identity, so a new
        version of the superclass leaves it under the old one until it is
        redefined under the new (None: a kernel superclass).
    """

    name: str
    superclassName: str | None
    instVarNames: tuple
    classVars: tuple
    classInstVars: tuple
    poolDictionaries: tuple
    category: str
    comment: str
    dictionary: str
    options: tuple
    version: int
    superclassVersion: int | None = None
    kind: str = classkinds.POINTER
    """C{pointer}, C{indexable} or C{bytes} (L{classkinds})."""


def _methodKey(className, meta, selector):
    return ("method", className, meta, selector)


def _versionKey(className, version):
    """
    Where the methods of a class's older version are kept, for tools that
    still hold it (its methods as they were when it was replaced).
    """
    return ("classVersionMethods", className, version)


def _bindsClass(value, name):
    """
    Whether a binding's C{value} is the user class C{name} (some version).
    """
    return isinstance(value, UserClass) and not value.meta and value.className == name


KERNEL_CLASS_INSTVARS = {"TestResource": ("current",)}

CLASS_INSTVARS = ("name",)
"""The instance variables of Class the model has, in scope in every class
method (GemTalk measured C{name} on 3.7, GemTalk/mcp_server
docs/GemStone_Notes.md; a real stone's Class has more)."""


def _kernelInfo(cls):
    superclass = cls.superclass.name if cls.superclass else None
    return ClassInfo(cls.name, superclass, KERNEL_INSTVARS[cls.name], (),
                     KERNEL_CLASS_INSTVARS.get(cls.name, ()), (), KERNEL_CATEGORY,
                     f"A kernel class of the simulated stone: its selectors are the "
                     f"methods the simulator models; GemStone's {cls.name} has more.",
                     system.GLOBALS.name, (), 1, kind=classkinds.kernelKind(cls.name))


KERNEL_CLASSES = {name: _kernelInfo(cls) for name, cls in CLASSES.items()}


def _isIdentifier(name):
    return isinstance(name, str) and name.isidentifier() and name.isascii()


class CodeModel:
    """
    The code repository seen through one session's transaction.

    Kernel classes (Object, String, TestCase, ...) live in C{Globals} and are
    visible but are the simulator's own; user classes live in the repository
    and version with it.
    """

    def __init__(self, session):
        self.session = session

    @property
    def _transaction(self):
        return self.session.transaction

    def _read(self, key):
        value = self._transaction.read(key)
        return None if value is ABSENT else value

    # The symbol list (System myUserProfile symbolList)

    def symbolList(self):
        """
        Dictionary names in lookup order: C{UserGlobals}, C{Globals},
        C{Published}, then those added.
        """
        return [dictionary.name for dictionary in system.symbolList(self.session)]

    def dictionaryEntries(self, dictionaryName):
        """
        C{{name: ClassInfo or printString}} of one dictionary, or None if no
        dictionary of that name is in the symbol list.
        """
        if dictionaryName not in self.symbolList():
            return None
        dictionary = SymbolDictionaryRef(dictionaryName)
        entries = {}
        for name in system.globalNames(self.session, dictionary):
            value = system.readGlobal(self.session, dictionary, name)
            entries[name] = self._info(value) or printString(value)
        return entries

    def addDictionary(self, name, index=None):
        """
        Create a SymbolDictionary and append it to the symbol list
        (uncommitted, undone by abort), or insert it at the 1-based
        C{index}, as C{insertDictionary:at:} does.  Error if the name is taken.
        """
        if not _isIdentifier(name):
            raise errors.refused(f"{name!r} is not a valid dictionary name")
        if system.resolve(self.session, name) is not None:
            raise errors.refused(f"the name {name} is already defined in the symbol list")
        names = self.symbolList()
        names.insert(len(names) if index is None else index - 1, name)
        self._transaction.write(system.SYMBOL_LIST_KEY, tuple(names))

    def removeDictionary(self, name):
        """
        Remove it from the symbol list (uncommitted).  Error if absent.

        Its globals go with it (the simulator names objects by their
        dictionary), and so do the classes it bound under their own names
        that no other dictionary binds: nothing could reach them by name
        again.
        """
        names = self.symbolList()
        if name not in names:
            raise errors.notFound(f"no dictionary named {name} in the symbol list")
        if name == system.GLOBALS.name:
            raise errors.refused("Globals holds the kernel and cannot be removed")
        bound = []
        for key in self._transaction.keys(("global", name)):
            bound.append((key[2], self._read(key)))
            self._transaction.write(key, ABSENT)
        names.remove(name)
        self._transaction.write(system.SYMBOL_LIST_KEY, tuple(names))
        for each, value in bound:
            self.unbound(each, value)

    def unbound(self, name, value):
        """
        A binding of C{name} to C{value} was removed: if it bound a user
        class under its own name and no dictionary of the symbol list
        binds that name any more, the class is removed too.

        Not modelled: a class whose subclass is still bound, which GemStone
        keeps as that subclass's superclass (held by identity; the model
        keeps no unbound class, and would put the subclass under Object).
        """
        if (_bindsClass(value, name) and self._current(name) is not None
                and system.resolve(self.session, name) is None):
            held = [each for each in self.subclassesOf(name)
                    if system.resolve(self.session, each) is not None]
            if held:
                raise NotImplementedError(
                    f"the simulated stone keeps no unbound class: {name} is the "
                    f"superclass of {', '.join(held)}")
            self.removeClass(name)

    # Classes

    def _history(self, name):
        return self._read(system.classKey(name)) or ()

    def _current(self, name):
        history = self._history(name)
        return history[-1] if history else None

    def _userClasses(self):
        return [self._read(key)[-1] for key in self._transaction.keys(("class",))]

    def _info(self, value):
        if isinstance(value, UserClass) and not value.meta:
            return self._current(value.className)
        if isinstance(value, StClass):
            return KERNEL_CLASSES.get(value.name)
        return None

    def classNamed(self, name):
        """
        The ClassInfo the name resolves to through the symbol list, or None.
        """
        dictionary = system.resolve(self.session, name)
        if dictionary is None:
            return None
        return self._info(system.readGlobal(self.session, dictionary, name))

    def classHistory(self, name):
        """
        Every version of the user class C{name}, oldest first (GemStone's
        C{classHistory}); empty for kernel and unknown classes.
        """
        return list(self._history(name))

    def allClasses(self):
        """
        Every class in every dictionary: a list of ClassInfo, in symbol-list
        order then name order.
        """
        byDictionary = {}
        for info in self._userClasses():
            byDictionary.setdefault(info.dictionary, []).append(info)
        byDictionary.setdefault(system.GLOBALS.name, []).extend(KERNEL_CLASSES.values())
        return [info for name in self.symbolList()
                for info in sorted(byDictionary.get(name, ()), key=lambda i: i.name)]

    def subclassesOf(self, name):
        """
        Names of the direct subclasses, sorted.
        """
        return sorted(info.name for info in self.allClasses() if info.superclassName == name)

    def allSubclassesOf(self, name):
        """
        Names of every class below C{name}, sorted.
        """
        found, pending = set(), [name]
        while pending:
            below = self.subclassesOf(pending.pop())
            found.update(below)
            pending.extend(below)
        return sorted(found)

    def _userClass(self, name):
        """
        The current ClassInfo of the user class C{name}, or an Error: kernel
        classes are not the repository's to change.
        """
        if name in CLASSES:
            raise errors.refused(f"{name} is a kernel class of the simulated stone "
                                 "and cannot be changed")
        info = self._current(name)
        if info is None:
            raise errors.notFound(f"no class named {name}")
        return info

    def defineClass(self, name, superclassName, instVarNames=(), classVars=(),
                    classInstVars=(), poolDictionaries=(), dictionary=None,
                    options=(), category=None, kind=None):
        """
        Define or redefine a class (GemStone 3.7's
        C{subclass:instVarNames:classVars:classInstVars:poolDictionaries:inDictionary:options:}),
        of C{kind} (L{classkinds}; None: the superclass's, as C{subclass:}).

        A redefinition that changes the shape (instance variables, class
        variables, class-instance variables, or superclass, by name or by
        version: the class it is defined under) makes a new
        version with no methods; otherwise the class is updated in place.
        The dictionary and category default to the old version's, else
        the first of the symbol list and C{""}.  The class is bound under
        its name in the dictionary (GemStone's C{inDictionary:}); other
        bindings stay as they were, so one to the old version still holds
        the old version.

        @return: C{(ClassInfo, shapeChanged)}; C{shapeChanged} is False for
            a class that did not exist.
        """
        if not _isIdentifier(name) or not name[:1].isupper():
            raise errors.refused(f"{name!r} is not a valid class name")
        if name in CLASSES:
            raise errors.refused(f"{name} is a kernel class of the simulated stone "
                                 "and cannot be redefined")
        if superclassName is not None and self.classNamed(superclassName) is None:
            raise errors.notFound(f"no class named {superclassName} for the superclass")
        if superclassName is not None and name in (
                superclassName, *self.superclassNames(superclassName)):
            raise errors.refused(f"{name} cannot be its own superclass")
        old = self._current(name)
        dictionary = dictionary or (old.dictionary if old else self.symbolList()[0])
        if dictionary not in self.symbolList():
            raise errors.notFound(f"no dictionary named {dictionary} in the symbol list")
        for each in (*instVarNames, *classVars, *classInstVars):
            if not _isIdentifier(each):
                raise errors.refused(f"{each!r} is not a valid variable name")
        for each in classInstVars:
            if each in CLASS_INSTVARS:
                raise errors.refused(f"class-instance variable {each} is already an instance "
                                     "variable of Class")
        seen = self._instVarNames(superclassName) if superclassName else []
        for each in instVarNames:
            if each in seen:
                raise errors.refused(f"instance variable {each} is already defined "
                                     f"in {name} or a superclass")
            seen.append(each)
        superKind = self.classInfo(superclassName).kind if superclassName else classkinds.POINTER
        kind = classkinds.checkedKind(
            name, kind, superKind,
            self._instVarNames(superclassName) if superclassName else [], instVarNames)
        info = ClassInfo(
            name, superclassName, tuple(instVarNames), tuple(classVars),
            tuple(classInstVars), tuple(poolDictionaries),
            category if category is not None else (old.category if old else ""),
            old.comment if old else "", dictionary, tuple(options),
            old.version if old else 1, self._versionOf(superclassName), kind)
        history = self._history(name)
        home = system.globalKey(SymbolDictionaryRef(dictionary), name)
        if info == old and _bindsClass(self._read(home), name) \
                and self._read(home).version == old.version:
            # The same definition again changes nothing (GemTalk measured
            # needsCommit false after it on 3.7).
            return old, False
        shapeChanged = old is not None and self._shape(old) != self._shape(info)
        if shapeChanged:
            self._transaction.write(_versionKey(name, old.version), {
                (key[2], key[3]): self._read(key) for key in self._methodKeys(name)})
            for key in self._methodKeys(name):
                self._transaction.write(key, ABSENT)
            info = attr.evolve(info, version=old.version + 1)
            history += (info,)
        else:
            history = history[:-1] + (info,)
        self._transaction.write(system.classKey(name), history)
        bound = self._read(home)
        if not (_bindsClass(bound, name) and bound.version == info.version):
            # inDictionary: binds the class under its name there, and
            # leaves any other binding (to an older version) alone.
            self._transaction.write(home, UserClass(name, version=info.version))
        return info, shapeChanged

    def _versionOf(self, name):
        """The current version of the user class C{name} (None: not one)."""
        info = self._current(name) if name is not None else None
        return None if info is None else info.version

    @staticmethod
    def _shape(info):
        return (info.superclassName, info.superclassVersion, info.instVarNames,
                info.classVars, info.classInstVars, info.kind)

    def removeClass(self, name):
        """
        Remove the class (uncommitted), with its methods, the values of its
        class variables and its bindings under its own name.
        """
        self._userClass(name)
        bindings = [key for key in (system.globalKey(dictionary, name)
                                    for dictionary in system.symbolList(self.session))
                    if _bindsClass(self._read(key), name)]
        for key in (*self._methodKeys(name),
                    *self._transaction.keys(("classVar", name)),
                    *self._transaction.keys(("classInstVar", name)),
                    system.classKey(name), *bindings):
            self._transaction.write(key, ABSENT)

    def setComment(self, name, comment):
        """
        Replace the class comment (uncommitted), as C{comment:} does.
        """
        info = attr.evolve(self._userClass(name), comment=comment)
        self._transaction.write(system.classKey(name), self._history(name)[:-1] + (info,))

    def comment(self, name):
        """
        The class's comment, or GemStone's generated one when it has none:
        "No class-specific documentation for ..." and its hierarchy, each
        class indented under its superclass with its own instance
        variables, as 3.x stones file it out (e.g. GemTalk/Rowan
        Cypress-Environmental-Tools, GemTalk/Grail src/smalltalk/Python).
        """
        info = self.classInfo(name)
        if info.comment:
            return info.comment
        lines = [f"No class-specific documentation for {name}, hierarchy is: "]
        for depth, each in enumerate(reversed(list(self._chain(name)))):
            own = "".join(f" {variable}" for variable in each.instVarNames)
            lines.append("  " * depth + each.name + (f"({own})" if own else ""))
        return "\n".join(lines) + "\n"

    def setCategory(self, name, category):
        """
        Replace the class category (uncommitted), as C{category:} does.
        """
        info = attr.evolve(self._userClass(name), category=category)
        self._transaction.write(system.classKey(name), self._history(name)[:-1] + (info,))

    def definition(self, name):
        """
        The class-definition expression GemStone's C{Class>>definition}
        answers (3.7 form).
        """
        return fileout.definition(self._described(name), self._creation(name))

    def _creation(self, name):
        """The keyword a class's definition starts with: that of its kind
        where its superclass is of another kind, else C{subclass:}."""
        info = self._described(name)
        superKind = (self.classInfo(info.superclassName).kind if info.superclassName
                     else classkinds.POINTER)
        return classkinds.creationKeyword(info.kind, superKind)

    def fileOut(self, name):
        """
        The topaz file-in text C{Class>>fileOutClass} answers: the
        definition, C{removeallmethods}/C{removeallclassmethods}, then each
        method as C{category:} + C{method:}/C{classmethod:} ... C{%}.
        """
        return fileout.fileOut(attr.evolve(self._described(name), comment=self.comment(name)),
                               self.methods(name, meta=True).values(), self.methods(name).values(),
                               self._creation(name))

    def classInfo(self, name):
        """
        The current ClassInfo of the user or kernel class C{name}, wherever
        it is bound.
        """
        info = self._current(name) or KERNEL_CLASSES.get(name)
        if info is None:
            raise errors.notFound(f"no class named {name}")
        return info

    def namesOf(self, value):
        """
        The names the symbol list binds to C{value} (a class by its own
        name, and any global holding it).
        """
        names = set()
        if isinstance(value, UserClass):
            names.add(value.className)
        elif isinstance(value, StClass) and value.metaclass is not None:
            names.add(value.name)
        for dictionary in system.symbolList(self.session):
            for name in system.globalNames(self.session, dictionary):
                if self._transaction.read(system.globalKey(dictionary, name)) is value:
                    names.add(name)
        return sorted(names)

    def _described(self, name):
        info = self.classNamed(name)
        if info is None:
            raise errors.notFound(f"no class named {name}")
        return info

    def superclassOf(self, behavior):
        """
        The superclass of a running class: a L{UserClass} (either side) or
        a kernel L{StClass}.  A user class whose superclass was removed
        inherits from Object.
        """
        if isinstance(behavior, StClass):
            return behavior.superclass
        info = self._current(behavior.className)
        name = info.superclassName if info else "Object"
        if name is None:
            return None
        if self._current(name) is not None:
            return UserClass(name, behavior.meta)
        kernel = CLASSES.get(name, CLASSES["Object"])
        return kernel.metaclass if behavior.meta else kernel

    # Variables a class's methods can name

    def _chain(self, name):
        """
        The ClassInfos of C{name} and its superclasses, user and kernel.
        """
        while name is not None:
            info = self._current(name) or KERNEL_CLASSES.get(name)
            if info is None:
                return
            yield info
            name = info.superclassName

    def superclassNames(self, name):
        """
        The names of C{name}'s superclasses, nearest first.
        """
        return [info.name for info in self._chain(name)][1:]

    def _instVarNames(self, name):
        return [v for info in reversed(list(self._chain(name))) for v in info.instVarNames]

    def instVarNamesOf(self, name):
        """
        The instance variables of an instance of C{name}, inherited first.
        """
        return self._instVarNames(name)

    def variablesOf(self, className, meta):
        """
        The variables a method of the class (or its class side) can name
        besides its own: C{{name: binding}}, where a binding is
        C{("slot",)} for an instance variable, C{("classVar", owner)} or
        C{("classInstVar",)}.  Nearer classes win.
        """
        variables = dict.fromkeys(CLASS_INSTVARS, ("classSlot",)) if meta else {}
        for info in self._chain(className):
            for name in info.classVars:
                variables.setdefault(name, ("classVar", info.name))
            for name in (info.classInstVars if meta else info.instVarNames):
                variables.setdefault(name, ("classInstVar",) if meta else ("slot",))
        return variables

    # Methods

    def _methodKeys(self, className, meta=None):
        prefix = ("method", className) if meta is None else ("method", className, meta)
        return self._transaction.keys(prefix)

    def methods(self, className, meta=False):
        """
        C{{selector: MethodInfo}} defined in the class itself (not inherited).
        """
        return {key[3]: self._read(key) for key in self._methodKeys(className, meta)}

    def method(self, className, selector, meta=False):
        """
        The MethodInfo, or None.
        """
        return self._read(_methodKey(className, meta, selector))

    def methodsOf(self, className, meta, version=None):
        """
        L{methods} of version C{version} of the class (None: the current).
        """
        current = self._current(className)
        if version is None or current is None or current.version == version:
            return self.methods(className, meta)
        old = self._read(_versionKey(className, version)) or {}
        return {selector: m for (side, selector), m in old.items() if side == meta}

    def compileMethod(self, className, source, category=DEFAULT_CATEGORY,
                      meta=False):
        """
        Compile C{source} into the class (replacing a method of the same
        selector).  A syntax error, or a reference to an undeclared variable,
        raises CompileError (number 1001) whose description names the line
        and what the compiler said.

        Kernel classes take methods too (extensions); they run when the
        kernel itself does not implement the selector.

        @return: the MethodInfo.
        """
        if self.classNamed(className) is None:
            raise errors.notFound(f"no class named {className}")
        tree = compiler.parseMethod(source)
        variables = self.variablesOf(className, meta)
        compiler.checkRedeclared(tree, variables, source)
        scope = (compiler.PSEUDO_VARIABLES | set(tree.params) | set(tree.temps)
                 | set(variables))
        compiler.checkDeclared(self.session, tree.statements, scope, source)
        info = MethodInfo(className, meta, tree.selector, category, source)
        self._transaction.write(_methodKey(className, meta, tree.selector), info)
        return info

    def removeMethod(self, className, selector, meta=False):
        """
        Remove the method (uncommitted); an Error if the class does not
        define it, as C{removeSelector:} signals.
        """
        if self.method(className, selector, meta) is None:
            raise errors.keyNotFound(f"#{selector}")
        self._transaction.write(_methodKey(className, meta, selector), ABSENT)

    # Search (over every method of every class in the symbol list)

    def implementorsOf(self, selector):
        """
        MethodInfos whose selector is C{selector}.
        """
        return [m for m in self.scanMethods() if m.selector == selector]

    def sendersOf(self, selector):
        """
        MethodInfos whose source sends C{selector} (parsed, not grepped).
        """
        return [m for m in self.scanMethods()
                if selector in smalltalk.sent_selectors(compiler.parseMethod(m.source))]

    def referencesTo(self, globalName):
        """
        MethodInfos whose source refers to the global C{globalName}: names
        it where no argument, temporary or class variable of that name
        hides it.
        """
        found = []
        for m in self.scanMethods():
            tree = compiler.parseMethod(m.source)
            local = set(tree.params) | set(tree.temps) | set(self.variablesOf(m.className, m.meta))
            local.update(name for node in smalltalk.iter_nodes(tree)
                         if isinstance(node, smalltalk.Block)
                         for name in (*node.params, *node.temps))
            if globalName not in local and any(
                    isinstance(node, (smalltalk.Variable, smalltalk.Assignment))
                    and node.name == globalName for node in smalltalk.iter_nodes(tree)):
                found.append(m)
        return found

    def scanMethods(self, dictionaryName=None):
        """
        Every MethodInfo, lazily, in scan order (dictionary, class, side,
        selector), optionally only classes of one dictionary.
        """
        keys = {}
        for key in self._transaction.keys(("method",)):
            keys.setdefault(key[1], []).append(key)
        for info in self.allClasses():
            if dictionaryName in (None, info.dictionary):
                for key in sorted(keys.get(info.name, ()), key=lambda k: (k[2], k[3])):
                    yield self._read(key)

    # SUnit

    def testClasses(self):
        """
        Names of the TestCase subclasses, sorted.
        """
        return self.allSubclassesOf("TestCase")

    def testSelectors(self, className):
        """
        The test selectors (unary, starting with C{test}), sorted, including
        inherited ones.
        """
        return sorted({selector for info in self._chain(className)
                       for selector in self.methods(info.name)
                       if selector.startswith("test") and selector.isidentifier()})

"""
Renaming a class, as GemStone 3.7 does it: a class's name is fixed when it
is created, so a rename is a new version of the class under the new name in
the same class history (C{subclass:...newVersionOf:...}), bound under the
new name in its dictionary; it starts with no methods (the tool compiles
them in), and the old name's binding is removed by the caller
(C{removeKey:}), which removes the old version from the model when nothing
else binds it (GemTalk/Jasper resources/refactoring/engine.gs,
GsRenameClassRefactoring, describes the steps).

Stricter than GemStone where the model is simpler: a rename that would also
change the shape, the superclass or the class variables is not modelled
(an error the simulator owns, never a GemStone answer), and a name already
bound in the symbol list is refused rather than rebound.  Removing the old
name of a class with subclasses is not modelled either: GemStone keeps the
old version as their superclass (L{gsmcpd.testing.simulator.model}'s
C{unbound}).

The same message redefines a class under its own name (an instance
variable renamed): a new version when the shape changes, the superclass's
version included, so a subclass is re-parented only by being defined again
under the object its superclass's new version is (GemTalk/Jasper
gs-src/refactoring/engine/GsInstVarStructureRefactoring.class.st's comment:
a new version does not re-parent the old one's subclasses).  A class defined
under an older version of its superclass is not modelled.
"""

import attr

from gsmcpd.testing.simulator import errors, system
from gsmcpd.testing.simulator.kernel import method, text
from gsmcpd.testing.simulator.objects import Array, SymbolDictionaryRef, UserClass
from gsmcpd.testing.simulator.reflection import parts


@method("Class", "subclass:instVarNames:classVars:classInstVars:poolDictionaries:"
        "inDictionary:newVersionOf:description:options:")
def _subclassNewVersionOf(ev, receiver, name, instVarNames, classVars, classInstVars,
                          poolDictionaries, dictionary, old, description, options):
    if not isinstance(dictionary, SymbolDictionaryRef):
        raise errors.argumentTypeError("subclass:")
    superclassName, _, version = parts(receiver)
    if version is not None and version != ev.code.classInfo(superclassName).version:
        # The model holds a superclass by name and version: a class defined
        # under an older version of it would need that version's shape.
        raise NotImplementedError(
            f"the simulated stone models no class defined under an old version of "
            f"{superclassName}")
    name = text(name)
    names = [[text(each) for each in array.items]
             for array in (instVarNames, classVars, classInstVars, options)]
    pools = [each.name if isinstance(each, SymbolDictionaryRef) else text(each)
             for each in poolDictionaries.items]
    if old is None or (isinstance(old, UserClass) and old.className == name):
        info, _ = ev.code.defineClass(name, superclassName, *names[:3], pools,
                                      dictionary=dictionary.name, options=names[3])
        ev.code.setComment(name, text(description))
        return UserClass(info.name, version=info.version)
    if not isinstance(old, UserClass) or old.meta:
        raise errors.refused("newVersionOf: names a class of the simulated stone's kernel, "
                             "which is not renamed")
    # nil: no comment of its own (GemTalk/Jasper's rename tests send description: nil).
    return renamed(ev.code, old.className, name, superclassName, names, pools,
                   dictionary.name, "" if description is None else text(description))


def renamed(code, oldName, newName, superclassName, names, pools, dictionary, comment):
    """
    The new version of C{oldName} named C{newName}, bound in C{dictionary}.
    """
    old = code._userClass(oldName)
    if system.resolve(code.session, newName) is not None:
        raise errors.refused(f"{newName} is already defined in the symbol list")
    shape = (superclassName, *map(tuple, names[:3]), tuple(pools))
    if shape != (old.superclassName, old.instVarNames, old.classVars, old.classInstVars,
                 old.poolDictionaries) or old.classVars or old.classInstVars:
        raise NotImplementedError(
            "the simulated stone models a class rename that keeps the class's shape and "
            "has no class or class-instance variables")
    info = attr.evolve(old, name=newName, dictionary=dictionary, comment=comment,
                       options=tuple(names[3]), version=old.version + 1)
    code._transaction.write(system.classKey(newName), code._history(oldName) + (info,))
    code._transaction.write(system.globalKey(SymbolDictionaryRef(dictionary), newName),
                            UserClass(newName, version=info.version))
    return UserClass(newName, version=info.version)


@method("Class", "sharedPools")
def _sharedPools(ev, receiver):
    name, meta, _ = parts(receiver)
    if meta:
        raise errors.messageNotUnderstood(f"{name} class", "sharedPools")
    info = ev.code.classInfo(name)
    return Array([SymbolDictionaryRef(each) for each in info.poolDictionaries])

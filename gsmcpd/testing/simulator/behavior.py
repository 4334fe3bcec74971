"""
What user classes answer as objects: instance creation, the reflection a
tool or a doit asks for, and GemStone 3.7's class-definition message, each
reaching the session's L{gsmcpd.testing.simulator.model.CodeModel} through
C{ev.code}.
"""

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import CLASSES, StClass, classMethod, classOf, text
from gsmcpd.testing.simulator.objects import (
    Array, Instance, String, Symbol, SymbolDictionaryRef, UserClass)


def _userClass(receiver, selector):
    if not isinstance(receiver, UserClass) or receiver.meta:
        raise errors.messageNotUnderstood(classOf(receiver).name, selector)
    return receiver.className


@classMethod("Object", "new", "basicNew")
def _new(ev, receiver):
    """
    A new instance with every instance variable nil.  Only user classes and
    Object itself make plain instances; other kernel classes have their own
    C{new} or none.
    """
    if receiver is CLASSES["Object"]:
        return Instance(receiver)
    names = ev.code.instVarNamesOf(_userClass(receiver, "new"))
    return Instance(receiver, dict.fromkeys(names))


@classMethod("Object", "superclass")
def _superclass(ev, receiver):
    if isinstance(receiver, StClass):
        return receiver.superclass
    return ev.code.superclassOf(receiver)


@classMethod("Object", "comment")
def _comment(ev, receiver):
    return String(ev.code.classNamed(_userClass(receiver, "comment")).comment)


@classMethod("Object", "comment:")
def _setComment(ev, receiver, comment):
    ev.code.setComment(_userClass(receiver, "comment:"), text(comment))
    return receiver


@classMethod("Object", "category")
def _category(ev, receiver):
    return Symbol(ev.code.classNamed(_userClass(receiver, "category")).category)


@classMethod("Object", "instVarNames")
def _instVarNames(ev, receiver):
    info = ev.code.classNamed(_userClass(receiver, "instVarNames"))
    return Array([Symbol(name) for name in info.instVarNames])


@classMethod("Object", "selectors")
def _selectors(ev, receiver):
    name = _userClass(receiver, "selectors")
    return Array([Symbol(selector) for selector in ev.code.methods(name)])


@classMethod("Object", "definition")
def _definition(ev, receiver):
    return String(ev.code.definition(_userClass(receiver, "definition")))


@classMethod(
    "Object",
    "subclass:instVarNames:classVars:classInstVars:poolDictionaries:inDictionary:options:")
def _subclass(ev, receiver, name, instVarNames, classVars, classInstVars,
              poolDictionaries, dictionary, options):
    """
    GemStone 3.7's class definition, as file-ins and tools send it.
    """
    if not isinstance(receiver, (StClass, UserClass)) or not isinstance(
            dictionary, SymbolDictionaryRef):
        raise errors.argumentTypeError("subclass:")
    names = [[text(each) for each in array.items]
             for array in (instVarNames, classVars, classInstVars, poolDictionaries, options)]
    info, _ = ev.code.defineClass(text(name), receiver.name, *names[:4],
                                  dictionary=dictionary.name, options=names[4])
    return UserClass(info.name)

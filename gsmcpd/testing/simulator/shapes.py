"""
Byte and indexable classes: GemStone 3.7's C{byteSubclass:...} and
C{indexableSubclass:...} definitions, and C{isBytes}/C{isIndexable}
(the rules are L{classkinds}').
"""

from gsmcpd.testing.simulator import classkinds, errors
from gsmcpd.testing.simulator.kernel import method, text
from gsmcpd.testing.simulator.objects import SymbolDictionaryRef, UserClass
from gsmcpd.testing.simulator.reflection import parts


def _define(ev, receiver, keyword, kind, name, instVarNames, classVars, classInstVars,
            poolDictionaries, dictionary, options):
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


class _NoNames:
    items = ()


@method("Class", "byteSubclass:classVars:poolDictionaries:inDictionary:options:")
def _byteSubclass(ev, receiver, name, classVars, poolDictionaries, dictionary, options):
    """A byte class: no C{instVarNames:} (GemStone has no such keyword), and
    in the form Rowan files byte classes out in, no C{classInstVars:}."""
    return _define(ev, receiver, "byteSubclass:", classkinds.BYTES, name, _NoNames,
                   classVars, _NoNames, poolDictionaries, dictionary, options)


@method("Class", "indexableSubclass:instVarNames:classVars:classInstVars:"
        "poolDictionaries:inDictionary:options:")
def _indexableSubclass(ev, receiver, name, instVarNames, classVars, classInstVars,
                       poolDictionaries, dictionary, options):
    return _define(ev, receiver, "indexableSubclass:", classkinds.INDEXABLE, name,
                   instVarNames, classVars, classInstVars, poolDictionaries, dictionary,
                   options)


def _kind(ev, receiver):
    name, meta, _ = parts(receiver)
    return classkinds.POINTER if meta else ev.code.classInfo(name).kind


@method("Behavior", "isBytes")
def _isBytes(ev, receiver):
    return _kind(ev, receiver) == classkinds.BYTES


@method("Behavior", "isIndexable")
def _isIndexable(ev, receiver):
    """True of byte classes too, as in GemStone (their slots are numbered)."""
    return _kind(ev, receiver) != classkinds.POINTER

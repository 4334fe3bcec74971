"""
Byte and indexable classes: GemStone 3.7's C{byteSubclass:...} and
C{indexableSubclass:...} definitions, and C{isBytes}/C{isIndexable}
(the rules are L{classkinds}').
"""

from gsmcpd.testing.simulator import classkinds
from gsmcpd.testing.simulator.kernel import method
from gsmcpd.testing.simulator.reflection import definedClass, parts


class _NoNames:
    items = ()


@method("Class", "byteSubclass:classVars:poolDictionaries:inDictionary:options:")
def _byteSubclass(ev, receiver, name, classVars, poolDictionaries, dictionary, options):
    """A byte class: no C{instVarNames:} (GemStone has no such keyword), and
    in the form Rowan files byte classes out in, no C{classInstVars:}."""
    return definedClass(ev, receiver, "byteSubclass:", classkinds.BYTES, name, _NoNames,
                   classVars, _NoNames, poolDictionaries, dictionary, options)


@method("Class", "indexableSubclass:instVarNames:classVars:classInstVars:"
        "poolDictionaries:inDictionary:options:")
def _indexableSubclass(ev, receiver, name, instVarNames, classVars, classInstVars,
                       poolDictionaries, dictionary, options):
    return definedClass(ev, receiver, "indexableSubclass:", classkinds.INDEXABLE, name,
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

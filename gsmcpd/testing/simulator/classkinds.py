"""
A class's kind, as GemStone 3.7 defines it: pointer (named instance
variables only), indexable (named and numbered pointer slots, made by
C{indexableSubclass:...}) or byte (bytes only, made by C{byteSubclass:...},
which takes no C{instVarNames:}).  C{subclass:} keeps its superclass's kind.

The rules (GemStone refuses the others): a byte class has no named
instance variables, so neither C{byteSubclass:} under a class that has
some nor C{subclass:} naming some under a byte class; and a byte class is
not defined under an indexable one, nor an indexable one under a byte one.
Every other kernel class is a pointer class in the model: GemStone's
hashed collections (NSC format) and byte-format numbers are not modelled
(docs/gemstone-fidelity.rst).
"""

from gsmcpd.testing.simulator import errors

POINTER, INDEXABLE, BYTES = "pointer", "indexable", "bytes"

KERNEL_BYTES = frozenset({"ByteArray", "String", "Symbol", "Unicode16", "Utf8"})
KERNEL_INDEXABLE = frozenset({"Array", "OrderedCollection", "SortedCollection",
                              "SymbolList"})


def kernelKind(name):
    """The kind of the kernel class C{name} (pointer unless listed)."""
    if name in KERNEL_BYTES:
        return BYTES
    return INDEXABLE if name in KERNEL_INDEXABLE else POINTER


def checkedKind(name, requested, superKind, allInstVarNames, instVarNames):
    """
    The kind of a class defined with C{requested} (None: C{subclass:})
    under a superclass of C{superKind}, or GemStone's refusal.
    """
    kind = superKind if requested is None else requested
    if requested == BYTES and superKind == INDEXABLE:
        raise errors.refused(f"{name}: a byte class cannot be defined under an "
                             "indexable class")
    if requested == INDEXABLE and superKind == BYTES:
        raise errors.refused(f"{name}: an indexable class cannot be defined under "
                             "a byte class")
    if kind == BYTES and (allInstVarNames or instVarNames):
        raise errors.refused(f"{name}: a byte class cannot have named instance "
                             "variables")
    return kind


def creationKeyword(kind, superKind):
    """C{byteSubclass:} or C{indexableSubclass:} for a class of that kind
    under one of another, else C{subclass:}."""
    if kind == superKind:
        return "subclass:"
    return {BYTES: "byteSubclass:", INDEXABLE: "indexableSubclass:"}.get(kind, "subclass:")

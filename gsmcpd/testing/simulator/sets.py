"""
The simulated stone's unordered collections: Set, IdentitySet and Bag.

Membership is C{=} for a Set and a Bag, C{==} for an IdentitySet: the same
object, or for the values GemStone holds as one object wherever they
appear (numbers, Characters, Symbols) an equal one.  A Set or IdentitySet
holds each member once, a Bag as often as it was added.  The order of
enumeration is the order of adding, which a real stone does not promise
(its order is its hash's): code must not rely on it.
"""

import attr

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.dictionaries import identityKeyOf
from gsmcpd.testing.simulator.kernel import CLASSES, method
from gsmcpd.testing.simulator.objects import (
    EQUALITY,
    PRINTERS,
    Instance,
    equal,
    keyOf,
    printElements,
    printString,
)


@attr.s(eq=False)
class Unordered(Instance):
    """
    A Set, IdentitySet or Bag (its C{cls} says which): its members, in the
    order they were added.
    """

    members = attr.ib(factory=list)
    counts = attr.ib(factory=dict)
    """How many members each hashable key (L{_key}) stands for, so that
    membership is not a scan."""

    @property
    def identity(self):
        return self.cls.includesBehavior(CLASSES["IdentityBag"])

    @property
    def once(self):
        return not self.cls.includesBehavior(CLASSES["Bag"])


PRINTERS[Unordered] = lambda value: printElements(value, value.members)


def _sameMembers(a, b):
    if not isinstance(b, Unordered) or a.cls is not b.cls or len(a.members) != len(b.members):
        return False
    rest = list(b.members)
    for each in a.members:
        found = next((i for i, other in enumerate(rest) if _matches(a, each, other)), None)
        if found is None:
            return False
        rest.pop(found)
    return True


EQUALITY[Unordered] = _sameMembers


def _matches(collection, one, other):
    if collection.identity:
        return CLASSES["Object"].methods["=="](None, one, other)
    return equal(one, other)


def _key(collection, value):
    """
    A hashable key standing for C{value} in C{collection}, or None for a
    value only C{=} can compare (a Set's Array, say).
    """
    if collection.identity:
        return identityKeyOf(value)
    key = keyOf(value)
    return None if key[0] == "identity" else key


def make(cls, items=()):
    """
    A new C{cls} (a kernel class) holding C{items}.
    """
    made = Unordered(cls)
    for each in items:
        _add(None, made, each)
    return made


def _unordered(*selectors, side="instance"):
    def register(function):
        for name in ("Set", "IdentitySet", "Bag"):
            method(name, *selectors, side=side)(function)
        return function
    return register


@_unordered("new", "new:", side="class")
def _new(ev, receiver, size=0):
    return Unordered(receiver)


@_unordered("with:", "with:with:", "with:with:with:", side="class")
def _with(ev, receiver, *items):
    return make(receiver, items)


@_unordered("withAll:", side="class")
def _withAll(ev, receiver, collection):
    from gsmcpd.testing.simulator.sequences import elements
    return make(receiver, elements(collection))


@_unordered("includes:")
def _includes(ev, receiver, value):
    key = _key(receiver, value)
    if key is not None:
        return key in receiver.counts
    return any(_matches(receiver, each, value) for each in receiver.members)


@_unordered("add:")
def _add(ev, receiver, value):
    if value is None:
        # GemStone's unordered collections refuse nil (the stricter
        # reading of Pharo's silent nil-add: nothing could find it again).
        raise errors.argumentTypeError("add:")
    if not (receiver.once and _includes(ev, receiver, value)):
        receiver.members.append(value)
        key = _key(receiver, value)
        if key is not None:
            receiver.counts[key] = receiver.counts.get(key, 0) + 1
    return value


@_unordered("addAll:")
def _addAll(ev, receiver, collection):
    from gsmcpd.testing.simulator.sequences import elements
    for each in elements(collection):
        _add(ev, receiver, each)
    return collection


def _removed(receiver, value):
    """
    Remove one member matching C{value}: True, or False when none does.
    """
    for i, each in enumerate(receiver.members):
        if _matches(receiver, each, value):
            receiver.members.pop(i)
            key = _key(receiver, each)
            if key is not None:
                receiver.counts[key] -= 1
                if not receiver.counts[key]:
                    del receiver.counts[key]
            return True
    return False


@_unordered("remove:ifAbsent:")
def _removeIfAbsent(ev, receiver, value, block):
    return value if _removed(receiver, value) else ev.value(block)


@_unordered("remove:")
def _remove(ev, receiver, value):
    if not _removed(receiver, value):
        raise errors.notFound(f"{printString(value)} not found")
    return value


@_unordered("occurrencesOf:")
def _occurrencesOf(ev, receiver, value):
    key = _key(receiver, value)
    if key is not None:
        return receiver.counts.get(key, 0)
    return sum(1 for each in receiver.members if _matches(receiver, each, value))


@_unordered("size")
def _size(ev, receiver):
    return len(receiver.members)


@_unordered("do:")
def _do(ev, receiver, block):
    for each in list(receiver.members):
        ev.value(block, each)
    return receiver

"""
Collections for the simulated stone's kernel: the protocol Collection and
SequenceableCollection share (Strings, Intervals, sets and dictionaries
answer it too), Array, OrderedCollection and SortedCollection.

Sequenceable collections share one protocol written against L{elements}
and L{like}, so a String answers C{select:} with a String and an Array with
an Array, as GemStone's C{species} arranges.
"""

import collections.abc
import functools

from gsmcpd.testing.simulator import errors, sets, system
from gsmcpd.testing.simulator.intervals import Elements, Interval, sizeOf
from gsmcpd.testing.simulator.kernel import (
    CLASSES,
    classMethod,
    classOf,
    index,
    integer,
    method,
    text,
    truth,
)
from gsmcpd.testing.simulator.objects import (
    Array,
    ByteArray,
    Character,
    Dictionary,
    OrderedCollection,
    SortedCollection,
    String,
    Symbol,
    SymbolList,
    equal,
    printString,
    string,
)
from gsmcpd.testing.simulator.sets import Unordered


def elements(collection):
    """
    The elements of a sequenceable collection, as a Python list (a copy for
    Strings and Symbols).
    """
    if isinstance(collection, (String, Symbol)):
        return [Character(c) for c in collection.text]
    if isinstance(collection, ByteArray):
        return list(collection.data)
    if isinstance(collection, SymbolList):
        return system.symbolList(collection.session)
    if isinstance(collection, Dictionary):
        return [value for _, value in collection.entries.values()]
    if isinstance(collection, Unordered):
        return list(collection.members)
    items = getattr(collection, "items", None)
    if not isinstance(items, list):
        # Not a collection: refused as GemStone's enumeration refuses it.
        raise errors.messageNotUnderstood(classOf(collection).name, "do:")
    return items


class Characters(collections.abc.Sequence):
    """
    A String's or Symbol's elements, each Character made when it is asked
    for: C{size} and C{at:} in a loop over a long String stay linear.
    """

    def __init__(self, text):
        self._text = text

    def __len__(self):
        return len(self._text)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [Character(c) for c in self._text[i]]
        return Character(self._text[i])

    def __iter__(self):
        return map(Character, self._text)


def sequence(collection):
    """
    The elements to count, index and search: an Interval's or a String's
    made as they are asked for (L{Elements}, L{Characters}), any other
    collection's L{elements}.
    """
    if isinstance(collection, Interval):
        return collection.elements
    if isinstance(collection, (String, Symbol)):
        return Characters(collection.text)
    return elements(collection)


def enumerated(collection):
    """
    What an enumeration visits: a copy of the elements (the block may change
    the collection), or an Interval's computed one at a time, so a loop over
    a huge Interval is a long loop that a break ends, never an allocation.
    """
    if isinstance(collection, Interval):
        return collection.elements
    return list(elements(collection))


def like(collection, items):
    """
    A new collection of C{collection}'s species holding C{items}; a String
    holds only Characters, so anything else makes an Array.
    """
    if isinstance(collection, (String, Symbol)):
        if all(isinstance(each, Character) for each in items):
            return string("".join(each.char for each in items))
        return Array(list(items))
    if isinstance(collection, (SymbolList, ByteArray, Interval)):
        return Array(list(items))
    if isinstance(collection, Unordered):
        return sets.make(collection.cls, items)
    if isinstance(collection, Dictionary):
        return sets.make(CLASSES["Bag"], items)
    if isinstance(collection, SortedCollection):
        return OrderedCollection(list(items))
    return type(collection)(list(items))


def _sequence(*selectors):
    return method("SequenceableCollection", *selectors)


def _collection(*selectors):
    """
    Register a method of Collection that SequenceableCollection has too
    (GemStone reimplements it there; the model's one reads L{elements}).
    """
    def register(function):
        method("Collection", *selectors)(function)
        return _sequence(*selectors)(function)
    return register


@_collection("size")
def _size(ev, receiver):
    return sizeOf(sequence(receiver))


@_collection("isEmpty")
def _isEmpty(ev, receiver):
    return not sequence(receiver)


@_collection("notEmpty")
def _notEmpty(ev, receiver):
    return bool(sequence(receiver))


@_sequence("at:")
def _at(ev, receiver, position):
    items = sequence(receiver)
    return items[index(position, sizeOf(items))]


@_sequence("first")
def _first(ev, receiver):
    return _at(ev, receiver, 1)


@_sequence("last")
def _last(ev, receiver):
    return _at(ev, receiver, sizeOf(sequence(receiver)))


@_sequence("at:put:")
def _atPut(ev, receiver, position, value):
    if isinstance(receiver, Symbol):
        raise errors.messageNotUnderstood("Symbol", "at:put:")
    if isinstance(receiver, Interval):
        raise errors.shouldNotImplement("Interval", "at:put:")
    if getattr(receiver, "invariant", False):
        raise errors.invariant(classOf(receiver).name)
    if isinstance(receiver, String):
        if not isinstance(value, Character):
            raise errors.messageNotUnderstood(classOf(value).name, "asCharacter")
        i = index(position, len(receiver.text))
        receiver.text = receiver.text[:i] + value.char + receiver.text[i + 1:]
    else:
        receiver.items[index(position, len(receiver.items))] = value
    return value


@_collection("includes:")
def _includes(ev, receiver, value):
    items = sequence(receiver)
    if isinstance(items, Elements):
        return items.includes(value)
    return any(equal(each, value) for each in items)


@_sequence("indexOf:")
def _indexOf(ev, receiver, value):
    return next((i + 1 for i, each in enumerate(elements(receiver)) if equal(each, value)), 0)


@_collection("occurrencesOf:")
def _occurrencesOf(ev, receiver, value):
    return sum(1 for each in elements(receiver) if equal(each, value))


@_sequence(",")
def _concatenate(ev, receiver, other):
    if isinstance(receiver, (String, Symbol)):
        return String(receiver.text + text(other))
    return like(receiver, elements(receiver) + elements(other))


@_sequence("reversed", "reverse")
def _reversed(ev, receiver):
    return like(receiver, elements(receiver)[::-1])


@_sequence("copyFrom:to:")
def _copyFromTo(ev, receiver, start, stop):
    items = sequence(receiver)
    if integer(stop) < integer(start):
        return like(receiver, [])
    index(start, sizeOf(items))
    index(stop, sizeOf(items))
    return like(receiver, items[start - 1:stop])


@_sequence("copyWith:")
def _copyWith(ev, receiver, value):
    return like(receiver, elements(receiver) + [value])


@_collection("do:")
def _do(ev, receiver, block):
    for each in enumerated(receiver):
        ev.value(block, each)
    return receiver


@_sequence("reverseDo:")
def _reverseDo(ev, receiver, block):
    for each in reversed(enumerated(receiver)):
        ev.value(block, each)
    return receiver


@_sequence("doWithIndex:")
def _doWithIndex(ev, receiver, block):
    for i, each in enumerate(enumerated(receiver)):
        ev.value(block, each, i + 1)
    return receiver


@_sequence("keysAndValuesDo:")
def _keysAndValuesDo(ev, receiver, block):
    for i, each in enumerate(enumerated(receiver)):
        ev.value(block, i + 1, each)
    return receiver


@_collection("collect:")
def _collect(ev, receiver, block):
    return like(receiver, [ev.value(block, each) for each in enumerated(receiver)])


@_collection("select:")
def _select(ev, receiver, block):
    return like(receiver, [each for each in enumerated(receiver)
                           if truth(ev.value(block, each), "ifTrue:")])


@_collection("reject:")
def _reject(ev, receiver, block):
    return like(receiver, [each for each in enumerated(receiver)
                           if not truth(ev.value(block, each), "ifFalse:")])


@_collection("detect:ifNone:")
def _detectIfNone(ev, receiver, block, noneBlock):
    for each in enumerated(receiver):
        if truth(ev.value(block, each), "ifTrue:"):
            return each
    return ev.value(noneBlock)


@_collection("detect:")
def _detect(ev, receiver, block):
    for each in enumerated(receiver):
        if truth(ev.value(block, each), "ifTrue:"):
            return each
    raise errors.notFound("no element satisfies the block")


@_collection("inject:into:")
def _injectInto(ev, receiver, initial, block):
    accumulator = initial
    for each in enumerated(receiver):
        accumulator = ev.value(block, accumulator, each)
    return accumulator


@_collection("anySatisfy:")
def _anySatisfy(ev, receiver, block):
    return any(truth(ev.value(block, each), "ifTrue:") for each in enumerated(receiver))


@_collection("allSatisfy:")
def _allSatisfy(ev, receiver, block):
    return all(truth(ev.value(block, each), "ifFalse:") for each in enumerated(receiver))


@_collection("asArray")
def _asArray(ev, receiver):
    return Array(list(elements(receiver)))


@_collection("asOrderedCollection")
def _asOrderedCollection(ev, receiver):
    return OrderedCollection(list(elements(receiver)))


# -------------------------------------------------------- Array, OrderedCollection

def _new(cls):
    def new(ev, receiver, size=0):
        return cls([None] * integer(size) if cls is Array else [])
    return new


def _with(cls):
    def withAll(ev, receiver, *items):
        return cls(list(items))
    return withAll


for _cls, _name in [(Array, "Array"), (OrderedCollection, "OrderedCollection")]:
    classMethod(_name, "new", "new:")(_new(_cls))
    classMethod(_name, "with:", "with:with:", "with:with:with:",
                "with:with:with:with:", "with:with:with:with:with:")(_with(_cls))


def _withAll(cls):
    def withAll(ev, receiver, collection):
        return cls(list(elements(collection)))
    return withAll


classMethod("Array", "withAll:")(_withAll(Array))
classMethod("OrderedCollection", "withAll:")(_withAll(OrderedCollection))


@method("OrderedCollection", "add:", "addLast:")
def _add(ev, receiver, value):
    receiver.items.append(value)
    return value


@method("OrderedCollection", "addFirst:")
def _addFirst(ev, receiver, value):
    receiver.items.insert(0, value)
    return value


@method("OrderedCollection", "addAll:")
def _addAll(ev, receiver, collection):
    receiver.items.extend(elements(collection))
    return collection


@method("OrderedCollection", "removeFirst")
def _removeFirst(ev, receiver):
    index(1, len(receiver.items))
    return receiver.items.pop(0)


@method("OrderedCollection", "removeLast")
def _removeLast(ev, receiver):
    index(1, len(receiver.items))
    return receiver.items.pop()


@method("OrderedCollection", "remove:ifAbsent:")
def _removeIfAbsent(ev, receiver, value, block):
    for i, each in enumerate(receiver.items):
        if equal(each, value):
            return receiver.items.pop(i)
    return ev.value(block)


@method("OrderedCollection", "remove:")
def _remove(ev, receiver, value):
    for i, each in enumerate(receiver.items):
        if equal(each, value):
            return receiver.items.pop(i)
    raise errors.notFound(f"{printString(value)} not found")


# ------------------------------------------------------- SortedCollection

def _sorted(ev, items, block):
    """
    C{items} in the order C{block} (C{<=} when None) sorts them; the order
    of elements the block does not order differs from one sort to the next
    (L{gsmcpd.testing.simulator.stone.Session.sorts}).
    """
    def before(a, b):
        if block is None:
            return truth(ev.send(a, "<=", [b]), "ifTrue:")
        return truth(ev.value(block, a, b), "ifTrue:")

    def order(a, b):
        # Python's sort asks only whether a is strictly before b.
        if not before(a, b):
            return 1
        return 0 if before(b, a) else -1
    if next(ev.session.sorts) % 2:
        items = items[::-1]
    return sorted(items, key=functools.cmp_to_key(order))


@method("Collection", "asSortedCollection")
def _asSortedCollection(ev, receiver):
    return SortedCollection(_sorted(ev, elements(receiver), None))


@method("Collection", "asSortedCollection:")
def _asSortedCollectionBlock(ev, receiver, block):
    return SortedCollection(_sorted(ev, elements(receiver), block), block)


@method("Array", "sort:")
def _sortBlock(ev, receiver, block):
    """
    Sorts the receiver in place, as C{asSortedCollection:} orders, and
    answers it; a literal is invariant.
    """
    if receiver.invariant:
        raise errors.invariant("Array")
    receiver.items[:] = _sorted(ev, receiver.items, block)
    return receiver


@method("SortedCollection", "add:")
def _sortedAdd(ev, receiver, value):
    receiver.items[:] = _sorted(ev, receiver.items + [value], receiver.sortBlock)
    return value

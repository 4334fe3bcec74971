"""
More of Collection's and SequenceableCollection's protocol for the
simulated stone's kernel: conversions between kinds of collection, pairwise
enumeration, searching and the largest element; a dictionary's enumeration
of its keys and associations, and its C{select:} and C{collect:}.
"""

from gsmcpd.testing.simulator import errors, sets
from gsmcpd.testing.simulator.dictionaries import emptyLike, entries
from gsmcpd.testing.simulator.kernel import CLASSES, integer, method, truth
from gsmcpd.testing.simulator.objects import equal
from gsmcpd.testing.simulator.sequences import elements, like


def _convert(selector, className):
    @method("Collection", selector)
    def convert(ev, receiver):
        return sets.make(CLASSES[className], elements(receiver))
    return convert


_convert("asSet", "Set")
_convert("asIdentitySet", "IdentitySet")


@method("Collection", "max")
def _max(ev, receiver):
    items = elements(receiver)
    if not items:
        raise errors.notFound("#max of an empty collection")
    best = items[0]
    for each in items[1:]:
        if truth(ev.send(each, ">", [best]), "ifTrue:"):
            best = each
    return best


@method("Collection", "do:separatedBy:")
def _doSeparatedBy(ev, receiver, block, separatorBlock):
    for i, each in enumerate(list(elements(receiver))):
        if i:
            ev.value(separatorBlock)
        ev.value(block, each)
    return receiver


def _paired(receiver, other, selector):
    mine, theirs = elements(receiver), elements(other)
    if len(mine) != len(theirs):
        raise errors.argumentTypeError(selector)
    return list(zip(mine, theirs, strict=True))


@method("SequenceableCollection", "with:do:")
def _withDo(ev, receiver, other, block):
    for a, b in _paired(receiver, other, "with:do:"):
        ev.value(block, a, b)
    return receiver


@method("SequenceableCollection", "withIndexDo:")
def _withIndexDo(ev, receiver, block):
    for i, each in enumerate(list(elements(receiver))):
        ev.value(block, each, i + 1)
    return receiver


@method("SequenceableCollection", "copyWithout:")
def _copyWithout(ev, receiver, value):
    return like(receiver, [each for each in elements(receiver) if not equal(each, value)])


@method("SequenceableCollection", "allButFirst")
def _allButFirst(ev, receiver):
    return like(receiver, elements(receiver)[1:])


@method("SequenceableCollection", "allButLast")
def _allButLast(ev, receiver):
    return like(receiver, elements(receiver)[:-1])


@method("SequenceableCollection", "allButFirst:")
def _allButFirstCount(ev, receiver, count):
    """
    A copy by C{copyFrom:to:}, as GemTalk's FileSystemGs defines it (and
    C{allButLast:}), so a count past the size answers as that does.
    """
    return ev.send(receiver, "copyFrom:to:", [integer(count) + 1, len(elements(receiver))])


@method("SequenceableCollection", "allButLast:")
def _allButLastCount(ev, receiver, count):
    return ev.send(receiver, "copyFrom:to:", [1, len(elements(receiver)) - integer(count)])


@method("SequenceableCollection", "indexOf:ifAbsent:")
def _indexOfIfAbsent(ev, receiver, value, block):
    found = next((i + 1 for i, each in enumerate(elements(receiver)) if equal(each, value)), None)
    return ev.value(block) if found is None else found


@method("SequenceableCollection", "copyReplaceAll:with:")
def _copyReplaceAll(ev, receiver, old, new):
    items, pattern, replacement = elements(receiver), elements(old), elements(new)
    if not pattern:
        return like(receiver, items)
    result, i = [], 0
    while i < len(items):
        if len(items) - i >= len(pattern) and all(
                equal(a, b) for a, b in zip(items[i:i + len(pattern)], pattern,
                                            strict=True)):
            result.extend(replacement)
            i += len(pattern)
        else:
            result.append(items[i])
            i += 1
    return like(receiver, result)


@method("Collection", "isEmptyOrNil")
def _isEmptyOrNil(ev, receiver):
    return not elements(receiver)


@method("UndefinedObject", "isEmptyOrNil")
def _nilIsEmptyOrNil(ev, receiver):
    return True


# ---------------------------------------------------------- AbstractDictionary

def _dictionary(*selectors):
    return method("AbstractDictionary", *selectors)


@_dictionary("keysDo:")
def _keysDo(ev, receiver, block):
    for key, _ in entries(ev, receiver).items():
        ev.value(block, key)
    return receiver


@_dictionary("associationsDo:")
def _associationsDo(ev, receiver, block):
    for key, value in entries(ev, receiver).items():
        ev.value(block, ev.send(key, "->", [value]))
    return receiver


@_dictionary("add:")
def _add(ev, receiver, association):
    entries(ev, receiver).put(ev.send(association, "key", []), ev.send(association, "value", []))
    return association


@_dictionary("keyAtValue:")
def _keyAtValue(ev, receiver, value):
    return next((key for key, each in entries(ev, receiver).items()
                 if ev.send(each, "==", [value])), None)


@_dictionary("includes:")
def _includes(ev, receiver, value):
    return any(ev.send(each, "=", [value]) is True for _, each in entries(ev, receiver).items())


def _filtered(keep):
    def filtered(ev, receiver, block):
        made = emptyLike(receiver)
        for key, value in entries(ev, receiver).items():
            if truth(ev.value(block, value), "ifTrue:") is keep:
                entries(ev, made).put(key, value)
        return made
    return filtered


_dictionary("select:")(_filtered(True))
_dictionary("reject:")(_filtered(False))


@_dictionary("collect:")
def _collect(ev, receiver, block):
    """
    A Bag of what the block answers for each value (GemStone's
    AbstractDictionary answers a Bag: keys cannot be kept).
    """
    return sets.make(CLASSES["Bag"], [ev.value(block, value)
                                       for _, value in entries(ev, receiver).items()])

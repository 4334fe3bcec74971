"""
Dictionaries in the simulated stone: AbstractDictionary's protocol for a
Dictionary (a Python object) and a SymbolDictionary (whose entries live in
the session's transaction), the symbol list, UserProfile and AllUsers.
"""

from fractions import Fraction

import attr

from gsmcpd.testing.simulator import errors, system
from gsmcpd.testing.simulator.kernel import (
    CLASSES,
    classMethod,
    classOf,
    method,
    registerType,
    text,
)
from gsmcpd.testing.simulator.objects import (
    Array,
    Character,
    Dictionary,
    Instance,
    String,
    Symbol,
    SymbolDictionaryRef,
    SymbolList,
    UserClass,
    UserProfile,
    keyOf,
    printString,
)
from gsmcpd.testing.simulator.repository import ABSENT


@attr.s(eq=False)
class KeyValueDictionary(Dictionary):
    """
    A KeyValueDictionary made by C{new}: a Dictionary of another class.
    """


@attr.s(eq=False)
class IdentityDictionary(KeyValueDictionary):
    """
    An IdentityDictionary: keys are found by identity (L{identityKeyOf}).
    """


@attr.s(eq=False)
class FreeSymbolDictionary(Dictionary):
    """
    A SymbolDictionary made by C{SymbolDictionary new}: not in the
    repository until something binds it, so its entries are its own.
    """


def identityKeyOf(value):
    """
    A hashable stand-in for C{value} as an identity key: the values GemStone
    holds as one object (numbers, Characters, Symbols) by value, anything
    else by identity.
    """
    if isinstance(value, (bool, int, float, Fraction, Character, Symbol, UserClass)) \
            or value is None:
        return ("value", type(value).__name__, value)
    return ("identity", id(value))


for _type, _name in [(KeyValueDictionary, "KeyValueDictionary"),
                     (IdentityDictionary, "IdentityDictionary"),
                     (FreeSymbolDictionary, "SymbolDictionary")]:
    registerType(_type, _name)


ALL_USERS = Instance(CLASSES["UserSet"])
system.KERNEL_GLOBALS["AllUsers"] = ALL_USERS


class _Plain:
    """
    A Dictionary's entries.
    """

    def __init__(self, ev, dictionary):
        self.entries = dictionary.entries
        self.keyOf = identityKeyOf if isinstance(dictionary, IdentityDictionary) else keyOf

    def get(self, key):
        entry = self.entries.get(self.keyOf(key))
        return ABSENT if entry is None else entry[1]

    def put(self, key, value):
        self.entries[self.keyOf(key)] = (key, value)

    def remove(self, key):
        self.entries.pop(self.keyOf(key), None)

    def items(self):
        return list(self.entries.values())


class _Symbols:
    """
    A SymbolDictionary's entries, as the session sees them.
    """

    def __init__(self, ev, dictionary):
        self.ev = ev
        self.dictionary = dictionary

    def get(self, key):
        return system.readGlobal(self.ev.session, self.dictionary, text(key))

    def put(self, key, value):
        self.ev.session.transaction.write(system.globalKey(self.dictionary, text(key)), value)

    def remove(self, key):
        """
        Remove the binding; a class it bound under its own name goes with
        it when no other dictionary binds that name (nothing could reach
        it by name again).
        """
        name = text(key)
        binding = system.globalKey(self.dictionary, name)
        value = self.ev.session.transaction.read(binding)
        if value is ABSENT:
            raise errors.refused(f"{name} is the simulated stone's own binding in "
                                 f"{self.dictionary.name} and cannot be removed")
        self.ev.session.transaction.write(binding, ABSENT)
        self.ev.code.unbound(name, value)

    def items(self):
        session = self.ev.session
        return [(Symbol(name), system.readGlobal(session, self.dictionary, name))
                for name in system.globalNames(session, self.dictionary)]


def entries(ev, dictionary):
    if isinstance(dictionary, Dictionary):
        return _Plain(ev, dictionary)
    if isinstance(dictionary, SymbolDictionaryRef):
        return _Symbols(ev, dictionary)
    # A kind of dictionary the model cannot hold (an instance of a user's
    # subclass): a limit of the simulator, which must fail as one.
    raise TypeError(f"simulated stone: the model holds no entries for a "
                    f"{classOf(dictionary).name}")


def _abstract(*selectors):
    return method("AbstractDictionary", *selectors)


@_abstract("at:put:")
def _atPut(ev, receiver, key, value):
    entries(ev, receiver).put(key, value)
    return value


@_abstract("at:ifAbsent:")
def _atIfAbsent(ev, receiver, key, block):
    value = entries(ev, receiver).get(key)
    return ev.value(block) if value is ABSENT else value


@_abstract("at:")
def _at(ev, receiver, key):
    value = entries(ev, receiver).get(key)
    if value is ABSENT:
        raise errors.keyNotFound(printString(key))
    return value


@_abstract("at:ifAbsentPut:")
def _atIfAbsentPut(ev, receiver, key, block):
    value = entries(ev, receiver).get(key)
    return _atPut(ev, receiver, key, ev.value(block)) if value is ABSENT else value


@_abstract("removeKey:ifAbsent:")
def _removeKeyIfAbsent(ev, receiver, key, block):
    found = entries(ev, receiver)
    value = found.get(key)
    if value is ABSENT:
        return ev.value(block)
    found.remove(key)
    return value


@_abstract("removeKey:")
def _removeKey(ev, receiver, key):
    found = entries(ev, receiver)
    value = found.get(key)
    if value is ABSENT:
        raise errors.keyNotFound(printString(key))
    found.remove(key)
    return value


@_abstract("includesKey:")
def _includesKey(ev, receiver, key):
    return entries(ev, receiver).get(key) is not ABSENT


@_abstract("size")
def _size(ev, receiver):
    return len(entries(ev, receiver).items())


@_abstract("isEmpty")
def _isEmpty(ev, receiver):
    return not entries(ev, receiver).items()


@_abstract("keys")
def _keys(ev, receiver):
    return Array([key for key, _ in entries(ev, receiver).items()])


@_abstract("values")
def _values(ev, receiver):
    return Array([value for _, value in entries(ev, receiver).items()])


@_abstract("keysAndValuesDo:")
def _keysAndValuesDo(ev, receiver, block):
    for key, value in entries(ev, receiver).items():
        ev.value(block, key, value)
    return receiver


@_abstract("do:", "valuesDo:")
def _do(ev, receiver, block):
    for _, value in entries(ev, receiver).items():
        ev.value(block, value)
    return receiver


@_abstract("keyAtValue:ifAbsent:")
def _keyAtValueIfAbsent(ev, receiver, value, block):
    for key, each in entries(ev, receiver).items():
        if ev.send(each, "==", [value]):
            return key
    return ev.value(block)


def emptyLike(dictionary):
    """
    A new empty dictionary of C{dictionary}'s kind (a free-standing
    SymbolDictionary for one of the repository's).
    """
    return FreeSymbolDictionary() if isinstance(dictionary, SymbolDictionaryRef) \
        else type(dictionary)()


def _new(kind):
    def new(ev, receiver, size=0):
        return kind()
    return new


for _kind, _name in [(Dictionary, "Dictionary"), (KeyValueDictionary, "KeyValueDictionary"),
                     (IdentityDictionary, "IdentityDictionary"),
                     (FreeSymbolDictionary, "SymbolDictionary")]:
    classMethod(_name, "new", "new:")(_new(_kind))


@method("SymbolDictionary", "name")
def _name(ev, receiver):
    """
    The key under which it holds itself (GemTalk/mcp_server
    docs/GemStone_Notes.md: C{^self keyAtValue: self ifAbsent: [nil]}).
    """
    if isinstance(receiver, FreeSymbolDictionary):
        return next((key for key, value in entries(ev, receiver).items() if value is receiver),
                    None)
    return Symbol(receiver.name)


# ------------------------------------------------------------- SymbolList

def dictionaryAndSymbolOf(ev, value):
    """
    The first binding to C{value} in symbol-list order (each dictionary's
    keys sorted), under any name: C{dictionary} and the key, or nil.  It
    matches by value, as GemStone's does, so an alias in an earlier
    dictionary wins over the class's own name.
    """
    for dictionary in system.symbolList(ev.session):
        for key, each in _Symbols(ev, dictionary).items():
            if ev.send(each, "==", [value]):
                return Array([dictionary, key])
    return None


@method("SymbolList", "objectNamed:")
@method("UserProfile", "objectNamed:")
def _objectNamed(ev, receiver, name):
    value = system.globalValue(ev.session, text(name))
    return None if value is ABSENT else value


@method("SymbolList", "dictionaryAndSymbolOf:")
@method("UserProfile", "dictionaryAndSymbolOf:")
def _dictionaryAndSymbolOf(ev, receiver, value):
    return dictionaryAndSymbolOf(ev, value)


# ------------------------------------------------------------ UserProfile

@method("UserProfile", "symbolList")
def _symbolList(ev, receiver):
    return SymbolList(ev.session)


@method("UserProfile", "userId")
def _userId(ev, receiver):
    return String(receiver.userId)


@method("UserProfile", "privileges")
def _privileges(ev, receiver):
    return Array([Symbol(name) for name in
                  sorted(ev.session.stone.privileges.get(receiver.userId, ()))])


@method("UserProfile", "createDictionary:")
def _createDictionary(ev, receiver, name):
    """
    A new SymbolDictionary holding itself under C{name}; the symbol list
    gets it only with C{insertDictionary:at:}.
    """
    if not text(name).isidentifier():
        raise errors.refused(f"{text(name)!r} is not a valid dictionary name")
    return SymbolDictionaryRef(text(name))


@method("UserProfile", "insertDictionary:at:")
def _insertDictionaryAt(ev, receiver, dictionary, index):
    names = [each.name for each in system.symbolList(ev.session)]
    if not isinstance(dictionary, SymbolDictionaryRef):
        raise errors.argumentTypeError("insertDictionary:at:")
    if not isinstance(index, int) or not 1 <= index <= len(names) + 1:
        raise errors.offsetError(len(names) + 1, index)
    names.insert(index - 1, dictionary.name)
    ev.session.transaction.write(system.SYMBOL_LIST_KEY, tuple(names))
    return dictionary


@method("UserProfile", "removeDictionaryAt:")
def _removeDictionaryAt(ev, receiver, index):
    dictionaries = system.symbolList(ev.session)
    if not isinstance(index, int) or not 1 <= index <= len(dictionaries):
        raise errors.offsetError(len(dictionaries), index)
    removed = dictionaries[index - 1]
    ev.code.removeDictionary(removed.name)
    return removed


@method("UserSet", "userWithId:ifAbsent:")
def _userWithIdIfAbsent(ev, receiver, userId, block):
    if text(userId) in ev.session.stone.users:
        return UserProfile(text(userId))
    return ev.value(block)


@method("UserSet", "userWithId:")
def _userWithId(ev, receiver, userId):
    if text(userId) not in ev.session.stone.users:
        raise errors.notFound(f"no user with id {text(userId)}")
    return UserProfile(text(userId))

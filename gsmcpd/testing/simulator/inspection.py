"""
The simulated stone's object identity, as an inspector reads it: C{asOop}
and C{instVarAt:} (what it was shown is held in C{SessionTemps current},
L{gsmcpd.testing.simulator.sessiontemps}).

An oop here is a number a session's gem minted for an object it was asked
about, held by the session with the object so it never names another one;
values that are one object wherever they appear (nil, booleans, numbers,
Characters, Symbols, classes) get one oop per session.  GemStone's oops are
the object table's, the same in every session for a committed object; the
model's are per session, the stricter reading (an id from another session
names nothing here), which C{docs/gemstone-fidelity.rst} lists.
"""

import weakref
from fractions import Fraction

from gsmcpd.testing.simulator.kernel import StClass, classOf, index, method
from gsmcpd.testing.simulator.model import CLASS_INSTVARS
from gsmcpd.testing.simulator.objects import (
    Character,
    Instance,
    Symbol,
    SymbolDictionaryRef,
    UserClass,
)
from gsmcpd.testing.simulator.repository import ABSENT

FIRST_OOP = 158_001
"""Where a session's oops start; like GemStone's, each is 1 modulo 8
(C{jgfoster/GS_Extract SqlExport.gs}'s C{haveSeen:} relies on it)."""

_ONE_OBJECT = (bool, int, float, Fraction, Character, Symbol, UserClass, StClass,
               SymbolDictionaryRef)

_oopTables = weakref.WeakKeyDictionary()


class _OopTable:
    """
    One session's oops: by identity (or by value for the values that are one
    object), each holding its object.
    """

    def __init__(self):
        self._byKey = {}

    def oopOf(self, value):
        key = ("value", type(value), value) if value is None or isinstance(value, _ONE_OBJECT) \
            else ("identity", id(value))
        found = self._byKey.get(key)
        if found is None:
            found = self._byKey[key] = (FIRST_OOP + 8 * len(self._byKey), value)
        return found[0]


@method("Object", "asOop")
def _asOop(ev, receiver):
    table = _oopTables.get(ev.session)
    if table is None:
        table = _oopTables[ev.session] = _OopTable()
    return table.oopOf(receiver)


@method("Object", "instVarAt:")
def _instVarAt(ev, receiver, position):
    names = ev.send(classOf(receiver), "allInstVarNames", []).items
    name = names[index(position, len(names))].text
    if name in CLASS_INSTVARS and isinstance(receiver, (UserClass, StClass)):
        return Symbol(receiver.name)
    if isinstance(receiver, UserClass) and not receiver.meta:
        # A class's instance variables, as the model has them, are its
        # class-instance variables, whose values live in the view.
        value = ev.session.transaction.read(("classInstVar", receiver.className, name))
        return None if value is ABSENT else value
    if not isinstance(receiver, Instance):
        # A kernel object whose variables the model does not hold: a gap
        # in the model, which must fail loudly, not pass as GemStone's nil.
        raise NotImplementedError(
            f"the model holds no {name} of a {classOf(receiver).name}")
    return receiver.slots.get(name)

"""
The simulated stone's IdentitySet: C{new}, C{add:} and C{includes:}, as
Grail's C{BaseException.gs} sends them to keep a walk from revisiting.

Membership is C{==}: the same object, or for the values GemStone holds as
one object wherever they appear (numbers, Characters, Symbols) an equal
one.  The model gives it no enumeration, which no public source here sends
to one (the stricter reading): a template keeps its own list of what it
added.
"""

import attr

from gsmcpd.testing.simulator.kernel import CLASSES, classMethod, method
from gsmcpd.testing.simulator.objects import Instance


@attr.s(eq=False)
class IdentitySet(Instance):
    members = attr.ib(factory=list)


def _identical(ev, one, other):
    return CLASSES["Object"].methods["=="](ev, one, other)


@classMethod("IdentitySet", "new")
def _new(ev, receiver):
    return IdentitySet(receiver)


@method("IdentitySet", "includes:")
def _includes(ev, receiver, value):
    return any(_identical(ev, each, value) for each in receiver.members)


@method("IdentitySet", "add:")
def _add(ev, receiver, value):
    if not _includes(ev, receiver, value):
        receiver.members.append(value)
    return value

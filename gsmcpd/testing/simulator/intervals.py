"""
The simulated stone's Interval: what C{1 to: 10} answers, a
SequenceableCollection whose elements are computed (C{to:by:} is not
modelled: no public GemStone source read here sends it without C{do:}).

It prints and compares as its elements would, answers an Array for
C{collect:}, C{select:} and the like (its species), and refuses
C{at:put:}.
"""

from fractions import Fraction
import math

import attr

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import CLASSES, method
from gsmcpd.testing.simulator.objects import (
    EQUALITY, PRINTERS, Instance, equal, isNumber, normalize, printElements)


@attr.s(eq=False)
class Interval(Instance):
    """
    From C{start} to C{stop} by 1.
    """

    start = attr.ib(default=1)
    stop = attr.ib(default=0)

    @property
    def items(self):
        count = math.floor(Fraction(self.stop) - Fraction(self.start)) + 1
        return [normalize(self.start + i) for i in range(max(count, 0))]


PRINTERS[Interval] = lambda value: printElements(value, value.items)
EQUALITY[Interval] = lambda a, b: isinstance(b, Interval) and len(a.items) == len(b.items) \
    and all(equal(x, y) for x, y in zip(a.items, b.items))


def _number(value, selector):
    if not isNumber(value):
        raise errors.argumentTypeError(selector)
    return value


@method("Number", "to:")
def _to(ev, receiver, stop):
    return Interval(CLASSES["Interval"], start=receiver, stop=_number(stop, "to:"))


@method("Interval", "increment")
def _increment(ev, receiver):
    return 1

"""
The simulated stone's Interval: what C{1 to: 10} and C{Interval from: 1
to: 10 by: 2} answer, a SequenceableCollection whose elements are computed.
C{Number>>to:by:} is not modelled: no public GemStone source read here
sends it outside C{to:by:do:}, while C{Interval from:to:by:} is sent by
GemStone-side code (docs/simulated-stone.rst).

It prints and compares as its elements would, answers an Array for
C{collect:}, C{select:} and the like (its species), and refuses
C{at:put:}.
"""

import math
from fractions import Fraction

import attr

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import CLASSES, classMethod, method
from gsmcpd.testing.simulator.objects import (
    EQUALITY,
    PRINTERS,
    Instance,
    equal,
    isNumber,
    normalize,
    printElements,
)


@attr.s(eq=False)
class Interval(Instance):
    """
    From C{start} to C{stop} by C{by}, which is never zero.
    """

    start = attr.ib(default=1)
    stop = attr.ib(default=0)
    by = attr.ib(default=1)

    @property
    def items(self):
        count = math.floor((Fraction(self.stop) - Fraction(self.start)) / Fraction(self.by)) + 1
        return [normalize(self.start + i * self.by) for i in range(max(count, 0))]


PRINTERS[Interval] = lambda value: printElements(value, value.items)
EQUALITY[Interval] = lambda a, b: isinstance(b, Interval) and len(a.items) == len(b.items) \
    and all(equal(x, y) for x, y in zip(a.items, b.items, strict=True))


def _number(value, selector):
    if not isNumber(value):
        raise errors.argumentTypeError(selector)
    return value


def _interval(start, stop, by, selector):
    if _number(by, selector) == 0:
        # A step of zero would never reach the stop: the model refuses it
        # when the Interval is made (the stricter reading,
        # docs/gemstone-fidelity.rst).
        raise errors.outOfRange(f"{selector} with a step of zero")
    return Interval(CLASSES["Interval"], start=_number(start, selector),
                    stop=_number(stop, selector), by=by)


@method("Number", "to:")
def _to(ev, receiver, stop):
    return _interval(receiver, stop, 1, "to:")


@classMethod("Interval", "from:to:")
def _fromTo(ev, receiver, start, stop):
    return _interval(start, stop, 1, "from:to:")


@classMethod("Interval", "from:to:by:")
def _fromToBy(ev, receiver, start, stop, by):
    return _interval(start, stop, by, "from:to:by:")


@method("Interval", "increment")
def _increment(ev, receiver):
    return receiver.by

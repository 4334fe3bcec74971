"""
The simulated stone's Interval: what C{1 to: 10} and C{Interval from: 1
to: 10 by: 2} answer, a SequenceableCollection whose elements are computed.
C{Number>>to:by:} is not modelled: no public GemStone source read here
sends it outside C{to:by:do:}, while C{Interval from:to:by:} is sent by
GemStone-side code (docs/simulated-stone.rst).

It prints and compares as its elements would, answers an Array for
C{collect:}, C{select:} and the like (its species), and refuses
C{at:put:}.  Its size, elements, C{includes:} and enumeration are computed
from its bounds and step (L{Elements}), as GemStone's are, so C{(1 to:
1000000000) size} costs nothing and a C{do:} over it is a long loop that a
break ends; only what builds a collection of its elements builds them, up
to L{MAX_ELEMENTS}.
"""

import math
from collections.abc import Iterator, Sequence, Sized
from fractions import Fraction
from typing import cast, overload

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

Number = int | float | Fraction

MAX_ELEMENTS = 1 << 22
"""The most elements the model builds into one collection (32 MB of
slots, within GemStone's default 50 MB of temporary object memory, where a
gem asked for far more dies: docs/gemstone-fidelity.rst)."""


def bounded(count: int, what: str) -> int:
    """
    C{count}, when the model may build that many elements.

    @raise errors.GciError: it may not; the call ends (C{simulatorLimit}).
    """
    if count > MAX_ELEMENTS:
        raise errors.simulatorLimit(
            f"{what} would build {count} elements; the simulator builds at most "
            f"{MAX_ELEMENTS} (a gem's temporary object memory would not hold them)")
    return count


@attr.s(frozen=True, eq=False)
class Elements(Sequence):
    """
    An Interval's elements, each computed when it is asked for: element
    C{i} (from 0) is C{start + i * by}.
    """

    start: Number = attr.ib()
    by: Number = attr.ib()
    size: int = attr.ib()

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        # Not by len(): a size past the machine's word fits no len().
        return self.size > 0

    @overload
    def __getitem__(self, i: int) -> Number: ...

    @overload
    def __getitem__(self, i: slice) -> list[Number]: ...

    def __getitem__(self, i: int | slice) -> Number | list[Number]:
        if isinstance(i, slice):
            chosen = range(self.size)[i]
            bounded(_count(chosen), "copying the Interval")
            return [self._at(each) for each in chosen]
        return self._at(i)

    def _at(self, i: int) -> Number:
        return cast(Number, normalize(self.start + i * self.by))

    def __iter__(self) -> Iterator[Number]:
        return map(self._at, range(self.size))

    def __reversed__(self) -> Iterator[Number]:
        return map(self._at, reversed(range(self.size)))

    def includes(self, value: object) -> bool:
        """
        Whether an element is C{=} to C{value}, found by arithmetic: only the
        elements next to where C{value} would be are compared.
        """
        if not isNumber(value) or not self.size \
                or (isinstance(value, float) and not math.isfinite(value)):
            return False
        number = cast(Number, value)
        offset = (Fraction(number) - Fraction(self.start)) / Fraction(self.by)
        slack = 1
        if any(isinstance(each, float) for each in (number, self.start, self.by)):
            # Float elements are rounded: allow for the rounding's spread.
            largest = max(abs(float(number)), abs(float(self.start)),
                          abs(float(self._at(self.size - 1))))
            slack += math.ceil(4 * math.ulp(largest) / abs(float(self.by)))
        near = range(max(math.floor(offset) - slack, 0),
                     min(math.ceil(offset) + slack + 1, self.size))
        bounded(_count(near), "comparing the Interval's elements")
        return any(equal(self._at(i), value) for i in near)


def _count(indices: range) -> int:
    """
    How many C{indices} there are, however many (C{len} stops at the
    machine's word).
    """
    toward = 1 if indices.step > 0 else -1
    return max(0, (indices.stop - indices.start + indices.step - toward) // indices.step)


def sizeOf(items: Sized) -> int:
    """
    How many C{items} there are, an Interval's L{Elements} past the
    machine's word too (GemStone's size is then a LargeInteger).
    """
    return items.size if isinstance(items, Elements) else len(items)


@attr.s(eq=False)
class Interval(Instance):
    """
    From C{start} to C{stop} by C{by}, which is never zero.
    """

    start: Number = attr.ib(default=1)
    stop: Number = attr.ib(default=0)
    by: Number = attr.ib(default=1)

    @property
    def elements(self) -> Elements:
        count = math.floor((Fraction(self.stop) - Fraction(self.start)) / Fraction(self.by)) + 1
        return Elements(self.start, self.by, max(count, 0))

    @property
    def items(self) -> list[Number]:
        """
        The elements, built (L{bounded}): what a copy of them is made from.
        """
        elements = self.elements
        bounded(elements.size, "the Interval's elements")
        return list(elements)


def _equal(a: Interval, b: object) -> bool:
    """
    Whether C{b} is an Interval with equal elements: exact ones (Integers,
    Fractions) progress evenly, so their first two settle it.
    """
    if not isinstance(b, Interval) or a.elements.size != b.elements.size:
        return False
    if any(isinstance(each, float) for each in (a.start, a.by, b.start, b.by)):
        return all(equal(x, y) for x, y in zip(a.items, b.items, strict=True))
    return all(equal(x, y) for x, y in zip(a.elements[:2], b.elements[:2], strict=True))


PRINTERS[Interval] = lambda value: printElements(value, value.items)
EQUALITY[Interval] = _equal


def _number(value: object, selector: str) -> Number:
    if not isNumber(value):
        raise errors.argumentTypeError(selector)
    return cast(Number, value)


def _interval(start: object, stop: object, by: object, selector: str) -> Interval:
    if _number(by, selector) == 0:
        # A step of zero would never reach the stop: the model refuses it
        # when the Interval is made (the stricter reading,
        # docs/gemstone-fidelity.rst).
        raise errors.outOfRange(f"{selector} with a step of zero")
    return Interval(CLASSES["Interval"], start=_number(start, selector),
                    stop=_number(stop, selector), by=_number(by, selector))


@method("Number", "to:")
def _to(ev: object, receiver: Number, stop: object) -> Interval:
    return _interval(receiver, stop, 1, "to:")


@classMethod("Interval", "from:to:")
def _fromTo(ev: object, receiver: object, start: object, stop: object) -> Interval:
    return _interval(start, stop, 1, "from:to:")


@classMethod("Interval", "from:to:by:")
def _fromToBy(ev: object, receiver: object, start: object, stop: object,
              by: object) -> Interval:
    return _interval(start, stop, by, "from:to:by:")


@method("Interval", "increment")
def _increment(ev: object, receiver: Interval) -> Number:
    return receiver.by

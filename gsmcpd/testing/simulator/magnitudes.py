"""
Dates and times for the simulated stone's kernel (Date, Time,
DateAndTime), and Association.

Today and now are read from the stone's clock (L{Stone.timeGmt}, which
tests move), in UTC: the simulated stone has no time zone of its own.
"""

import datetime

import attr

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import CLASSES, classMethod, integer, method
from gsmcpd.testing.simulator.objects import (
    EQUALITY,
    PRINTERS,
    Instance,
    equal,
    printString,
)


@attr.s(eq=False)
class Moment(Instance):
    """
    A Date, Time or DateAndTime (its C{cls} says which), held as a Python
    C{datetime.date}, C{datetime.time} or C{datetime.datetime}.
    """

    value = attr.ib(default=None)


def _printMoment(moment):
    """
    A Date as dd/mm/yyyy, a Time as hh:mm:ss, a DateAndTime in ISO 8601
    (the model's reading of
    GemStone's prints: tests of the model check only their shape).
    """
    if moment.cls is CLASSES["Date"]:
        return moment.value.strftime("%d/%m/%Y")
    if moment.cls is CLASSES["Time"]:
        return moment.value.strftime("%H:%M:%S")
    return moment.value.isoformat()


PRINTERS[Moment] = _printMoment
EQUALITY[Moment] = lambda a, b: isinstance(b, Moment) and a.cls is b.cls and a.value == b.value


def _now(ev):
    return datetime.datetime.fromtimestamp(ev.session.stone.timeGmt(), datetime.UTC)


def _moment(name, value):
    return Moment(CLASSES[name], value=value)


@classMethod("Date", "today")
def _today(ev, receiver):
    return _moment("Date", _now(ev).date())


@classMethod("Date", "newDay:monthNumber:year:")
def _newDay(ev, receiver, day, month, year):
    try:
        return _moment("Date", datetime.date(integer(year), integer(month), integer(day)))
    except ValueError:
        raise errors.outOfRange(f"no such date: {day}/{month}/{year}") from None


@classMethod("Time", "now")
def _timeNow(ev, receiver):
    return _moment("Time", _now(ev).time().replace(microsecond=0, tzinfo=None))


@classMethod("Time", "millisecondClockValue")
def _millisecondClockValue(ev, receiver):
    """
    Milliseconds by the stone's clock (the model counts them from 1970).
    """
    return ev.session.stone.timeGmt() * 1000


@classMethod("DateAndTime", "now")
def _dateAndTimeNow(ev, receiver):
    return _moment("DateAndTime", _now(ev))


def _part(className, selector, read):
    method(className, selector)(lambda ev, receiver: read(receiver.value))


for _className in ("Date", "DateAndTime"):
    _part(_className, "year", lambda value: value.year)
    _part(_className, "month", lambda value: value.month)
    _part(_className, "monthIndex", lambda value: value.month)
    _part(_className, "dayOfMonth", lambda value: value.day)
    _part(_className, "dayOfWeek", lambda value: value.isoweekday() % 7 + 1)
    _part(_className, "dayOfYear", lambda value: value.timetuple().tm_yday)
for _className in ("Time", "DateAndTime"):
    _part(_className, "hour", lambda value: value.hour)
    _part(_className, "minute", lambda value: value.minute)
    _part(_className, "second", lambda value: value.second)
_part("DateAndTime", "asSeconds", lambda value: int(value.timestamp()))


@method("Date", "addDays:")
def _addDays(ev, receiver, days):
    return _moment("Date", receiver.value + datetime.timedelta(days=integer(days)))


def _same(receiver, other, selector):
    if not isinstance(other, Moment) or other.cls is not receiver.cls:
        raise errors.argumentTypeError(selector)
    return other


def _compare(selector, operation):
    def compare(ev, receiver, other):
        return operation(receiver.value, _same(receiver, other, selector).value)
    for className in ("Date", "DateAndTime"):
        method(className, selector)(compare)


_compare("<", lambda a, b: a < b)
_compare(">", lambda a, b: a > b)
_compare("<=", lambda a, b: a <= b)
_compare(">=", lambda a, b: a >= b)


# ------------------------------------------------------------- Association

@attr.s(eq=False)
class Pair(Instance):
    """
    An Association: C{key -> value}.
    """

    first = attr.ib(default=None)
    second = attr.ib(default=None)


PRINTERS[Pair] = lambda pair: f"{printString(pair.first)}->{printString(pair.second)}"
EQUALITY[Pair] = lambda a, b: (isinstance(b, Pair) and equal(a.first, b.first)
                               and equal(a.second, b.second))


@method("Object", "->")
def _associate(ev, receiver, value):
    return Pair(CLASSES["Association"], first=receiver, second=value)


@classMethod("Association", "newWithKey:value:")
def _newWithKey(ev, receiver, key, value):
    return Pair(CLASSES["Association"], first=key, second=value)


method("Association", "key")(lambda ev, receiver: receiver.first)
method("Association", "value")(lambda ev, receiver: receiver.second)

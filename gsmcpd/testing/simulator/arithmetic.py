"""
Numbers and Characters for the simulated stone's kernel.

Arithmetic follows GemStone: C{/} on Integers answers a Fraction (an Integer
when exact), dividing by zero signals ZeroDivide, and a non-number argument
is refused by not understanding C{#_generality}.
"""

import math
from fractions import Fraction

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import classMethod, classOf, integer, method
from gsmcpd.testing.simulator.objects import Character, isNumber, normalize, printString

# ------------------------------------------------------------------ Number

def _operand(argument):
    """
    A numeric argument; anything else is refused as GemStone refuses it.
    """
    if not isNumber(argument):
        raise errors.messageNotUnderstood(classOf(argument).name, "_generality")
    return argument


def _arithmetic(selector, operation):
    @method("Number", selector)
    def arithmetic(ev, receiver, argument):
        return normalize(operation(receiver, _operand(argument)))
    return arithmetic


_arithmetic("+", lambda a, b: a + b)
_arithmetic("-", lambda a, b: a - b)
_arithmetic("*", lambda a, b: a * b)
_arithmetic("max:", max)
_arithmetic("min:", min)
_arithmetic("<", lambda a, b: a < b)
_arithmetic(">", lambda a, b: a > b)
_arithmetic("<=", lambda a, b: a <= b)
_arithmetic(">=", lambda a, b: a >= b)


def _nonZero(receiver, divisor):
    if _operand(divisor) == 0:
        raise errors.zeroDivide(printString(receiver))
    return divisor


@method("Number", "/")
def _divide(ev, receiver, divisor):
    _nonZero(receiver, divisor)
    if isinstance(receiver, float) or isinstance(divisor, float):
        return receiver / divisor
    return normalize(Fraction(receiver) / Fraction(divisor))


@method("Number", "//")
def _floorDivide(ev, receiver, divisor):
    return math.floor(receiver / _nonZero(receiver, divisor)) \
        if isinstance(receiver, float) or isinstance(divisor, float) \
        else receiver // divisor


@method("Number", "\\\\")
def _modulo(ev, receiver, divisor):
    return normalize(receiver % _nonZero(receiver, divisor))


@method("Number", "rem:")
def _rem(ev, receiver, divisor):
    _nonZero(receiver, divisor)
    return normalize(math.fmod(receiver, divisor) if isinstance(receiver, float)
                     else receiver - divisor * int(Fraction(receiver) / Fraction(divisor)))


@method("Number", "quo:")
def _quo(ev, receiver, divisor):
    _nonZero(receiver, divisor)
    return int(Fraction(receiver) / Fraction(divisor))


def _unary(selector, operation):
    @method("Number", selector)
    def unary(ev, receiver):
        return normalize(operation(receiver))
    return unary


_unary("negated", lambda n: -n)
_unary("abs", abs)
_unary("squared", lambda n: n * n)
def _finite(operation):
    """
    C{operation} on a number that has an integer value: an infinite or NaN
    Float is refused (GemStone's class and number for it are inferred).
    """
    def integral(n):
        if isinstance(n, float) and not math.isfinite(n):
            raise errors.outOfRange(f"{printString(n)} has no integer value")
        return operation(n)
    return integral


def _asFloat(n):
    if isinstance(n, int) and abs(n) > _LARGEST_FLOAT:
        raise errors.outOfRange(f"{n} is too large for a Float")
    return float(n)


_LARGEST_FLOAT = int(1.7976931348623157e308)

_unary("asFloat", _asFloat)
_unary("truncated", _finite(int))
_unary("asInteger", _finite(int))
_unary("rounded", _finite(lambda n: math.floor(n + Fraction(1, 2)) if n >= 0
                          else -math.floor(-n + Fraction(1, 2))))
_unary("floor", _finite(math.floor))
_unary("ceiling", _finite(math.ceil))
_unary("sign", lambda n: (n > 0) - (n < 0))
_unary("positive", lambda n: n >= 0)


@method("Number", "reciprocal")
def _reciprocal(ev, receiver):
    return _divide(ev, 1, receiver)


@method("Number", "raisedTo:")
def _raisedTo(ev, receiver, exponent):
    _operand(exponent)
    if receiver == 0 and exponent < 0:
        raise errors.zeroDivide(printString(1))
    if isinstance(exponent, int) and exponent < 0 and not isinstance(receiver, float):
        return normalize(Fraction(1) / Fraction(receiver) ** -exponent)
    try:
        power = receiver ** exponent
    except OverflowError:
        raise errors.outOfRange(f"{printString(receiver)} raisedTo: {printString(exponent)} "
                                "overflows a Float") from None
    if isinstance(power, complex):
        raise errors.outOfRange(f"{printString(receiver)} raisedTo: {printString(exponent)} "
                                "has no real value")
    return normalize(power)


@method("Number", "between:and:")
def _between(ev, receiver, low, high):
    return _operand(low) <= receiver <= _operand(high)


@method("Number", "to:do:")
def _toDo(ev, receiver, stop, block):
    return _toByDo(ev, receiver, stop, 1, block)


@method("Number", "to:by:do:")
def _toByDo(ev, receiver, stop, step, block):
    if _operand(step) == 0:
        raise errors.zeroDivide(printString(receiver))
    _operand(stop)
    i = receiver
    while (i <= stop) if step > 0 else (i >= stop):
        ev.value(block, i)
        i += step
    return receiver


@method("Integer", "timesRepeat:")
def _timesRepeat(ev, receiver, block):
    for _ in range(receiver):
        ev.value(block)
    return receiver


@method("Integer", "factorial")
def _factorial(ev, receiver):
    if receiver < 0:
        raise errors.outOfRange(f"{receiver} factorial: the receiver must not be negative")
    return math.factorial(receiver)


@method("Integer", "asCharacter")
def _asCharacter(ev, receiver):
    if not 0 <= receiver <= 0x10FFFF:
        raise errors.outOfRange(f"{receiver} is not a code point")
    return Character(chr(receiver))


@method("Fraction", "numerator")
def _numerator(ev, receiver):
    return receiver.numerator


@method("Fraction", "denominator")
def _denominator(ev, receiver):
    return receiver.denominator


# --------------------------------------------------------------- Character

@method("Character", "asInteger", "codePoint", "value")
def _codePoint(ev, receiver):
    return ord(receiver.char)


@method("Character", "asUppercase")
def _charUpper(ev, receiver):
    return Character(receiver.char.upper())


@method("Character", "asLowercase")
def _charLower(ev, receiver):
    return Character(receiver.char.lower())


@method("Character", "isVowel")
def _isVowel(ev, receiver):
    return receiver.char.lower() in "aeiou"


@method("Character", "isLetter")
def _isLetter(ev, receiver):
    return receiver.char.isalpha()


@method("Character", "isDigit")
def _isDigit(ev, receiver):
    return receiver.char.isdigit()


@method("Character", "isUppercase")
def _isUppercase(ev, receiver):
    return receiver.char.isupper()


@method("Character", "isLowercase")
def _isLowercase(ev, receiver):
    return receiver.char.islower()


@classMethod("Character", "codePoint:", "withValue:")
def _withValue(ev, receiver, codePoint):
    """
    The character of a code point; 3.7 refuses a surrogate, as anything
    outside Unicode.  (C{Character value:} is not among them: 3.7 lacks
    it, GemTalk/Grail's CrossVersionSelectorTestCase.gs notes.)
    """
    value = integer(codePoint)
    if not 0 <= value <= 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        raise errors.outOfRange(f"{value} is not a code point of a Character")
    return Character(chr(value))


def _compareCharacters(selector, operation):
    @method("Character", selector)
    def compare(ev, receiver, other):
        if not isinstance(other, Character):
            raise errors.messageNotUnderstood(classOf(other).name, "asInteger")
        return operation(receiver.char, other.char)
    return compare


_compareCharacters("<", lambda a, b: a < b)
_compareCharacters(">", lambda a, b: a > b)
_compareCharacters("<=", lambda a, b: a <= b)
_compareCharacters(">=", lambda a, b: a >= b)


def _named(codePoint):
    def character(ev, receiver):
        return Character(chr(codePoint))
    return character


classMethod("Character", "lf")(_named(10))
classMethod("Character", "cr")(_named(13))
classMethod("Character", "tab")(_named(9))
classMethod("Character", "space")(_named(32))

"""
More of Number's and Integer's protocol for the simulated stone's kernel:
divisibility (C{gcd:}, C{lcm:}, C{even}, C{odd}), bit operations, square
roots, C{isZero} and radix printing.
"""

import math

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import integer, method
from gsmcpd.testing.simulator.objects import String, printString


@method("Integer", "gcd:")
def _gcd(ev, receiver, other):
    return math.gcd(receiver, integer(other))


@method("Integer", "lcm:")
def _lcm(ev, receiver, other):
    return math.lcm(receiver, integer(other))


def _bitwise(selector, operation):
    method("Integer", selector)(lambda ev, receiver, other: operation(receiver, integer(other)))


_bitwise("bitAnd:", lambda a, b: a & b)
_bitwise("bitOr:", lambda a, b: a | b)
_bitwise("bitXor:", lambda a, b: a ^ b)
_bitwise("bitShift:", lambda a, b: a << b if b >= 0 else a >> -b)


@method("Integer", "even")
def _even(ev, receiver):
    return receiver % 2 == 0


@method("Integer", "odd")
def _odd(ev, receiver):
    return receiver % 2 == 1


@method("Number", "sqrt")
def _sqrt(ev, receiver):
    if receiver < 0:
        # Public sources do not settle what GemStone answers (NaN, an
        # error?): the model refuses it, the stricter reading
        # (docs/gemstone-fidelity.rst).
        raise errors.outOfRange(f"{printString(receiver)} sqrt: the receiver is negative")
    return math.sqrt(receiver)


@method("Number", "isZero")
def _isZero(ev, receiver):
    return receiver == 0


@method("Integer", "printString:")
def _printStringRadix(ev, receiver, radix):
    """
    The digits in base C{radix}, upper case and unpadded (as GemTalk/Grail's
    RawUnicodeEscapeTestCase.gs notes of 3.7's C{printString: 16}).
    """
    base = integer(radix)
    if not 2 <= base <= 36:
        raise errors.outOfRange(f"radix {base} is not between 2 and 36")
    digits, n = [], abs(receiver)
    while True:
        n, digit = divmod(n, base)
        digits.append("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[digit])
        if not n:
            break
    return String(("-" if receiver < 0 else "") + "".join(reversed(digits)))

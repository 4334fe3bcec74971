"""
More of Number's and Integer's protocol for the simulated stone's kernel:
divisibility (C{gcd:}, C{lcm:}, C{even}) and square roots.
"""

import math

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import integer, method
from gsmcpd.testing.simulator.objects import printString


@method("Integer", "gcd:")
def _gcd(ev, receiver, other):
    return math.gcd(receiver, integer(other))


@method("Integer", "lcm:")
def _lcm(ev, receiver, other):
    return abs(receiver * integer(other)) // math.gcd(receiver, other) if receiver and other else 0


@method("Integer", "even")
def _even(ev, receiver):
    return receiver % 2 == 0


@method("Number", "sqrt")
def _sqrt(ev, receiver):
    if receiver < 0:
        # GemStone answers NaN for a negative Float's root; the model
        # refuses it (the stricter reading, docs/gemstone-fidelity.rst).
        raise errors.outOfRange(f"{printString(receiver)} sqrt: the receiver is negative")
    return math.sqrt(receiver)

"""
The simulated stone's step points and breakpoints: each send (a cascade is
one) and each assignment of a method is a step point, numbered in the order
they run, as C{GsNMethod>>_sourceOffsets} lists their offsets; a breakpoint
(C{setBreakAtStepPoint:}) belongs to one compiled method in one session, so
a recompiled method has none.  L{debugging} stops a run at them.
"""

import functools

import attr

from gsmcpd import smalltalk
from gsmcpd.testing.simulator import compiler, errors
from gsmcpd.testing.simulator.kernel import method
from gsmcpd.testing.simulator.objects import ActiveMethod, Array, CompiledMethod
from gsmcpd.testing.simulator.processes import NotModeled

_STEP_KINDS = (smalltalk.ast.Message, smalltalk.ast.Cascade, smalltalk.ast.Assignment)


def _stepNodes(node):
    """
    C{node}'s step points in the order they run: a send's receiver and
    arguments before it, an assignment's value before it.
    """
    for field in attr.fields(type(node)) if attr.has(type(node)) else ():
        value = getattr(node, field.name)
        for each in value if isinstance(value, tuple) else (value,):
            for child in each if isinstance(each, tuple) else (each,):
                if isinstance(child, smalltalk.ast.Node):
                    yield from _stepNodes(child)
    if isinstance(node, _STEP_KINDS):
        yield node


@functools.lru_cache(maxsize=256)
def stepPoints(source, isMethod=True):
    """
    C{source}'s step points, each send (a cascade is one) and each
    assignment, numbered in the order they run: a dict from each node's id
    to its number, and their offsets in that order.
    """
    try:
        tree = compiler.parseMethod(source) if isMethod else smalltalk.parse_expression(source)
    except (smalltalk.SmalltalkSyntaxError, errors.SmalltalkError):
        return {}, []
    found = list(_stepNodes(tree))
    return ({id(node): index for index, node in enumerate(found, 1)},
            [node.offset for node in found])


def stepOffsets(source, isMethod=True):
    """
    The 0-based offsets of C{source}'s step points, by their numbers.
    """
    return stepPoints(source, isMethod)[1]


def _offsetsOf(gsMethod):
    if isinstance(gsMethod, ActiveMethod):
        root = gsMethod.home or gsMethod
        return stepOffsets(root.source, root.behavior is not None)
    raise errors.messageNotUnderstood("GsNMethod", "_sourceOffsets")


def stepForOffset(gsMethod, offset):
    """
    The last step point at C{offset}, else the last before it in the
    source (1 when none is).
    """
    offsets = _offsetsOf(gsMethod)
    before = [each for each in offsets if each <= offset]
    return 1 + max((index for index, each in enumerate(offsets) if each == max(before)),
                   default=0) if before else 1


def offsetOfStep(gsMethod, step):
    """
    Where step point C{step} is in the source (0 past the last).
    """
    offsets = _offsetsOf(gsMethod)
    return offsets[step - 1] if 1 <= step <= len(offsets) else 0


def _breakpointsOf(ev, receiver):
    if not isinstance(receiver, CompiledMethod):
        raise errors.messageNotUnderstood("GsNMethod", "setBreakAtStepPoint:")
    from gsmcpd.testing.simulator.reflection import methodOf
    info = methodOf(ev, receiver.behavior, receiver.selector)
    if info is None or not hasattr(info, "source"):
        raise NotModeled("the simulated stone breaks only in a user's compiled method")
    return ev.session.breakpoints.setdefault(id(info), (info, set()))[1], info


def _stepPoint(info, step):
    if not isinstance(step, int) or isinstance(step, bool):
        raise errors.argumentTypeError("setBreakAtStepPoint:")
    if not 1 <= step <= len(stepOffsets(info.source)):
        raise errors.outOfRange(f"step point {step} is not in the method")
    return step


@method("GsNMethod", "setBreakAtStepPoint:")
def _setBreak(ev, receiver, step):
    points, info = _breakpointsOf(ev, receiver)
    points.add(_stepPoint(info, step))
    return receiver


@method("GsNMethod", "clearBreakAtStepPoint:")
def _clearBreak(ev, receiver, step):
    points, info = _breakpointsOf(ev, receiver)
    points.discard(_stepPoint(info, step))
    return receiver


@method("GsNMethod", "_sourceOffsets")
def _sourceOffsets(ev, receiver):
    if isinstance(receiver, CompiledMethod):
        from gsmcpd.testing.simulator.reflection import methodOf
        return Array([each + 1 for each in stepOffsets(methodOf(
            ev, receiver.behavior, receiver.selector).source)])
    return Array([each + 1 for each in _offsetsOf(receiver)])


@method("GsNMethod", "asOop")
def _asOop(ev, receiver):
    """
    A compiled method's one OOP, whichever C{compiledMethodAt:} answered
    it: a method compiled since is another object, with another (and none
    of the first one's breakpoints).
    """
    from gsmcpd.testing.simulator.inspection import _asOop
    if isinstance(receiver, CompiledMethod):
        from gsmcpd.testing.simulator.reflection import methodOf
        info = methodOf(ev, receiver.behavior, receiver.selector)
        if info is not None:
            return _asOop(ev, info)
    return _asOop(ev, receiver)

"""
Syntax trees turned into Python closures, once per tree node, so running
code calls closures instead of walking the tree (about twice as fast: the
templates run on every tool call).

A node's closure is C{code(ev, frame)}: C{ev} the running
L{gsmcpd.testing.simulator.evaluator.Evaluator}, C{frame} its
L{gsmcpd.testing.simulator.evaluator.Frame}.  Trees are immutable and the
evaluator caches them by their source text, so closures are remembered by
node (L{code}, L{body}).  What a variable is bound to, and every send, is
still decided when it runs, by the evaluator.
"""

from gsmcpd import smalltalk
from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import classOf
from gsmcpd.testing.simulator.objects import Array, BlockClosure

CONSTANTS = {"nil": None, "true": True, "false": False, "thisContext": None}

INLINED = {
    "ifTrue:": lambda condition, blocks: blocks[0] if condition else None,
    "ifFalse:": lambda condition, blocks: None if condition else blocks[0],
    "ifTrue:ifFalse:": lambda condition, blocks: blocks[0 if condition else 1],
    "ifFalse:ifTrue:": lambda condition, blocks: blocks[1 if condition else 0],
    "and:": lambda condition, blocks: blocks[0] if condition else False,
    "or:": lambda condition, blocks: True if condition else blocks[0],
}
"""What GemStone's compiler inlines: a Boolean's conditional whose arguments
are literal blocks runs the chosen block in place.  Given the receiver and
the blocks' bodies: the body to run, or the answer.  Inlined, nothing is
sent: a receiver that is not a Boolean is an error (L{errors.notBoolean}),
never a send of the conditional to it."""

LOOPS = {"whileTrue:": True, "whileFalse:": False, "whileTrue": True, "whileFalse": False}
"""The loops GemStone's compiler inlines when the receiver (and argument)
are literal blocks: the value the condition must have to go on."""

_REMEMBERED = {}
_LIMIT = 200_000


def _remembered(key, node, make):
    found = _REMEMBERED.get(key)
    if found is None or found[0] is not node:
        if len(_REMEMBERED) > _LIMIT:
            _REMEMBERED.clear()
        found = _REMEMBERED[key] = (node, make(node))
    return found[1]


def code(node):
    """
    The closure that evaluates expression C{node}.
    """
    return _remembered(id(node), node, lambda each: _COMPILERS[type(each)](each))


def body(node):
    """
    The closure that runs the statements of C{node} (a doit, method or
    block): the last one's value, nil if none.
    """
    return _remembered(("body", id(node)), node, lambda each: _statements(each.statements))


def _statements(statements):
    compiled = [code(each) for each in statements]
    if not compiled:
        return lambda ev, frame: None
    if len(compiled) == 1:
        return compiled[0]

    def run(ev, frame):
        for each in compiled[:-1]:
            each(ev, frame)
        return compiled[-1](ev, frame)
    return run


def _literal(node):
    from gsmcpd.testing.simulator.evaluator import fromLiteral
    if node.kind in ("string", "array", "bytearray"):
        # Mutable: each evaluation makes its own.
        return lambda ev, frame: fromLiteral(node)
    value = fromLiteral(node)
    return lambda ev, frame: value


def _variable(node):
    name = node.name
    if name in ("self", "super"):
        return lambda ev, frame: frame.home.receiver
    if name in CONSTANTS:
        value = CONSTANTS[name]
        return lambda ev, frame: value

    def variable(ev, frame):
        each = frame
        while each is not None:
            if name in each.names:
                return each.names[name]
            each = each.parent
        return ev.unbound(name, frame.home)
    return variable


def _assignment(node):
    name, value = node.name, code(node.value)

    def assign(ev, frame):
        assigned = value(ev, frame)
        if ev.debugRun is not None:
            frame.at = node.offset
            ev.debugRun.reached(ev, frame, node)
        each = frame
        while each is not None:
            if name in each.names:
                each.names[name] = assigned
                return assigned
            each = each.parent
        ev.assignUnbound(name, frame.home, assigned)
        return assigned
    return assign


def _isSuper(node):
    return isinstance(node, smalltalk.Variable) and node.name == "super"


def _message(node):
    receiver, selector, at = code(node.receiver), node.selector, node.offset
    args = [code(each) for each in node.args]
    if _isSuper(node.receiver):
        def superSend(ev, frame):
            target, values = receiver(ev, frame), [each(ev, frame) for each in args]
            frame.at = at
            if ev.debugRun is not None:
                ev.debugRun.reached(ev, frame, node)
            return ev.send(target, selector, values, ev.superclassFor(frame.home))
        return superSend
    inlined = INLINED.get(selector)
    if inlined is not None and all(map(_isPlainBlock, node.args)):
        return _conditional(receiver, selector, inlined, [body(each) for each in node.args], at)
    if selector in LOOPS and _isPlainBlock(node.receiver) and all(map(_isPlainBlock, node.args)):
        return _loop(body(node.receiver), selector, [body(each) for each in node.args], at)
    # Each send notes where it is in its frame (the frame's line, should
    # the stack be read), once its receiver and arguments are evaluated.
    if not args:
        def nullary(ev, frame):
            target = receiver(ev, frame)
            frame.at = at
            if ev.debugRun is not None:
                ev.debugRun.reached(ev, frame, node)
            return ev.send(target, selector, ())
        return nullary
    if len(args) == 1:
        [argument] = args

        def unary(ev, frame):
            target = receiver(ev, frame)
            value = argument(ev, frame)
            frame.at = at
            if ev.debugRun is not None:
                ev.debugRun.reached(ev, frame, node)
            return ev.send(target, selector, (value,))
        return unary

    def send(ev, frame):
        target = receiver(ev, frame)
        values = [each(ev, frame) for each in args]
        frame.at = at
        if ev.debugRun is not None:
            ev.debugRun.reached(ev, frame, node)
        return ev.send(target, selector, values)
    return send


def _isPlainBlock(node):
    return isinstance(node, smalltalk.Block) and not node.params and not node.temps


def _conditional(receiver, selector, inlined, bodies, at):
    def conditional(ev, frame):
        condition = receiver(ev, frame)
        if condition is not True and condition is not False:
            frame.at = at
            raise errors.notBoolean(classOf(condition).name, selector)
        chosen = inlined(condition, bodies)
        return chosen(ev, frame) if callable(chosen) else chosen
    return conditional


def _loop(condition, selector, bodies, at):
    goOn = LOOPS[selector]
    loopBody = bodies[0] if bodies else None

    def loop(ev, frame):
        while True:
            ev.checkInterrupt()
            value = condition(ev, frame)
            if value is not True and value is not False:
                frame.at = at
                raise errors.notBoolean(classOf(value).name, selector)
            if value is not goOn:
                return None
            if loopBody is not None:
                loopBody(ev, frame)
    return loop


def _cascade(node):
    receiver, isSuper = code(node.receiver), _isSuper(node.receiver)
    messages = [(selector, [code(each) for each in args]) for selector, args in node.messages]

    at = node.offset

    def cascade(ev, frame):
        target = receiver(ev, frame)
        startAt = ev.superclassFor(frame.home) if isSuper else None
        result = target
        for selector, args in messages:
            values = [each(ev, frame) for each in args]
            frame.at = at
            result = ev.send(target, selector, values, startAt)
        return result
    return cascade


def _block(node):
    return lambda ev, frame: BlockClosure(node, frame)


def _return(node):
    from gsmcpd.testing.simulator.evaluator import NonLocalReturn
    value = code(node.value)

    def giveBack(ev, frame):
        raise NonLocalReturn(frame.home, value(ev, frame))
    return giveBack


def _braceArray(node):
    elements = [code(each) for each in node.elements]
    return lambda ev, frame: Array([each(ev, frame) for each in elements])


_COMPILERS = {
    smalltalk.Literal: _literal,
    smalltalk.Variable: _variable,
    smalltalk.Assignment: _assignment,
    smalltalk.Message: _message,
    smalltalk.Cascade: _cascade,
    smalltalk.Block: _block,
    smalltalk.Return: _return,
    smalltalk.BraceArray: _braceArray,
}

"""
Evaluate a small Smalltalk subset by walking the project parser's syntax
tree, on behalf of one simulated session.

Like GemStone's compiler, an evaluation first checks that every variable
is declared (a temporary, or a global the session can see) and refuses the
source with a CompileError otherwise; then it runs.  Every message send and
block activation is a step at which a break can interrupt it.
"""

from fractions import Fraction

import attr

from gsmcpd import smalltalk
from gsmcpd.simulator import arithmetic, errors, sequences, system
from gsmcpd.simulator.kernel import classOf
from gsmcpd.simulator.objects import (
    Array, BlockClosure, Character, String, Symbol)

# Importing these registers the kernel's methods.
KERNEL_MODULES = (arithmetic, sequences, system)

_PSEUDO = {"nil": None, "true": True, "false": False, "self": None,
           "super": None, "thisContext": None}

_VALUE_SELECTORS = {0: "value", 1: "value:", 2: "value:value:",
                    3: "value:value:value:", 4: "value:value:value:value:"}


@attr.s(eq=False)
class Frame:
    """
    One activation's variables; blocks chain to the frame they close over,
    and C{home} is the doit a C{^} returns from.
    """

    names = attr.ib()
    parent = attr.ib(default=None)
    home = attr.ib(default=None)

    def holder(self, name):
        frame = self
        while frame is not None:
            if name in frame.names:
                return frame
            frame = frame.parent
        return None


class _NonLocalReturn(Exception):
    def __init__(self, home, value):
        super().__init__()
        self.home = home
        self.value = value


def fromLiteral(node):
    """
    The Smalltalk value of a parsed literal.
    """
    kind, value = node.kind, node.value
    if kind == "string":
        return String(value)
    if kind == "symbol":
        return Symbol(value)
    if kind == "character":
        return Character(value)
    if kind == "array":
        return Array([fromLiteral(each) for each in value])
    if kind == "bytearray":
        return Array(list(value))
    if kind == "scaled":
        return Fraction(value)
    return value


@attr.s
class Evaluator:
    """
    Runs source for one session.

    @ivar session: the L{gsmcpd.simulator.stone.Session} (transaction,
        identity, interrupts) the code runs in.
    """

    session = attr.ib()

    def evaluate(self, source):
        """
        Compile and run C{source} as a doit; answer its last statement's
        value (or what C{^} returned).

        @raise errors.SmalltalkError: a CompileError, or an Error the code
            signalled.
        @raise errors.GciError: a break interrupted it.
        """
        try:
            tree = smalltalk.parse_expression(source)
        except smalltalk.SmalltalkSyntaxError as e:
            raise errors.compileError(e.message, source, e.offset) from None
        self._checkDeclared(tree.statements, set(tree.temps) | set(_PSEUDO), source)
        home = object()
        frame = Frame(dict.fromkeys(tree.temps), home=home)
        try:
            return self._statements(tree.statements, frame)
        except _NonLocalReturn as returned:
            if returned.home is not home:
                raise
            return returned.value

    def _checkDeclared(self, nodes, scope, source):
        for node in nodes:
            if isinstance(node, smalltalk.Block):
                self._checkDeclared(node.statements, scope | set(node.params) | set(node.temps),
                                    source)
                continue
            name = getattr(node, "name", None) if isinstance(
                node, (smalltalk.Variable, smalltalk.Assignment)) else None
            if name is not None and name not in scope \
                    and system.resolve(self.session, name) is None:
                raise errors.compileError(f"undefined symbol  {name}", source, node.offset)
            self._checkDeclared(_children(node), scope, source)

    # ----------------------------------------------------------- messages

    def send(self, receiver, selector, args):
        self.session.interrupt.check()
        function = classOf(receiver).lookup(selector)
        if function is None:
            raise errors.messageNotUnderstood(classOf(receiver).name, selector)
        try:
            return function(self, receiver, *args)
        except (TypeError, ValueError, ArithmeticError):
            # A primitive given arguments it cannot use: GemStone's
            # primitives fail with an ArgumentTypeError.
            raise errors.argumentTypeError(selector) from None

    def value(self, block, *args):
        """
        Evaluate C{block} with C{args}, as C{value:...} does.
        """
        if not isinstance(block, BlockClosure) or block.numArgs != len(args):
            selector = _VALUE_SELECTORS.get(len(args), "valueWithArguments:")
            if isinstance(block, BlockClosure):
                raise errors.messageNotUnderstood(classOf(block).name, selector)
            return self.send(block, selector, args)
        self.session.interrupt.check()
        node = block.node
        names = dict(zip(node.params, args))
        names.update(dict.fromkeys(node.temps))
        return self._statements(node.statements, Frame(names, block.frame, block.frame.home))

    def sleep(self, seconds):
        """
        Wait C{seconds}, as C{Delay>>wait} does; a break ends the wait.
        """
        self.session.interrupt.sleep(seconds)

    # -------------------------------------------------------------- nodes

    def _statements(self, statements, frame):
        result = None
        for statement in statements:
            result = self._run(statement, frame)
        return result

    def _run(self, node, frame):
        return _RUNNERS[type(node)](self, node, frame)

    def _literal(self, node, frame):
        return fromLiteral(node)

    def _variable(self, node, frame):
        holder = frame.holder(node.name)
        if holder is not None:
            return holder.names[node.name]
        if node.name in _PSEUDO:
            return _PSEUDO[node.name]
        dictionary = system.resolve(self.session, node.name)
        return None if dictionary is None else system.readGlobal(
            self.session, dictionary, node.name)

    def _assignment(self, node, frame):
        value = self._run(node.value, frame)
        holder = frame.holder(node.name)
        if holder is not None:
            holder.names[node.name] = value
        else:
            dictionary = system.resolve(self.session, node.name) or system.USER_GLOBALS
            self.session.transaction.write(system.globalKey(dictionary, node.name), value)
        return value

    def _message(self, node, frame):
        receiver = self._run(node.receiver, frame)
        args = [self._run(arg, frame) for arg in node.args]
        return self.send(receiver, node.selector, args)

    def _cascade(self, node, frame):
        receiver = self._run(node.receiver, frame)
        result = receiver
        for selector, args in node.messages:
            result = self.send(receiver, selector, [self._run(arg, frame) for arg in args])
        return result

    def _block(self, node, frame):
        return BlockClosure(node, frame)

    def _return(self, node, frame):
        raise _NonLocalReturn(frame.home, self._run(node.value, frame))

    def _braceArray(self, node, frame):
        return Array([self._run(each, frame) for each in node.elements])


_RUNNERS = {
    smalltalk.Literal: Evaluator._literal,
    smalltalk.Variable: Evaluator._variable,
    smalltalk.Assignment: Evaluator._assignment,
    smalltalk.Message: Evaluator._message,
    smalltalk.Cascade: Evaluator._cascade,
    smalltalk.Block: Evaluator._block,
    smalltalk.Return: Evaluator._return,
    smalltalk.BraceArray: Evaluator._braceArray,
}


def _children(node):
    """
    The nodes directly inside C{node}.
    """
    if isinstance(node, smalltalk.Message):
        return (node.receiver, *node.args)
    if isinstance(node, smalltalk.Cascade):
        return (node.receiver, *(arg for _, args in node.messages for arg in args))
    if isinstance(node, (smalltalk.Assignment, smalltalk.Return)):
        return (node.value,)
    if isinstance(node, smalltalk.BraceArray):
        return node.elements
    return ()

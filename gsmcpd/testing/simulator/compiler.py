"""
What the simulated stone's compiler checks before code may run: the syntax,
and that every variable is declared, as GemStone's compiler refuses an
undeclared identifier where a Smalltalk with late binding would not.
"""

import functools

from gsmcpd import smalltalk
from gsmcpd.testing.simulator import errors, system

PSEUDO_VARIABLES = frozenset({"nil", "true", "false", "self", "super", "thisContext"})


def parseExpression(source):
    """
    The doit C{source} as a L{smalltalk.Sequence}, or a CompileError.
    """
    try:
        return smalltalk.parse_expression(source)
    except smalltalk.SmalltalkSyntaxError as e:
        raise errors.compileError(e.message, source, e.offset) from None


@functools.lru_cache(maxsize=4096)
def parseMethod(source):
    """
    The method C{source} as a L{smalltalk.Method}, or a CompileError.
    Sources are immutable and compiled methods run often, so trees are
    cached by their text.
    """
    try:
        return smalltalk.parse_method(source)
    except smalltalk.SmalltalkSyntaxError as e:
        raise errors.compileError(e.message, source, e.offset) from None


def checkDeclared(session, nodes, scope, source):
    """
    Refuse C{source} with a CompileError naming the first variable in
    C{nodes} that is neither in C{scope} (or a block's own) nor a global of
    the session's symbol list.
    """
    for node in nodes:
        if isinstance(node, smalltalk.Block):
            checkDeclared(session, node.statements,
                          scope | set(node.params) | set(node.temps), source)
            continue
        if isinstance(node, (smalltalk.Variable, smalltalk.Assignment)) \
                and node.name not in scope and system.resolve(session, node.name) is None:
            raise errors.compileError(f"undefined symbol  {node.name}", source, node.offset)
        checkDeclared(session, children(node), scope, source)


def children(node):
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

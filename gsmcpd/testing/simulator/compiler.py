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
    checkFree(lambda name: system.resolve(session, name) is not None,
              freeVariables(nodes, scope), scope, source)


def checkRedeclared(tree, variables, source):
    """
    Refuse the method C{tree} with GemStone's CompileError 1030 when an
    argument or temporary has the name of a variable of its class (an
    instance variable, or on the class side one of Class's own): GemStone
    measured a class-side temporary C{name} refused so (GemTalk/mcp_server
    docs/GemStone_Notes.md).
    """
    for name in (*tree.params, *tree.temps):
        if name in variables:
            raise errors.compileError(f"{name} variable has already been declared", source,
                                      source.find(name, tree.offset), errors.ALREADY_DECLARED)


def freeVariables(nodes, declared):
    """
    C{(name, offset)} of each variable in C{nodes} that neither C{declared}
    nor a block around it declares, in source order.
    """
    found = []
    for node in nodes:
        if isinstance(node, smalltalk.Block):
            found.extend(freeVariables(
                node.statements, declared | set(node.params) | set(node.temps)))
            continue
        if isinstance(node, (smalltalk.Variable, smalltalk.Assignment)) \
                and node.name not in declared:
            found.append((node.name, node.offset))
        found.extend(freeVariables(children(node), declared))
    return tuple(found)


def checkFree(isGlobal, free, scope, source, offset=0):
    """
    Refuse C{source} with a CompileError naming the first of the C{free}
    variables (L{freeVariables}, offsets C{offset} into C{source}) that is
    neither in C{scope} nor a global (C{isGlobal(name)}).
    """
    for name, at in free:
        if name not in scope and not isGlobal(name):
            raise errors.compileError(f"undefined symbol  {name}", source, at + offset,
                                      errors.UNDEFINED_SYMBOL)


def shadowing(nodes, outer):
    """
    C{(offset, text)} of each block argument or temporary in C{nodes} that
    shadows a variable declared around it (C{outer}, then enclosing blocks).
    """
    found = []
    for node in nodes:
        if not isinstance(node, smalltalk.Block):
            found.extend(shadowing(children(node), outer))
            continue
        found.extend((node.offset, f"{name} shadows a variable of the same name")
                     for name in (*node.params, *node.temps) if name in outer)
        found.extend(shadowing(node.statements, outer | set(node.params) | set(node.temps)))
    return found


def warnings(tree):
    """
    C{(offset, text)} of what GemStone's compiler warns about in the method
    C{tree}: a temporary nothing names, and a block's argument or temporary
    that shadows a variable around it.
    """
    named = {node.name for node in smalltalk.iter_nodes(tree)
             if isinstance(node, (smalltalk.Variable, smalltalk.Assignment))}
    return [(tree.offset, f"unused temporary {name}")
            for name in tree.temps if name not in named] + shadowing(
        tree.statements, set(tree.params) | set(tree.temps))


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

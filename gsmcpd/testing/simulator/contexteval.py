"""
Evaluation in a stopped frame, as GemTalk/Jasper does it: the frame's
arguments and temporaries in a new SymbolDictionary, put before the
session's symbol list (C{(SymbolList with: aDictionary) , System
myUserProfile symbolList}), and the expression evaluated with the frame's
receiver as C{self} (C{String>>evaluateInContext:symbolList:}).  An
assignment to such a name writes the dictionary, not the frame.
"""

import attr

from gsmcpd.testing.simulator import compiler
from gsmcpd.testing.simulator.kernel import CLASSES, classMethod, method
from gsmcpd.testing.simulator.objects import Instance, Symbol, SymbolList, UserClass
from gsmcpd.testing.simulator.processes import NotModeled


@attr.s(eq=False)
class FrontedSymbolList(Instance):
    """
    C{(SymbolList with: aDictionary) , System myUserProfile symbolList}: a
    client's transient dictionaries searched before the session's list, as
    Jasper binds a stopped frame's temporaries to evaluate in it.
    """

    dictionaries = attr.ib(factory=list)
    tail = attr.ib(default=None)


@classMethod("SymbolList", "with:")
def _symbolListWith(ev, receiver, dictionary):
    from gsmcpd.testing.simulator.dictionaries import FreeSymbolDictionary
    if not isinstance(dictionary, FreeSymbolDictionary):
        raise NotModeled("the simulated stone makes a SymbolList only of a new SymbolDictionary")
    return FrontedSymbolList(CLASSES["SymbolList"], dictionaries=[dictionary])


@method("SymbolList", ",")
def _symbolListComma(ev, receiver, other):
    if not isinstance(receiver, FrontedSymbolList) or receiver.tail is not None \
            or not isinstance(other, SymbolList):
        raise NotModeled("the simulated stone joins only (SymbolList with: aDictionary) and "
                         "the session's own symbol list")
    return FrontedSymbolList(CLASSES["SymbolList"], dictionaries=receiver.dictionaries,
                             tail=other)


def frontBinding(ev, name, dictionaries=None):
    """
    The first of the dictionaries evaluation in a context searches first
    that binds C{name}, or None.
    """
    for each in ev.front if dictionaries is None else dictionaries:
        if ev.send(each, "includesKey:", (Symbol(name),)):
            return each
    return None


@method("CharacterCollection", "evaluateInContext:symbolList:")
def _evaluateInContext(ev, receiver, context, symbolList):
    """
    Compile and run the receiver as a doit whose C{self} is C{context}, its
    free names found first in C{symbolList}'s own dictionaries; an
    assignment to one of those names writes that dictionary.
    """
    from gsmcpd.testing.simulator import system
    from gsmcpd.testing.simulator.evaluator import Activation
    if not isinstance(symbolList, FrontedSymbolList) or symbolList.tail is None:
        raise NotModeled("the simulated stone evaluates in a context only with a symbol list "
                         "made as (SymbolList with: aDictionary) , the session's own")
    source = receiver.text
    tree = compiler.parseExpression(source)
    variables = {}
    if isinstance(context, Instance) and isinstance(context.cls, UserClass):
        variables = ev.code.variablesOf(context.cls.className, context.cls.meta)
    scope = set(tree.temps) | compiler.PSEUDO_VARIABLES | set(variables)
    front = symbolList.dictionaries
    compiler.checkFree(lambda name: frontBinding(ev, name, front) is not None
                       or system.resolve(ev.session, name) is not None,
                       compiler.freeVariables(tree.statements, scope), scope, source)
    saved, ev.front = ev.front, front
    try:
        return ev.evaluateAs(Activation(context, None, variables, source), tree)
    finally:
        ev.front = saved

"""
What the simulated stone's commits conflict on: the GemStone objects a
write changes, which are coarser than the keys the simulator stores values
under.

GemStone's write-write check intersects the objects one commit changed
with those every commit since its view changed.  GemTalk measured on 3.7.5
(GemTalk/mcp_server C{docs/GemStone_Notes.md}, "Transactions and
conflicts"; C{docs/blind-write-guardrail.md}, "The grain is the class")
that compiling a method changes the class's method dictionary (one per
class and side) and a per-class SymbolSet, so two sessions compiling
different methods of one class cannot both commit.  The rest follows how
GemStone holds each thing, taking the stricter reading where no public
source settles it (C{docs/gemstone-fidelity.rst}):

  - a method (added, replaced or removed): the method dictionary of its
    class's side and the class's SymbolSet (one for both sides);
  - a class (defined, redefined, its comment, a class-instance
    variable's value, its old version's methods): the class itself;
  - a binding added to or removed from a symbol dictionary: the
    dictionary and the binding (the stricter reading: GemStone's removal
    need not change the association); a binding's value replaced: the
    binding alone;
  - the symbol list: the symbol list.

A test double, not GemStone.
"""

from gsmcpd.testing.simulator.objects import (
    MethodDictionary,
    SymbolDictionaryRef,
    SymbolList,
    SymbolSet,
    UserClass,
)


def objectsWritten(key, existed, exists):
    """
    The objects a write of C{key} changes (see L{repository.Repository}).

    @param existed: whether C{key} had a value in the writer's view.
    @param exists: whether it has one after the write.
    """
    kind = key[0]
    if kind == "method":
        _, className, meta, _ = key
        return (("methodDictionary", className, meta), ("selectors", className))
    if kind in ("class", "classInstVar", "classVersionMethods"):
        return (("class", key[1]),)
    if kind == "global" and existed != exists:
        return (("dictionary", key[1]), key)
    if kind == "symbolList":
        return (("symbolList",),)
    return (key,)


def conflictingObject(session, changed):
    """
    The object C{transactionConflicts} answers for one of
    L{objectsWritten}'s: a method dictionary, a SymbolSet, a class, a
    symbol dictionary (for a binding too) or the symbol list.
    """
    kind = changed[0]
    if kind == "methodDictionary":
        return MethodDictionary(changed[1], changed[2])
    if kind == "selectors":
        return SymbolSet(changed[1])
    if kind in ("class", "classVar"):
        return UserClass(changed[1])
    if kind in ("dictionary", "global"):
        return SymbolDictionaryRef(changed[1])
    return SymbolList(session)

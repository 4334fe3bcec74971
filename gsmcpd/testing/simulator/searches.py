"""
The cross-reference index ClassOrganizer's searches read in the simulated
stone: implementors, senders and global references of every method a
session sees, built by one scan of its view.

A kernel-sized repository has 60,000 methods; parsing each for every
search would make one C{find_senders} cost a minute.  The index is built
once per view: shared by every session whose view is the same commit and
that has written nothing (its methods are then the committed ones), else
kept in the session's own transaction, which forgets it at its next write
or view move.  What each source sends and names is parsed once per text.
"""

import functools
import threading
import weakref

import attr

from gsmcpd import smalltalk
from gsmcpd.testing.simulator import compiler

SHARED_VIEWS = 4
"""How many committed views keep their index (the newest ones)."""

_shared = {}
"""C{{id(repository): (weakref to it, {(view, symbol list): MethodIndex})}}:
the weak reference tells a repository from a later one at the same id."""
_lock = threading.Lock()


@attr.s(frozen=True, auto_attribs=True)
class MethodIndex:
    """
    C{{name: [MethodInfo]}} in scan order (dictionary, class, side,
    selector), for each search.
    """

    implementors: dict
    senders: dict
    references: dict


@functools.lru_cache(maxsize=1 << 17)
def sourceFacts(source):
    """
    C{(sent selectors, names read or assigned, names the method or a block
    of it declares)} of a method's source.
    """
    tree = compiler.parseMethod(source)
    names, local = set(), set(tree.params) | set(tree.temps)
    for node in smalltalk.iter_nodes(tree):
        if isinstance(node, (smalltalk.Variable, smalltalk.Assignment)):
            names.add(node.name)
        elif isinstance(node, smalltalk.Block):
            local.update(node.params)
            local.update(node.temps)
    return frozenset(smalltalk.sent_selectors(tree)), frozenset(names), frozenset(local)


def build(code):
    """
    The index of every method C{code} (a session's CodeModel) sees.  A
    global is referenced where the method names it and neither its own
    declarations nor its class's variables hide it.
    """
    implementors, senders, references, hidden = {}, {}, {}, {}
    for info in code.scanMethods():
        sent, names, local = sourceFacts(info.source)
        implementors.setdefault(info.selector, []).append(info)
        for selector in sent:
            senders.setdefault(selector, []).append(info)
        side = (info.className, info.meta)
        if side not in hidden:
            hidden[side] = frozenset(code.variablesOf(*side))
        for name in names - local - hidden[side]:
            references.setdefault(name, []).append(info)
    return MethodIndex(implementors, senders, references)


def indexOf(code):
    """
    The index for C{code}'s session as its view stands.
    """
    transaction = code.session.transaction
    if transaction.writes:
        found = transaction.remembered.get(MethodIndex)
        if found is None:
            found = transaction.remembered[MethodIndex] = build(code)
        return found
    repository = transaction.repository
    key = (transaction.view, tuple(code.symbolList()))
    with _lock:
        owner, views = _shared.get(id(repository), (None, {}))
        if owner is None or owner() is not repository:
            views = {}
            _shared[id(repository)] = (weakref.ref(repository), views)
        found = views.get(key)
    if found is None:
        found = build(code)
        with _lock:
            views[key] = found
            while len(views) > SHARED_VIEWS:
                del views[next(iter(views))]
    return found

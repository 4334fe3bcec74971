"""
Traversal of Smalltalk syntax trees.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from .ast import Cascade, Message, Node


def iter_nodes(node: Node) -> Iterator[Node]:
    """
    Yield C{node} and every node below it, depth first, parents before
    children and siblings in source order.
    """
    yield node
    for field in attrs.fields(type(node)):
        yield from _nodes_in(getattr(node, field.name))


def _nodes_in(value: object) -> Iterator[Node]:
    # Children sit in fields directly or in (nested) tuples: statement
    # lists, cascade and pragma pairs, literal array elements.
    if isinstance(value, Node):
        yield from iter_nodes(value)
    elif isinstance(value, tuple):
        for item in value:
            yield from _nodes_in(item)


def sent_selectors(node: Node) -> set[str]:
    """
    Every selector that C{node}'s code sends, wherever in the tree the send
    is.  Symbols in literals are data and do not count.
    """
    selectors = set()
    for each in iter_nodes(node):
        if isinstance(each, Message):
            selectors.add(each.selector)
        elif isinstance(each, Cascade):
            selectors.update(selector for selector, _ in each.messages)
    return selectors

"""
Parsing GemStone Smalltalk: to check the selectors our templates send, and
to let the simulated stone evaluate a small subset of the language.
"""

from .ast import (
    Assignment,
    Block,
    BraceArray,
    Cascade,
    Literal,
    Message,
    Method,
    Node,
    Return,
    Sequence,
    Variable,
)
from .parser import (
    SmalltalkSyntaxError,
    closing_bracket,
    parse_expression,
    parse_method,
    parse_selector,
)
from .walk import iter_nodes, sent_selectors

__all__ = [
    "Assignment",
    "Block",
    "BraceArray",
    "Cascade",
    "Literal",
    "Message",
    "Method",
    "Node",
    "Return",
    "Sequence",
    "SmalltalkSyntaxError",
    "Variable",
    "closing_bracket",
    "iter_nodes",
    "parse_expression",
    "parse_method",
    "parse_selector",
    "sent_selectors",
]

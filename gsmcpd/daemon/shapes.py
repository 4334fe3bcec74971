"""
The shapes of the answers the daemon reads from the templates it runs on
its own (not as a tool, whose answers have output schemas), for C{gsmcpd
check --templates}: a C{session_state} answering a String must fail there,
not only where the daemon reads it.

A shape is a dict of key to kind (keys the daemon does not read may be
there too), or a kind for the whole answer.  A kind is C{int}, C{bool},
C{str}, L{None}, a one-element list (a list of that kind) or a tuple (any
of its kinds).
"""

import json
from typing import Any

_NAMES = {int: ("an integer", "integers"), bool: ("a boolean", "booleans"),
          str: ("a string", "strings"), None: ("nil", "nils")}


def _kindName(kind: Any, plural: bool = False) -> str:
    if isinstance(kind, tuple):
        return " or ".join(_kindName(each, plural) for each in kind)
    if isinstance(kind, list):
        return f"a list of {_kindName(kind[0], plural=True)}"
    return _NAMES[kind][plural]


def isKind(kind: Any, value: Any) -> bool:
    """
    Whether C{value} (as JSON decoded it) is of C{kind}.
    """
    if isinstance(kind, tuple):
        return any(isKind(each, value) for each in kind)
    if isinstance(kind, list):
        return isinstance(value, list) and all(
            isKind(kind[0], each) for each in value)
    if kind is None:
        return value is None
    if kind is int:
        # JSON's true decodes to a bool, and a bool is an int.
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def mismatch(shape: Any, value: Any) -> str | None:
    """
    How C{value} is not of C{shape}, in one line; L{None} when it is.
    """
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return f"the answer is not a dictionary: {json.dumps(value)[:200]}"
        wrong = [f"{key} is missing" if key not in value else
                 f"{key} is not {_kindName(kind)}: "
                 f"{json.dumps(value[key])[:80]}"
                 for key, kind in shape.items()
                 if key not in value or not isKind(kind, value[key])]
    else:
        wrong = [] if isKind(shape, value) else [
            f"the answer is not {_kindName(shape)}: {json.dumps(value)[:200]}"]
    return "; ".join(wrong) or None


def described(value: Any) -> str:
    """
    An answer's shape, never its values (a one-time password is one).
    """
    if isinstance(value, dict):
        return ", ".join(f"{key} ({_valueKind(value[key])})"
                         for key in sorted(value)) or "an empty dictionary"
    return _valueKind(value)


def _valueKind(value: Any) -> str:
    if isinstance(value, list):
        return f"a list of {len(value)}" if value else "an empty list"
    if isinstance(value, dict):
        return "a dictionary"
    return next((_NAMES[kind][0] for kind in (None, bool, int, str)
                 if isKind(kind, value)), "a number")

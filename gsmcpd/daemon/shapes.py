"""
The shapes of the answers the daemon reads from the templates it runs on
its own (not as a tool, whose answers have output schemas), for C{gsmcpd
check --templates}: a C{session_state} answering a String must fail there,
not only where the daemon reads it.

A shape is a dict of key to kind (keys the daemon does not read may be
there too), or a kind for the whole answer.  A kind is C{int}, C{bool},
C{str}, L{None}, a one-element list (a list of that kind), a tuple (any
of its kinds), a L{Mapping}, or a shape (a dictionary of that shape).
"""

from typing import Any

import attr

_NAMES = {int: ("an integer", "integers"), bool: ("a boolean", "booleans"),
          str: ("a string", "strings"), None: ("nil", "nils")}


@attr.s(frozen=True, auto_attribs=True)
class Mapping:
    """
    A dictionary whose keys the daemon does not know in advance (the kinds
    of a commit's conflicts): at least C{least} entries, each value of
    C{kind}.
    """

    kind: Any
    least: int = 0


def _kindName(kind: Any, plural: bool = False) -> str:
    if isinstance(kind, Mapping):
        some = f"at least {kind.least} " if kind.least else ""
        return f"a dictionary of {some}{_kindName(kind.kind, plural=True)}"
    if isinstance(kind, dict):
        keys = ", ".join(kind)
        return f"dictionaries with {keys}" if plural else \
            f"a dictionary with {keys}"
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
    if isinstance(kind, Mapping):
        return isinstance(value, dict) and len(value) >= kind.least and all(
            isKind(kind.kind, each) for each in value.values())
    if isinstance(kind, dict):
        return mismatch(kind, value) is None
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
    It names kinds only, never values: a wrong answer may still hold a
    secret (a one-time password not in its dictionary).
    """
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return (f"the answer is not a dictionary: it is "
                    f"{_valueKind(value)}")
        wrong = [f"{key} is missing" if key not in value else
                 f"{key} is not {_kindName(kind)}: it is "
                 f"{_valueKind(value[key])}"
                 for key, kind in shape.items()
                 if key not in value or not isKind(kind, value[key])]
    else:
        wrong = [] if isKind(shape, value) else [
            f"the answer is not {_kindName(shape)}: it is "
            f"{_valueKind(value)}"]
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
        return f"a dictionary of {len(value)}" if value else \
            "an empty dictionary"
    return next((_NAMES[kind][0] for kind in (None, bool, int, str)
                 if isKind(kind, value)), "a number")

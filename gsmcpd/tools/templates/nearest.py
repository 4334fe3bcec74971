"""
The nearest names to one not found: a template that cannot find a class,
selector or dictionary answers the names of its kind that could be a slip
of the keyboard away (those within a few characters of its length), and
the message names the nearest of them, so an agent's next call is right.
"""

from collections.abc import Iterable

MAX_NAMED = 3
"""Names the message gives at most."""


def distance(a: str, b: str) -> int:
    """
    The edit distance (insertions, deletions, substitutions) of C{a} and
    C{b}.
    """
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def nearest(name: str, candidates: Iterable[str]) -> list[str]:
    """
    The candidates nearest C{name}, nearest first (ignoring case, then
    exactly; then by name): those at most a third of its length away (1 for
    names under 6 characters, never more than 3), up to L{MAX_NAMED}.
    """
    reach = min(3, max(1, len(name) // 3))
    folded = name.casefold()
    ranked = sorted((distance(folded, each.casefold()), distance(name, each), each)
                    for each in set(candidates) if each != name)
    return [each for far, _, each in ranked if far <= reach][:MAX_NAMED]


def withNearest(message: str, name: str, candidates: Iterable[str]) -> str:
    """
    C{message}, naming the nearest of C{candidates} to C{name} if any are
    near.
    """
    found = nearest(name, candidates)
    if not found:
        return message
    return f"{message} Nearest: {', '.join(found)}."

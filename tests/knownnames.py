"""
Checking Smalltalk source against the names a real stone is known to have:
the tests' own tool (the daemon never checks a source this way).

The daemon's templates run on GemStone 3.7, where a misspelt or Pharo-only
selector is a C{doesNotUnderstand} at run time, and nothing before that
notices.  C{tests/selectors/*.tsv} list the selectors and globals
read in public GemStone sources; these functions compare a source with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from gsmcpd.smalltalk import (
    Assignment,
    Block,
    Method,
    Node,
    Sequence,
    Variable,
    iter_nodes,
    parse_expression,
    sent_selectors,
)

KINDS = frozenset({"selector", "global"})


class KnownName(NamedTuple):
    """
    One line of the known-names file: a name, where it lives, and the public
    source it was read in.
    """

    kind: str
    name: str
    where: str
    source: str


def readEntries(path: str | Path) -> Iterator[KnownName]:
    """
    Read the known-names TSV, refusing a malformed line rather than skipping
    it, so a bad edit cannot silently drop names from the check.

    @raise ValueError: naming the line number, for a line without exactly
        four non-empty tab-separated fields or with an unknown kind.
    """
    text = Path(path).read_text("utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 4 or not all(field.strip() for field in fields):
            raise ValueError(
                f"{path}:{number}: want 4 non-empty tab-separated fields")
        if fields[0] not in KINDS:
            raise ValueError(f"{path}:{number}: unknown kind {fields[0]!r}")
        yield KnownName(*fields)


def loadKnownNames(*paths: str | Path) -> tuple[frozenset[str], frozenset[str]]:
    """
    The known selectors and the known globals listed in C{paths}.
    """
    selectors: set[str] = set()
    globals_: set[str] = set()
    for entry in (e for path in paths for e in readEntries(path)):
        (selectors if entry.kind == "selector" else globals_).add(entry.name)
    return frozenset(selectors), frozenset(globals_)


def declaredNames(tree: Node) -> set[str]:
    """
    Every temporary, argument and block parameter declared anywhere in
    C{tree}.

    Scopes are flattened: a capitalised temporary of one block then counts
    as declared in another.  Templates never do that, and the price is only
    a missed report, never a false one.
    """
    names: set[str] = set()
    for node in iter_nodes(tree):
        if isinstance(node, (Sequence, Method)):
            names.update(node.temps)
        if isinstance(node, (Block, Method)):
            names.update(node.params)
        if isinstance(node, Block):
            names.update(node.temps)
    return names


def referencedGlobals(tree: Node) -> set[str]:
    """
    The capitalised variables C{tree} reads or assigns without declaring:
    the globals it needs the stone to have.
    """
    declared = declaredNames(tree)
    used: set[str] = set()
    for node in iter_nodes(tree):
        if isinstance(node, (Variable, Assignment)) and node.name[:1].isupper():
            used.add(node.name)
    return used - declared


def unknownNames(source: str, knownSelectors: Iterable[str],
                 knownGlobals: Iterable[str]) -> tuple[set[str], set[str]]:
    """
    The selectors C{source} sends and the globals it names that are not
    known.  Undeclared lowercase variables are taken to be arguments that
    a template is filled with, so they are not reported.

    @return: C{(unknown selectors, unknown globals)}.
    @raise SmalltalkSyntaxError: if C{source} does not parse.
    """
    tree = parse_expression(source)
    return (sent_selectors(tree) - set(knownSelectors),
            referencedGlobals(tree) - set(knownGlobals))

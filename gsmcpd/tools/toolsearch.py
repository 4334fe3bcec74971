"""
Finding a tool by the words an agent would use for what it wants done.

A tool's words are those of its name, title and description; a query word
also matches its synonyms (an agent asks to "delete" what GemStone tools
"remove"), so a tool from any toolset, ours or an operator's, is found
without keywords of its own.
"""

import re
from collections.abc import Iterable

import attr

from gsmcpd.tools.base import Tool

SYNONYMS = (
    ("remove", "delete", "drop", "erase", "destroy", "unload"),
    ("add", "create", "new", "make", "define", "declare", "install"),
    ("compile", "save", "write", "edit", "change", "modify", "update",
     "replace", "set", "put", "fix", "patch"),
    ("get", "show", "read", "fetch", "view", "display", "source", "code"),
    ("describe", "inspect", "explain", "info", "details", "definition"),
    ("find", "search", "lookup", "locate", "grep", "query", "where", "who"),
    ("list", "browse", "enumerate", "all", "entries", "contents"),
    ("execute", "run", "evaluate", "eval", "doit", "print", "call", "invoke"),
    ("senders", "callers", "uses", "usages", "references"),
    ("implementors", "implementations", "implementers", "definitions"),
    ("test", "tests", "sunit", "testcase", "spec"),
    ("failure", "failing", "failed", "error", "errors", "broken"),
    ("commit", "persist", "keep", "store"),
    ("abort", "discard", "rollback", "revert", "undo", "cancel"),
    ("refresh", "sync", "reload", "latest", "newest"),
    ("status", "state", "session", "user", "version", "whoami"),
    ("dictionary", "namespace", "symbol", "global", "globals", "package"),
    ("class", "classes", "type", "hierarchy", "superclass", "subclass"),
    ("method", "methods", "selector", "message"),
    ("comment", "documentation", "doc", "docs"),
    ("export", "fileout", "dump"),
    ("profile", "profiler", "slow", "performance", "timing", "time",
     "speed", "hotspot", "samples"),
    ("stack", "frames", "backtrace", "traceback", "debug", "debugger"),
    ("stone", "server", "repository", "database", "cache", "backlog"),
)
"""Groups of words an agent uses for one thing."""

STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i if in is it its me "
    "my of on or so that the this to what when why with you your".split())
"""Words that say nothing of what a tool does."""

_WORD = re.compile(r"[a-z0-9]+")

NAME, TITLE, DESCRIPTION = 3, 2, 1
"""How much a word counts where it is found; twice as much when it is the
word asked, not one of its synonyms (so "inspect" finds C{inspect} before
the C{describe_} tools)."""


def stem(word: str) -> str:
    """
    A word without its plural or verb ending, so "dictionaries" meets
    "dictionary" and "senders" meets "sender".
    """
    if word.endswith("ss"):
        return word
    for ending, replacement in (("ies", "y"), ("sses", "ss"), ("ing", ""),
                                ("s", ""), ("ed", "")):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[:-len(ending)] + replacement
    return word


def wordsOf(text: str) -> set[str]:
    return {stem(word) for word in _WORD.findall(text.lower())}


_EQUIVALENTS: dict[str, set[str]] = {}
for _group in SYNONYMS:
    for _word in _group:
        _EQUIVALENTS.setdefault(stem(_word), set()).update(
            stem(each) for each in _group)


def equivalents(word: str) -> set[str]:
    """C{word} (stemmed) and every word meaning the same."""
    word = stem(word.lower())
    return _EQUIVALENTS.get(word, set()) | {word}


@attr.s(frozen=True, auto_attribs=True)
class Hit:
    tool: Tool
    score: int
    matched: int
    """How many of the query's words it matched."""


def searchTools(tools: Iterable[Tool], query: str) -> list[Hit]:
    """
    The tools matching any word of C{query}, best first: those matching
    more of its words, then those matching in their names and titles
    rather than their descriptions, then by name.
    """
    asked = [(stem(word), equivalents(word))
             for word in _WORD.findall(query.lower())
             if word not in STOPWORDS]
    hits = []
    for tool in tools:
        places = ((wordsOf(tool.name.replace("_", " ")), NAME),
                  (wordsOf(tool.title), TITLE),
                  (wordsOf(tool.description), DESCRIPTION))
        score = matched = 0
        for word, meanings in asked:
            weight = max((w * (2 if word in words else 1)
                          for words, w in places if words & meanings),
                         default=0)
            score += weight
            matched += bool(weight)
        if matched:
            hits.append(Hit(tool, score, matched))
    hits.sort(key=lambda hit: (-hit.matched, -hit.score, hit.tool.name))
    return hits

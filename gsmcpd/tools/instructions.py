"""
The server's instructions for the model, assembled from the toolsets served
(so they never name a tool the client cannot call) for each era: the 2026
one's starts with C{open_session}.  An operator's file replaces both
(L{gsmcpd.daemon.served}).  The compact catalog surface
(L{gsmcpd.tools.catalogtools}) adds how to reach what is not listed.
"""

from collections.abc import Iterable

from gsmcpd.tools.base import NO_SESSION, Toolset
from gsmcpd.tools.catalog import unservedToolsets

OUTPUT_RULE = (
    "A structured result holds exactly the properties its output schema "
    "lists (null where one does not apply).")
"""Said once here, not in every output schema every session reads first."""

LIMITS = (
    OUTPUT_RULE
    + " A value or source over 50,000 characters is truncated, with a marker."
    " A list's limit 0 answers only its count; its page holds offset, limit,"
    " total (null if unknown, then atLeast) and nextOffset (null at the "
    "end). A method in a result holds className, meta (class side), "
    "selector and category.")
"""Said here, not in each output schema (L{gsmcpd.tools.catalog.SAID_ONCE})."""

PREAMBLE = (
    "This server works inside a GemStone/S 64 Smalltalk repository. Your MCP "
    "session has its own GemStone session, transaction and consistent view: "
    "your changes are there for your next calls, and for others once "
    "committed. Names resolve through its symbol list. "
    + LIMITS)
"""The 2025 era's first paragraph."""

MODERN_PREAMBLE = (
    "Call open_session first, and pass the handle it answers as the "
    "'session' argument of every GemStone tool: that session has its own "
    "transaction and view, so your changes are there for your next calls, "
    "and for others once committed; close_session when done. A call "
    "without a handle runs in a throwaway session that sees the newest "
    "commit and is logged out after it: nothing it left (SessionTemps "
    "included) reaches another call (a tool whose point is a lasting change "
    "refuses). Names resolve through your session's symbol list "
    "(GemStone/S 64 Smalltalk). " + LIMITS)
"""The 2026-07-28 era's, when a served tool runs on GemStone."""

DETACHED_PREAMBLE = (
    "This server's tools answer without a GemStone session. " + LIMITS)
"""The 2026-07-28 era's, when no C{open_session} is offered."""

UNSERVED = "Not served here: {} (an operator adds one to --toolsets)."
"""The last line: what an agent could ask its operator for."""


def stockInstructions(toolsets: Iterable[Toolset], modern: bool = False,
                      withheld: Iterable[str] = ()) -> str:
    """
    @param withheld: toolsets no operator could add here (under
        C{--read-only}, C{mutation}): left out of the last line.
    """
    if not modern:
        preamble = PREAMBLE
    elif any(tool.runsOn != NO_SESSION for toolset in toolsets
             for tool in toolset.tools()):
        preamble = MODERN_PREAMBLE
    else:
        preamble = DETACHED_PREAMBLE
    paragraphs = [preamble] + [toolset.instructions for toolset in toolsets
                               if toolset.instructions]
    unserved = unservedToolsets({*withheld,
                                 *(toolset.name for toolset in toolsets)})
    if unserved:
        paragraphs.append(UNSERVED.format(", ".join(unserved)))
    return "\n\n".join(paragraphs)


CATALOG_PARAGRAPH = (
    "tools/list shows an everyday set. Find any other served tool (define "
    "and remove classes, methods, dictionaries; listings; searches; test "
    "failures) with tool_search; tool_get describes one; call it by name or "
    "via tool_call.")


def catalogInstructions(toolsets: Iterable[Toolset], modern: bool = False,
                        withheld: Iterable[str] = ()) -> str:
    """The era's stock instructions, then how to find what is not listed."""
    return "\n\n".join([stockInstructions(toolsets, modern, withheld),
                        CATALOG_PARAGRAPH])

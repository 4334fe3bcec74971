"""
The server's instructions: the hint C{initialize} gives the model.

The stock text is assembled from the toolsets actually served, so it never
names a tool the client cannot call.  An operator's file replaces it; an
empty file sends none.
"""

MAX_INSTRUCTIONS = 32_768
"""Characters; a longer text is refused at startup, where it can be fixed."""

OUTPUT_RULE = (
    "A structured result holds exactly the properties its output schema "
    "lists (null where one does not apply).")
"""Said once here rather than as C{required} and C{additionalProperties} in
every output schema: every session reads them all before any work."""

PREAMBLE = (
    "This server works inside a GemStone/S 64 Smalltalk repository. Your MCP "
    "session has its own GemStone session, with its own transaction and "
    "consistent view: your changes are there for your next calls, and for "
    "other clients once committed. Names resolve through its symbol list. "
    + OUTPUT_RULE
    + " A value or source over 50,000 characters is truncated, with a marker.")


def stockInstructions(toolsets):
    """
    The preamble, then each served toolset's paragraph, in order.
    """
    paragraphs = [PREAMBLE] + [toolset.instructions for toolset in toolsets
                               if toolset.instructions]
    return "\n\n".join(paragraphs)


def readInstructions(path):
    """
    An operator's instructions file: its text, or L{None} when it is empty.

    @raise ValueError: when it cannot be read or is too long.
    """
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{path!r}: {e}")
    if len(text) > MAX_INSTRUCTIONS:
        raise ValueError(f"{path!r} holds {len(text)} characters; the limit "
                         f"is {MAX_INSTRUCTIONS}")
    return text or None

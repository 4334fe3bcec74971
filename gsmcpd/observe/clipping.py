"""
Values a client chose, made fit for a log line.

A client picks its request ids, its C{clientInfo}, its cancel reasons and
much else the daemon logs; a megabyte of any of them must not become a
megabyte of log.
"""

CLIPPED_LENGTH = 200
"""Characters of a client-supplied value a log line keeps."""


def clipped(value: object, limit: int = CLIPPED_LENGTH) -> str:
    """
    C{repr(value)} (or a string as it is), cut to C{limit} characters with
    a note of how many were dropped.
    """
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"

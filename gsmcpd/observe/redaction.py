"""
What the message trace strikes from a message before it writes it:
secret-like fields' values and session handles, in a body that parses
(L{redacted}) and in one that does not (L{redactedText}), and every form a
header may carry a handle in (L{handleForms}).

A body that does not parse is redacted by the key names in its text,
whatever the damage around them: the value after any secret-like word is
struck up to where it could end (a closing quote, the bracket that closes
it, the next quote or line), so a doubt strikes more, never less.
"""

import base64
import binascii
import re
from collections.abc import Iterable
from typing import overload

REDACTED = "[redacted]"
SECRET_KEY = re.compile(
    r"pass(word|wd|phrase)?s?$|^pwd$|^pin$|secret|(?<!progress)tokens?$|"
    r"^otps?$|one.?time|authorization|api.?key|private.?key|credential|"
    r"bearer|cookie", re.IGNORECASE)
"""Field names whose values are never traced (plurals too: a list of
them)."""
HANDLE_KEYS = frozenset({"session"})
"""Fields holding a session handle, traced as its prefix."""
HANDLE_PREFIX = 8
"""As L{gsmcpd.sessions.work.WorkSession.label}: not enough to use it."""

_WORD = re.compile(r"(?:[\w.\-\ufffd]|\\+u[0-9a-fA-F]{4})+")
"""A key's name in damaged text, quoted or not, its escapes (escaped
again, as in a JSON text inside a string) and bytes that were not UTF-8
(read as U+FFFD, dropped from the name) included."""
_ESCAPE = re.compile(r"\\+u([0-9a-fA-F]{4})")
_BEFORE_VALUE = re.compile(r"""(?:\\+[nrt]|[\s"'\\:=])*""")
"""What may stand between a key and its value: quotes and space (escaped
too), a colon or an equals sign."""
_QUOTES = "\"'"
_BARE_END = re.compile(r"""["'\n]""")
_URL_SAFE = str.maketrans("-_", "+/")
_WRAPPED = re.compile(r"=\?base64\?(.*)\?=\Z", re.IGNORECASE | re.DOTALL)


@overload
def prefixed(handle: str) -> str: ...


@overload
def prefixed(handle: object) -> object: ...


def prefixed(handle: object) -> object:
    """
    A session handle as logs name it: its first characters, too few to
    use it.
    """
    if isinstance(handle, str) and len(handle) > HANDLE_PREFIX:
        return handle[:HANDLE_PREFIX] + "…"
    return redacted(handle)


def redacted(value: object) -> object:
    """
    C{value} with every password-like field's value replaced and every
    session handle cut to its prefix, at any depth.
    """
    if isinstance(value, dict):
        return {key: REDACTED if SECRET_KEY.search(key) and value[key]
                else prefixed(value[key]) if key in HANDLE_KEYS
                else redacted(value[key]) for key in value}
    if isinstance(value, list):
        return [redacted(each) for each in value]
    return value


def redactedText(text: str) -> str:
    """
    C{text}, which need not be JSON, with the value after every secret-like
    word struck and the value after every C{session} word cut to its
    prefix.
    """
    kept: list[str] = []
    position = 0
    for word in _WORD.finditer(text):
        if word.start() < position:
            continue
        name = _ESCAPE.sub(lambda e: chr(int(e.group(1), 16)),
                           word.group()).replace("\ufffd", "")
        handle = name in HANDLE_KEYS
        if not (handle or SECRET_KEY.search(name)):
            continue
        gap = _BEFORE_VALUE.match(text, word.end())
        assert gap is not None  # it matches nothing too
        start = gap.end()
        end = _valueEnd(text, start)
        if end == start:
            continue
        value = text[start:end]
        kept += [text[position:start],
                 prefixed(value) if handle and _quoted(text, start)
                 else REDACTED]
        position = end
    kept.append(text[position:])
    return "".join(kept)


def _quoted(text: str, start: int) -> bool:
    return start > 0 and text[start - 1] in _QUOTES


def _valueEnd(text: str, start: int) -> int:
    """
    Where the value starting at C{start} ends, at the latest: its closing
    quote, the bracket closing it, or the next quote or line.
    """
    if start >= len(text):
        return start
    if text[start] in "{[":
        return _bracketEnd(text, start)
    if _quoted(text, start):
        return _stringEnd(text, start, text[start - 1])
    bare = _BARE_END.search(text, start)
    return len(text) if bare is None else bare.start()


def _stringEnd(text: str, start: int, quote: str) -> int:
    index = start
    while index < len(text):
        if text[index] == "\\":
            index += 2
        elif text[index] == quote:
            return index
        else:
            index += 1
    return len(text)


def _bracketEnd(text: str, start: int) -> int:
    depth, index = 0, start
    while index < len(text):
        char = text[index]
        if char in _QUOTES:
            index = _stringEnd(text, index + 1, char)
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if not depth:
                return index + 1
        index += 1
    return len(text)


def handleForms(header: str | None) -> tuple[str | None, tuple[str, ...]]:
    """
    The handle a session header names, and every form it may take in a
    body or a header: as sent, unwrapped from C{=?base64?...?=} (or
    decoded from bare base64 that reads as text), and base64 (standard or
    URL-safe, padded or not) of each.

    @return: C{(handle, forms)}, the handle as logs cut it and the forms
        to strike, longest first; C{(None, ())} for no header.
    """
    if not header:
        return None, ()
    handle, plain = header, {header}
    wrapped = _WRAPPED.match(header.strip())
    if wrapped is not None:
        decoded = _unbase64(wrapped.group(1))
        if decoded:
            handle = decoded
            plain.add(decoded)
    else:
        # Base64 without the wrapping, perhaps: strike what it says too.
        decoded = _unbase64(header)
        if decoded and decoded.isprintable() and \
                len(decoded) > HANDLE_PREFIX:
            plain.add(decoded)
    if len(handle) <= HANDLE_PREFIX:
        # Shown whole anyway: nothing to strike.
        return handle, ()
    forms = set(plain)
    for each in plain:
        raw = each.encode("utf-8")
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(raw).decode("ascii")
            forms |= {encoded, encoded.rstrip("=")}
    forms.discard("")
    return handle, tuple(sorted(forms, key=len, reverse=True))


def _unbase64(payload: str) -> str | None:
    """
    Base64 text (either alphabet, padded or not, spaced) decoded to
    text, or L{None}.
    """
    payload = re.sub(r"\s", "", payload).rstrip("=").translate(_URL_SAFE)
    try:
        return base64.b64decode(payload + "=" * (-len(payload) % 4),
                                validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def struck(text: str, handle: str, forms: Iterable[str]) -> str:
    """
    C{text} with every form of a handle (L{handleForms}) replaced by the
    handle's prefix.
    """
    for form in forms:
        text = text.replace(form, prefixed(handle))
    return text

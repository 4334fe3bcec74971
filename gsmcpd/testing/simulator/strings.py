"""
Strings and Symbols for the simulated stone's kernel: CharacterCollection's
protocol (case, conversion, search, comparison, splitting) and String's
instance creation.
"""

import re

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import (
    classMethod,
    classOf,
    index,
    integer,
    method,
    text,
)
from gsmcpd.testing.simulator.objects import (
    Array,
    Character,
    String,
    Symbol,
    Utf8,
    string,
)
from gsmcpd.testing.simulator.sequences import elements


@classMethod("String", "new", "new:")
def _stringNew(ev, receiver, size=0):
    return String(" " * integer(size))


@classMethod("String", "with:")
def _stringWith(ev, receiver, character):
    if not isinstance(character, Character):
        raise errors.messageNotUnderstood(classOf(character).name, "asCharacter")
    return String(character.char)


@method("CharacterCollection", "asUppercase")
def _asUppercase(ev, receiver):
    return type(receiver)(receiver.text.upper())


@method("CharacterCollection", "asLowercase")
def _asLowercase(ev, receiver):
    return type(receiver)(receiver.text.lower())


@method("CharacterCollection", "asSymbol")
def _asSymbol(ev, receiver):
    return Symbol(receiver.text)


@method("CharacterCollection", "asString")
def _asString(ev, receiver):
    """
    A String; a Unicode string narrows to one when its characters allow
    (measured on 3.7.x: GemTalk/mcp_server docs/GemStone_Notes.md).
    """
    return string(receiver.text)


_NUMBER = re.compile(r"\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)")
_INTEGER = re.compile(r"\s*(-?\d+)")


@method("CharacterCollection", "asNumber")
def _asNumber(ev, receiver):
    """
    The number the text starts with, or nil: GemStone's conversions stop
    at the first character that cannot continue the number (measured on
    3.7: C{'1-2' asInteger} answers 1, GemTalk/mcp_server
    docs/GemStone_Notes.md).
    """
    found = _NUMBER.match(receiver.text)
    if found is None:
        return None
    digits = found.group(1)
    return float(digits) if "." in digits or "e" in digits else int(digits)


@method("CharacterCollection", "asInteger")
def _asInteger(ev, receiver):
    found = _INTEGER.match(receiver.text)
    return None if found is None else int(found.group(1))


@method("CharacterCollection", "trimSeparators")
def _trimSeparators(ev, receiver):
    return String(receiver.text.strip())


@method("CharacterCollection", "subStrings")
def _subStrings(ev, receiver):
    return Array([String(part) for part in receiver.text.split()])


@method("CharacterCollection", "subStrings:")
def _subStringsSeparators(ev, receiver, separators):
    """
    The pieces between any of C{separators}' characters (a String, or one
    Character), empty pieces left out.
    """
    marks = separators.char if isinstance(separators, Character) else text(separators)
    pieces, current = [], []
    for c in receiver.text:
        if c in marks:
            pieces.append("".join(current))
            current = []
        else:
            current.append(c)
    pieces.append("".join(current))
    return Array([String(piece) for piece in pieces if piece])


@method("CharacterCollection", "includesString:")
def _includesString(ev, receiver, other):
    """
    Whether C{other} occurs in the text, ignoring case (measured on 3.7:
    GemTalk/mcp_server docs/GemStone_Notes.md).
    """
    return text(other).lower() in receiver.text.lower()


@method("CharacterCollection", "beginsWith:")
def _beginsWith(ev, receiver, prefix):
    return text(receiver).startswith(text(prefix))


@method("CharacterCollection", "endsWith:")
def _endsWith(ev, receiver, suffix):
    return text(receiver).endswith(text(suffix))


@method("CharacterCollection", "join:")
def _join(ev, receiver, strings):
    """
    The strings of C{strings} with the receiver between each two.
    """
    return String(text(receiver).join(text(each) for each in elements(strings)))


@method("CharacterCollection", "copyReplaceAll:with:")
def _copyReplaceAll(ev, receiver, old, new):
    return string(receiver.text.replace(text(old), text(new)))


@method("CharacterCollection", "evaluate")
def _evaluate(ev, receiver):
    return ev.evaluate(receiver.text)


def _compareText(selector, operation):
    """
    C{<} and its kin collate as an image may: ignoring case, while C{=}
    stays exact, so two names that differ only in case are neither before
    nor after each other (the stricter reading: a template must not sort
    by them alone).
    """
    @method("CharacterCollection", selector)
    def compare(ev, receiver, other):
        return operation(receiver.text.lower(), text(other).lower())
    return compare


_compareText("<", lambda a, b: a < b)
_compareText(">", lambda a, b: a > b)
_compareText("<=", lambda a, b: a <= b)
_compareText(">=", lambda a, b: a >= b)


@method("CharacterCollection", "findString:startingAt:")
def _findStringStartingAt(ev, receiver, other, start):
    return receiver.text.find(text(other), index(start, len(receiver.text) + 1)) + 1


@method("CharacterCollection", "encodeAsUTF8")
def _encodeAsUTF8(ev, receiver):
    return Utf8(receiver.text.encode("utf-8"))


@method("ByteArray", "decodeFromUTF8")
def _decodeFromUTF8(ev, receiver):
    try:
        return string(receiver.data.decode("utf-8"))
    except UnicodeDecodeError:
        raise errors.argumentTypeError("decodeFromUTF8") from None

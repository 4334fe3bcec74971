"""
WriteStream for the simulated stone's kernel: C{WriteStream on: String new}
and what writes to it.
"""

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import classMethod, classOf, method, text
from gsmcpd.testing.simulator.objects import (
    Character, String, Symbol, WriteStream, printString, string)


@classMethod("WriteStream", "on:")
def _on(ev, receiver, collection):
    if not isinstance(collection, (String, Symbol)):
        raise errors.argumentTypeError("on:")
    return WriteStream([])


@method("WriteStream", "nextPutAll:")
def _nextPutAll(ev, receiver, collection):
    receiver.parts.append(text(collection))
    return collection


@method("WriteStream", "nextPut:")
def _nextPut(ev, receiver, character):
    if not isinstance(character, Character):
        raise errors.messageNotUnderstood(classOf(character).name, "asCharacter")
    receiver.parts.append(character.char)
    return character


@method("WriteStream", "print:")
def _print(ev, receiver, value):
    receiver.parts.append(printString(value))
    return receiver


@method("WriteStream", "contents")
def _contents(ev, receiver):
    return string("".join(receiver.parts))

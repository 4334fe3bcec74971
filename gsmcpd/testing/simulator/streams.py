"""
Streams for the simulated stone's kernel: ReadStream, WriteStream and
ReadWriteStream over a String or an Array.

A stream holds what it streams over as pieces (Python strings for a String,
elements for an Array) and a read position; writing appends at the end (a
WriteStream made with C{on:} starts empty), reading moves the position.
"""

import attr

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import (
    CLASSES,
    classMethod,
    classOf,
    integer,
    method,
    text,
)
from gsmcpd.testing.simulator.objects import (
    Array,
    Character,
    Instance,
    String,
    Symbol,
    displayString,
    printString,
    string,
)


@attr.s(eq=False)
class PositionableStream(Instance):
    """
    A stream (its C{cls} says which kind); C{isString} when it streams over
    characters, C{pieces} what it holds, C{position} how far it has read.
    """

    isString = attr.ib(default=True)
    pieces = attr.ib(factory=list)
    position = attr.ib(default=0)

    def held(self):
        """
        Everything it holds: one str, or a list of elements.
        """
        if self.isString:
            if len(self.pieces) > 1:
                self.pieces[:] = ["".join(self.pieces)]
            return self.pieces[0] if self.pieces else ""
        return self.pieces

    def write(self, piece):
        if self.isString:
            self.pieces.append(piece)
        else:
            self.pieces.extend(Character(c) for c in piece)


def _stream(kind, collection, selector):
    if isinstance(collection, (String, Symbol)):
        return PositionableStream(CLASSES[kind], isString=True, pieces=[collection.text])
    if isinstance(collection, Array):
        return PositionableStream(CLASSES[kind], isString=False, pieces=list(collection.items))
    raise errors.argumentTypeError(selector)


def _element(stream, i):
    held = stream.held()
    return Character(held[i]) if stream.isString else held[i]


def _size(stream):
    return len(stream.held())


@classMethod("ReadStream", "on:")
def _readOn(ev, receiver, collection):
    return _stream("ReadStream", collection, "on:")


@method("SequenceableCollection", "readStream")
def _readStream(ev, receiver):
    """
    Over a String or an Array; the model streams over nothing else, and
    says so as it says of a selector it lacks.
    """
    if not isinstance(receiver, (String, Symbol, Array)):
        raise errors.messageNotUnderstood(classOf(receiver).name, "readStream")
    return _stream("ReadStream", receiver, "readStream")


@classMethod("WriteStream", "on:")
@classMethod("ReadWriteStream", "on:")
def _writeOn(ev, receiver, collection):
    made = _stream(receiver.name, collection, "on:")
    made.pieces.clear()
    return made


def _readable(*selectors):
    def register(function):
        method("ReadStream", *selectors)(function)
        method("ReadWriteStream", *selectors)(function)
        return function
    return register


@_readable("next")
def _next(ev, receiver):
    if receiver.position >= _size(receiver):
        # Past the end: an error (public sources do not settle whether
        # GemStone answers nil; the stricter reading, docs/gemstone-fidelity.rst).
        raise errors.offsetError(_size(receiver), receiver.position + 1)
    receiver.position += 1
    return _element(receiver, receiver.position - 1)


@_readable("next:")
def _nextCount(ev, receiver, count):
    end = receiver.position + integer(count)
    if end > _size(receiver):
        raise errors.offsetError(_size(receiver), end)
    taken = [_element(receiver, i) for i in range(receiver.position, end)]
    receiver.position = end
    return _like(receiver, taken)


@_readable("peek")
def _peek(ev, receiver):
    if receiver.position >= _size(receiver):
        return None
    return _element(receiver, receiver.position)


@_readable("atEnd")
def _atEnd(ev, receiver):
    return receiver.position >= _size(receiver)


@_readable("skip:")
def _skip(ev, receiver, count):
    receiver.position = max(0, min(_size(receiver), receiver.position + integer(count)))
    return receiver


@_readable("upTo:")
def _upTo(ev, receiver, value):
    taken = []
    while receiver.position < _size(receiver):
        each = _element(receiver, receiver.position)
        receiver.position += 1
        if ev.send(each, "=", [value]) is True:
            break
        taken.append(each)
    return _like(receiver, taken)


@_readable("upToEnd")
def _upToEnd(ev, receiver):
    taken = [_element(receiver, i) for i in range(receiver.position, _size(receiver))]
    receiver.position = _size(receiver)
    return _like(receiver, taken)


@method("PositionableStream", "position")
def _position(ev, receiver):
    return receiver.position


@method("PositionableStream", "reset")
def _reset(ev, receiver):
    receiver.position = 0
    return receiver


@method("WriteStream", "contents")
@method("PositionableStream", "contents")
def _contents(ev, receiver):
    return _like(receiver, [_element(receiver, i) for i in range(_size(receiver))])


def _like(stream, elements):
    if stream.isString:
        return string("".join(each.char for each in elements))
    return Array(list(elements))


@method("WriteStream", "nextPutAll:")
def _nextPutAll(ev, receiver, collection):
    if receiver.isString:
        receiver.write(text(collection))
    elif isinstance(collection, Array):
        receiver.pieces.extend(collection.items)
    else:
        receiver.write(text(collection))
    return collection


@method("WriteStream", "nextPut:")
def _nextPut(ev, receiver, value):
    if not receiver.isString:
        receiver.pieces.append(value)
        return value
    if not isinstance(value, Character):
        raise errors.messageNotUnderstood(classOf(value).name, "asCharacter")
    receiver.write(value.char)
    return value


@method("WriteStream", "print:")
def _print(ev, receiver, value):
    receiver.write(printString(value))
    return receiver


@method("WriteStream", "<<")
def _shift(ev, receiver, value):
    receiver.write(displayString(value))
    return receiver


def _character(selector, char):
    @method("WriteStream", selector)
    def put(ev, receiver):
        receiver.write(char)
        return receiver
    return put


_character("cr", "\r")
_character("lf", "\n")
_character("tab", "\t")
_character("space", " ")


# ------------------------------------------------------------- Transcript

@method("TranscriptStreamPortable", "show:", "nextPutAll:")
def _show(ev, receiver, value):
    """
    C{Transcript} (an instance, in the model's reading) writes where
    GemStone writes it over GCI, the gem's log, which the simulated stone
    does not keep: the text is checked and dropped, and the answer is the
    receiver.
    """
    text(value)
    return receiver


@method("TranscriptStreamPortable", "cr")
def _cr(ev, receiver):
    return receiver


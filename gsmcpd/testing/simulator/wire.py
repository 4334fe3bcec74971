"""
The simulated stone's wire format, shared by C{fakegcits.c} and the
simulator process.

The fake libgcits and the simulator talk over a Unix stream socket whose path
is the NRS passed to C{GciTsLogin}.  Every message is a I{frame}::

    frame   = length:uint32-big-endian  payload[length]
    request = opcode:uint8  field*
    reply   = status:uint8  field*          (status 0 ok, 1 error)
    field   = length:uint32-big-endian  bytes[length]

Numbers travel as decimal ASCII fields.  Requests and their replies:

    LOGIN       hostUser hostPassword gemServiceNrs gsUser gsPassword loginFlags
                -> ok(sessionNumber [warningNumber warningMessage])
                 | error(number fatal message reason)
    LOGOUT      -> ok()
    EXECUTE     sourceBytes sourceOop [flags]
                -> ok(resultBytes resultOop) | error(number fatal message reason contextOop)
    CONTINUE    processOop flags
                -> ok(resultBytes resultOop) | error(number fatal message reason contextOop)
    BREAK       hard("0"|"1")                       (no reply)
    CLEARSTACK  processOop -> ok() | error(number fatal message reason contextOop)
    RESOLVE     name -> ok(oop) | error(number fatal message reason contextOop)
    CONTROL     jsonDocument -> ok(jsonDocument) | error(number fatal message reason)

C{sourceOop} is the class the source bytes are an instance of, an OOP that
RESOLVE answered (String: 8-bit characters; Utf8: UTF-8).  C{flags} are
GciTsExecute's: with the debug and interpreted ones the run can stop, and
its error's context is the stopped GsProcess, which CONTINUE resumes and
CLEARSTACK ends (L{gsmcpd.testing.simulator.debugging}).  OOPs are the
simulated stone's own, never GemStone's, so a client that hard-codes one
fails here.

A connection whose first request is LOGIN is one session's gem: it carries
that session's calls until LOGOUT or until the gem dies (the connection
closes).  BREAK frames arrive on the same connection while an EXECUTE is
running.  A connection whose first request is CONTROL carries only CONTROL
requests; it is the tests' back door and never exists against a real stone.
"""

import struct

LOGIN = 1
LOGOUT = 2
EXECUTE = 3
BREAK = 4
CLEARSTACK = 5
CONTROL = 6
RESOLVE = 7
CONTINUE = 8

OK = 0
ERROR = 1

MAX_FRAME = 256 * 1024 * 1024

_LENGTH = struct.Struct(">I")


class ConnectionClosed(Exception):
    """
    The peer closed the connection (or sent a frame we cannot read).
    """


def encodeFields(lead, fields):
    """
    One frame: the C{lead} byte (opcode or status), then each field.
    """
    parts = [bytes([lead])]
    for field in fields:
        if isinstance(field, str):
            field = field.encode("utf-8")
        elif isinstance(field, int):
            field = str(field).encode("ascii")
        parts.append(_LENGTH.pack(len(field)) + field)
    payload = b"".join(parts)
    return _LENGTH.pack(len(payload)) + payload


def decodeFields(payload):
    """
    Split a payload into its lead byte and its fields (as bytes).
    """
    if not payload:
        raise ConnectionClosed("empty frame")
    lead, fields, offset = payload[0], [], 1
    while offset < len(payload):
        if offset + 4 > len(payload):
            raise ConnectionClosed("truncated field length")
        (size,) = _LENGTH.unpack_from(payload, offset)
        offset += 4
        if offset + size > len(payload):
            raise ConnectionClosed("truncated field")
        fields.append(payload[offset:offset + size])
        offset += size
    return lead, fields


def _readExactly(sock, count):
    chunks = []
    while count:
        chunk = sock.recv(min(count, 1 << 20))
        if not chunk:
            raise ConnectionClosed("connection closed")
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def readFrame(sock):
    """
    Read one frame from a blocking socket: C{(lead, [fields])}.
    """
    try:
        (size,) = _LENGTH.unpack(_readExactly(sock, 4))
        if size > MAX_FRAME:
            raise ConnectionClosed(f"frame of {size} bytes is too large")
        return decodeFields(_readExactly(sock, size))
    except OSError as e:
        raise ConnectionClosed(str(e)) from e

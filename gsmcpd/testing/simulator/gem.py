"""
What the simulated stone's gem does with a source the daemon executes: it
compiles and runs it, as GciTsExecute does on a real stone, and answers the
bytes it evaluates to.

Nothing here knows the daemon's templates.  A source is a doit like any
other; the only thing the gem exploits is that a doit often starts with
temporaries assigned from literals (that is how gsmcpd passes arguments), so
the rest of the source, the same text call after call, is parsed once and
cached by its text (L{_parsedRest}).  Only that leading run of literal
assignments is parsed each call.
"""

import functools
import re

from gsmcpd import smalltalk
from gsmcpd.testing.simulator import compiler, errors, exceptions, processes
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.objects import ByteArray, String, Symbol, printString
from gsmcpd.testing.simulator.repository import ABSENT

_SPACE = re.compile(r"(?:\s|\"[^\"]*\")*")
_TEMPS = re.compile(r"\|[\sA-Za-z0-9_]*\|")
_ASSIGNED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*:=\s*")
_ATOM = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?(?![A-Za-z0-9_:])"
                   r"|(?:nil|true|false)(?![A-Za-z0-9_:])|\$.|#[A-Za-z_][A-Za-z0-9_:]*")
_STRING = re.compile(r"'(?:[^']|'')*'")


def _literalEnd(source, pos):
    """
    Where the literal starting at C{pos} ends, or None if none starts there.
    """
    match = _STRING.match(source, pos) or _ATOM.match(source, pos)
    if match:
        return match.end()
    return _arrayEnd(source, pos + 2) if source.startswith("#(", pos) else None


def _arrayEnd(source, pos):
    """
    Where the literal array whose elements start at C{pos} ends.
    """
    while True:
        pos = _SPACE.match(source, pos).end()
        if source.startswith(")", pos):
            return pos + 1
        if source.startswith("(", pos):
            end = _arrayEnd(source, pos + 1)
        else:
            end = _literalEnd(source, pos)
        if end is None:
            return None
        pos = end


def prologueEnd(source):
    """
    The length of the source's prologue: leading comments, a temporaries
    declaration, and statements assigning a literal to a variable.
    """
    pos = _SPACE.match(source).end()
    temps = _TEMPS.match(source, pos)
    good = pos = temps.end() if temps else pos
    while True:
        pos = _SPACE.match(source, pos).end()
        assigned = _ASSIGNED.match(source, pos)
        end = assigned and _literalEnd(source, assigned.end())
        if end is None:
            return good
        end = _SPACE.match(source, end).end()
        if not source.startswith(".", end):
            return good
        good = pos = end + 1


@functools.lru_cache(maxsize=256)
def _parsedPrologue(prologue):
    """
    The prologue's tree (a call repeated with the same arguments is parsed
    once).
    """
    return smalltalk.parse_expression(prologue)


@functools.lru_cache(maxsize=256)
def _parsedRest(rest, temps):
    """
    The statements after the prologue, the variables they name that none
    of their own blocks declares (checked against the session's globals
    each run), and the compiler's warnings about blocks that shadow the
    doit's temporaries C{temps}.
    """
    tree = smalltalk.parse_expression(rest)
    declared = set(temps) | set(tree.temps)
    return (tree, compiler.freeVariables(tree.statements, declared),
            compiler.shadowing(tree.statements, declared))


def _compileError(error, source, offset):
    """
    A source that does not compile fails the GCI call itself.
    """
    compileError = errors.compileError(error.message, source, error.offset + offset)
    return errors.GciError(compileError.number, compileError.description,
                           reason="compileError")


def run(session, source, debugRun=None):
    """
    Compile and run C{source} in C{session}; its value.  With C{debugRun},
    its process can stop (L{gsmcpd.testing.simulator.debugging}).

    @raise errors.GciError: it did not compile, signalled an Error nothing
        handled, or a break ended it.
    """
    session.lastRequestAt = session.stone.timeGmt()
    split = prologueEnd(source)
    try:
        prologue = _parsedPrologue(source[:split])
    except smalltalk.SmalltalkSyntaxError as e:
        raise _compileError(e, source, 0) from None
    try:
        rest, free, shadows = _parsedRest(source[split:], tuple(prologue.temps))
    except smalltalk.SmalltalkSyntaxError as e:
        raise _compileError(e, source, split) from None
    evaluator = Evaluator(session, debugRun=debugRun,
                          performFlags=debugRun.flags if debugRun else 0)
    if debugRun is not None:
        debugRun.ev = evaluator
    try:
        scope = set(prologue.temps) | compiler.PSEUDO_VARIABLES
        compiler.checkDeclared(session, prologue.statements, scope, source)
        compiler.checkFree(lambda name: evaluator.globalNamed(name) is not ABSENT,
                           free, scope, source, split)
        for offset, warning in shadows:
            # Nothing handles a warning while the doit compiles: it ends the call.
            exceptions.signalCompileWarning(evaluator, warning,
                                            offset + split)
        value = evaluator.run(source, ((prologue, 0), (rest, split)))
        processes.left(evaluator)
        return value
    except errors.SmalltalkError as e:
        raise errors.GciError(e.number, e.description, reason="error") from None


def answer(session, source):
    """
    The bytes C{source} evaluates to in C{session}, as GciTsExecuteFetchBytes
    answers them.
    """
    return resultBytes(run(session, source))


def resultBytes(value):
    """
    A result's bytes: a byte object's bytes, a String's UTF-8, else the
    printString's.
    """
    if isinstance(value, ByteArray):
        return value.data
    if isinstance(value, (String, Symbol)):
        return value.text.encode("utf-8")
    return printString(value).encode("utf-8")

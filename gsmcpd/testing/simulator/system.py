"""
The simulated stone's System, symbol dictionaries, blocks, Delay and
exception handling: the kernel parts that reach the session (its
transaction, its identity, its interrupts).

Globals live in the transaction model under keys
C{('global', dictionaryName, name)}, the symbol list under C{('symbolList',)}
and user classes under C{('class', name)} (see L{gsmcpd.testing.simulator.model});
kernel classes are Globals that no commit can remove.
"""

import attr

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import (
    CLASSES, SignalledError, StClass, classMethod, classOf, method, text)
from gsmcpd.testing.simulator.objects import (
    Array, Delay, Dictionary, String, Symbol, SymbolDictionaryRef, UserClass,
    UserProfile, isNumber, keyOf, printString)
from gsmcpd.testing.simulator.repository import ABSENT

USER_GLOBALS = SymbolDictionaryRef("UserGlobals")
GLOBALS = SymbolDictionaryRef("Globals")
PUBLISHED = SymbolDictionaryRef("Published")

SYMBOL_LIST_KEY = ("symbolList",)
DEFAULT_SYMBOL_LIST = (USER_GLOBALS.name, GLOBALS.name, PUBLISHED.name)

KERNEL_GLOBALS = {**CLASSES, "UserGlobals": USER_GLOBALS, "Globals": GLOBALS}


def globalKey(dictionary, name):
    return ("global", dictionary.name, name)


def classKey(name):
    return ("class", name)


def symbolList(session):
    """
    The dictionaries of the session's symbol list, in lookup order.
    """
    names = session.transaction.read(SYMBOL_LIST_KEY)
    return [SymbolDictionaryRef(name)
            for name in (DEFAULT_SYMBOL_LIST if names is ABSENT else names)]


def readGlobal(session, dictionary, name):
    """
    What C{dictionary at: name} answers in C{session}'s view, or L{ABSENT}:
    a global, else a user class defined in it, else (for Globals) a kernel
    global; every dictionary holds itself under its own name.
    """
    value = session.transaction.read(globalKey(dictionary, name))
    if value is not ABSENT:
        return value
    history = session.transaction.read(classKey(name))
    if history is not ABSENT and history[-1].dictionary == dictionary.name:
        return UserClass(name)
    if name == dictionary.name:
        return dictionary
    if dictionary == GLOBALS:
        return KERNEL_GLOBALS.get(name, ABSENT)
    return ABSENT


def resolve(session, name):
    """
    The dictionary of the symbol list that defines C{name} first, or
    L{None}.
    """
    for dictionary in symbolList(session):
        if readGlobal(session, dictionary, name) is not ABSENT:
            return dictionary
    return None


# -------------------------------------------------------- SymbolDictionary

@method("SymbolDictionary", "at:put:")
def _globalAtPut(ev, receiver, key, value):
    ev.session.transaction.write(globalKey(receiver, text(key)), value)
    return value


@method("SymbolDictionary", "at:ifAbsent:")
def _globalAtIfAbsent(ev, receiver, key, block):
    value = readGlobal(ev.session, receiver, text(key))
    return ev.value(block) if value is ABSENT else value


@method("SymbolDictionary", "at:")
def _globalAt(ev, receiver, key):
    value = readGlobal(ev.session, receiver, text(key))
    if value is ABSENT:
        raise errors.keyNotFound(printString(key))
    return value


@method("SymbolDictionary", "includesKey:")
def _globalIncludesKey(ev, receiver, key):
    return readGlobal(ev.session, receiver, text(key)) is not ABSENT


@method("SymbolDictionary", "removeKey:ifAbsent:")
def _globalRemoveKeyIfAbsent(ev, receiver, key, block):
    value = readGlobal(ev.session, receiver, text(key))
    if value is ABSENT:
        return ev.value(block)
    ev.session.transaction.write(globalKey(receiver, text(key)), ABSENT)
    return value


@method("SymbolDictionary", "removeKey:")
def _globalRemoveKey(ev, receiver, key):
    value = readGlobal(ev.session, receiver, text(key))
    if value is ABSENT:
        raise errors.keyNotFound(printString(key))
    ev.session.transaction.write(globalKey(receiver, text(key)), ABSENT)
    return value


@method("SymbolDictionary", "keys")
def _globalKeys(ev, receiver):
    return Array([Symbol(name) for name in globalNames(ev.session, receiver)])


def globalNames(session, dictionary):
    """
    The names C{dictionary} holds in C{session}'s view, sorted.
    """
    transaction = session.transaction
    names = {key[2] for key in transaction.keys(("global", dictionary.name))}
    names.update(key[1] for key in transaction.keys(("class",))
                 if transaction.read(key)[-1].dictionary == dictionary.name)
    names.add(dictionary.name)
    if dictionary == GLOBALS:
        names.update(KERNEL_GLOBALS)
    return sorted(names)


@method("UserProfile", "symbolList")
def _symbolList(ev, receiver):
    return Array(symbolList(ev.session))


# ------------------------------------------------------------------ System

@classMethod("System", "commitTransaction")
def _commit(ev, receiver):
    return ev.session.transaction.commit()


@classMethod("System", "abortTransaction")
def _abort(ev, receiver):
    ev.session.transaction.abort()
    return receiver


@classMethod("System", "continueTransaction")
def _continue(ev, receiver):
    if not ev.session.transaction.continueTransaction():
        raise errors.continueAfterFailedCommit()
    return True


@classMethod("System", "needsCommit")
def _needsCommit(ev, receiver):
    return ev.session.transaction.needsCommit


@classMethod("System", "inTransaction")
def _inTransaction(ev, receiver):
    # Sessions run in GemStone's default #autoBegin mode: always in one.
    return True


@classMethod("System", "transactionConflicts")
def _transactionConflicts(ev, receiver):
    conflicts = Dictionary()
    for kind, keys in ev.session.transaction.conflicts.items():
        conflicts.entries[keyOf(Symbol(kind))] = (
            Symbol(kind), Array([describeKey(key) for key in keys]))
    return conflicts


@classMethod("System", "session")
def _session(ev, receiver):
    return ev.session.number


@classMethod("System", "myUserProfile")
def _myUserProfile(ev, receiver):
    return UserProfile(ev.session.user)


@classMethod("System", "stoneName")
def _stoneName(ev, receiver):
    return String(ev.session.stone.name)


@classMethod("System", "stoneVersionAt:", "gemVersionAt:")
def _versionAt(ev, receiver, key):
    if text(key) == "gsVersion":
        return String(ev.session.stone.version)
    return None


@classMethod("System", "cacheName:")
def _cacheName(ev, receiver, name):
    if not isinstance(name, (String, Symbol)):
        raise errors.argumentTypeError("cacheName:")
    ev.session.stone.nameGem(ev.session, name.text)
    return receiver


@classMethod("System", "gemCacheStatisticsForSessionId:")
def _gemCacheStatistics(ev, receiver, number):
    """
    The session's row of cache statistics: only its first field, the
    name, is modelled.
    """
    name = ev.session.stone.cacheNameOf(number)
    return None if name is None else Array([String(name)])


@classMethod("System", "stopSession:")
def _stopSession(ev, receiver, number):
    ev.session.stone.stopSession(ev.session, number)
    return receiver


@classMethod("System", "sessionsReferencingOldestCr")
def _sessionsReferencingOldestCr(ev, receiver):
    return Array(ev.session.stone.backlogState()[1])


@classMethod("System", "stoneCacheStatisticWithName:")
def _stoneCacheStatistic(ev, receiver, name):
    if text(name) == "CommitRecordCount":
        return ev.session.stone.backlogState()[0]
    return None


@classMethod("System", "stoneConfigurationAt:")
def _stoneConfigurationAt(ev, receiver, name):
    return ev.session.stone.configurationAt(text(name))


@classMethod("System", "descriptionOfSession:")
def _descriptionOfSession(ev, receiver, number):
    """
    The fields the simulator models (1 UserProfile, 8 holds the oldest
    commit record, 16 commits behind); the rest are nil.  Another
    session's needs SessionAccess.
    """
    stone = ev.session.stone
    if number != ev.session.number:
        stone.requirePrivilege(ev.session, "SessionAccess", "System descriptionOfSession:")
    target = stone.sessions.get(number)
    if target is None:
        return None
    fields = [None] * 24
    fields[0] = UserProfile(target.user)
    fields[7] = number in stone.backlogState()[1]
    fields[15] = target.transaction.commitsBehind
    return Array(fields)


@method("UserProfile", "userId")
def _userId(ev, receiver):
    return String(receiver.userId)


@method("UserProfile", "privileges")
def _privileges(ev, receiver):
    return Array([Symbol(name) for name in
                  sorted(ev.session.stone.privileges.get(receiver.userId, ()))])


@classMethod("System", "maxSessionId")
def _maxSessionId(ev, receiver):
    """
    The stone's session limit: the simulator's login cap.
    """
    return ev.session.stone.maxLogins


def describeKey(key):
    """
    How a conflicting repository key is reported.
    """
    kind = key[0]
    if kind == "global":
        return String(f"{key[1]} at: #{key[2]}")
    if kind == "class":
        return String(f"class {key[1]}")
    if kind == "method":
        className, meta, selector = key[1:]
        return String(f"{className}{' class' if meta else ''}>>{selector}")
    if kind == "symbolList":
        return String("System myUserProfile symbolList")
    return String(" ".join(map(str, key)))


# -------------------------------------------------------------- ExecBlock

def _blockValue(ev, receiver, *args):
    return ev.value(receiver, *args)


method("ExecBlock", "value", "value:", "value:value:", "value:value:value:",
       "value:value:value:value:")(_blockValue)


@method("ExecBlock", "valueWithArguments:")
def _valueWithArguments(ev, receiver, arguments):
    return ev.value(receiver, *arguments.items)


@method("ExecBlock", "numArgs")
def _numArgs(ev, receiver):
    return receiver.numArgs


@method("ExecBlock", "whileTrue:")
def _whileTrueDo(ev, receiver, body):
    while ev.value(receiver) is True:
        ev.value(body)
    return None


@method("ExecBlock", "whileFalse:")
def _whileFalseDo(ev, receiver, body):
    while ev.value(receiver) is False:
        ev.value(body)
    return None


@method("ExecBlock", "whileTrue")
def _whileTrue(ev, receiver):
    while ev.value(receiver) is True:
        pass
    return None


@method("ExecBlock", "whileFalse")
def _whileFalse(ev, receiver):
    while ev.value(receiver) is False:
        pass
    return None


@method("ExecBlock", "repeat")
def _repeat(ev, receiver):
    while True:
        ev.value(receiver)


@method("ExecBlock", "ensure:")
def _ensure(ev, receiver, cleanup):
    try:
        return ev.value(receiver)
    finally:
        ev.value(cleanup)


@attr.s(eq=False)
class _Handler:
    """
    One active C{on:do:}: what it catches and its handler block.
    """

    exceptionClass = attr.ib()
    block = attr.ib()


@method("ExecBlock", "on:do:")
def _onDo(ev, receiver, exceptionClass, handler):
    """
    Run the receiver, handing a signalled Error of C{exceptionClass} to
    C{handler} once the stack has unwound to here, and a soft break
    (C{Break}, which is not an Error) to it at the point the break arrived,
    where the handler may resume it (L{signalBreak}); hard breaks and other
    GCI-level events pass untouched.
    """
    entry = _Handler(exceptionClass, handler)
    ev.handlers.append(entry)
    try:
        try:
            return ev.value(receiver)
        finally:
            ev.handlers.pop()
    except errors.SmalltalkError as e:
        if not signalledIsKindOf(e, exceptionClass):
            raise
        exception = SignalledError(e)
        exception.handler = entry
        try:
            return _runHandler(ev, handler, exception)
        except _HandlerReturn as returned:
            if returned.exception is not exception:
                raise
            return returned.value
    except _HandlerReturn as returned:
        if returned.exception.handler is not entry:
            raise
        return returned.value


def _runHandler(ev, handler, exception):
    return ev.value(handler, exception) if handler.numArgs else ev.value(handler)


def signalBreak(ev):
    """
    Signal C{Break} (what a soft break is) where the running code is: the
    innermost active handler for it runs right here, on top of the running
    code.  If it resumes, the code goes on as if nothing happened; if it
    returns (or falls off its end) the stack unwinds to its C{on:do:}.  With
    no handler the break ends the call (GCI error 6003).
    """
    exception = SignalledError(errors.SmalltalkError(
        errors.SOFT_BREAK, "Break",
        errors.describe("Break", errors.SOFT_BREAK, "A soft break was received.")))
    exception.resumable = True
    return _dispatch(ev, exception, len(ev.handlers))


def _dispatch(ev, exception, below):
    """
    Hand a resumable C{exception} to the innermost handler for it among the
    first C{below} active handlers.
    """
    signalled = CLASSES[exception.error.className]
    for index in range(below - 1, -1, -1):
        entry = ev.handlers[index]
        if not (isinstance(entry.exceptionClass, StClass)
                and signalled.includesBehavior(entry.exceptionClass)):
            continue
        exception.handler = entry
        exception.handlerIndex = index
        saved = ev.handlers
        ev.handlers = saved[:index]
        try:
            value = _runHandler(ev, entry.block, exception)
        except _Resume as resumed:
            if resumed.exception is not exception:
                raise
            return resumed.value
        finally:
            ev.handlers = saved
        raise _HandlerReturn(exception, value)
    raise errors.breakError(False, ev.session.interrupt.context)


def signalledIsKindOf(error, exceptionClass):
    """
    Whether the signalled C{error} is an instance of C{exceptionClass}, so a
    handler for it catches it.
    """
    signalled = CLASSES.get(error.className, CLASSES["Error"])
    return isinstance(exceptionClass, StClass) and signalled.includesBehavior(exceptionClass)


class _HandlerReturn(Exception):
    """
    C{ex return: value} unwinding to its C{on:do:}.
    """

    def __init__(self, exception, value):
        super().__init__()
        self.exception = exception
        self.value = value


class _Resume(Exception):
    """
    C{ex resume: value} going back to where a resumable exception was
    signalled.
    """

    def __init__(self, exception, value):
        super().__init__()
        self.exception = exception
        self.value = value


@method("AbstractException", "messageText", "description")
def _messageText(ev, receiver):
    return String(receiver.error.description)


@method("AbstractException", "number")
def _errorNumber(ev, receiver):
    return receiver.error.number


@method("AbstractException", "return:")
def _return(ev, receiver, value):
    raise _HandlerReturn(receiver, value)


@method("AbstractException", "return")
def _returnNil(ev, receiver):
    raise _HandlerReturn(receiver, None)


@method("AbstractException", "resume:")
def _resume(ev, receiver, value):
    if not getattr(receiver, "resumable", False):
        raise errors.notResumable(receiver.error.className)
    raise _Resume(receiver, value)


@method("AbstractException", "resume")
def _resumeNil(ev, receiver):
    return _resume(ev, receiver, None)


@method("AbstractException", "pass", "outer", "signal")
def _pass(ev, receiver):
    """
    Hand the exception to the next handler out (for a break, from where it
    was signalled; for an Error, by unwinding further).
    """
    if getattr(receiver, "resumable", False):
        index = getattr(receiver, "handlerIndex", 0)
        return _dispatch(ev, receiver, min(index, len(ev.handlers)))
    raise receiver.error


# ------------------------------------------------------------------ Delay

@classMethod("Delay", "forSeconds:")
def _forSeconds(ev, receiver, seconds):
    return Delay(_duration(seconds))


@classMethod("Delay", "forMilliseconds:")
def _forMilliseconds(ev, receiver, milliseconds):
    return Delay(_duration(milliseconds) / 1000)


def _duration(value):
    if not isNumber(value):
        raise errors.messageNotUnderstood(classOf(value).name, "_generality")
    return max(float(value), 0.0)


@method("Delay", "wait")
def _wait(ev, receiver):
    ev.sleep(receiver.seconds)
    return receiver

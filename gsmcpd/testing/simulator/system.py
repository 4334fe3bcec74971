"""
The simulated stone's System, GsCurrentSession, blocks and Delay: the
kernel parts that reach the session (its transaction, its identity, its
interrupts), and where globals live.

Bindings live in the transaction model under keys
C{('global', dictionaryName, name)} (a user class's too: defining one binds
it), the symbol list under C{('symbolList',)} and user classes' definitions
under C{('class', name)} (see L{gsmcpd.testing.simulator.model}); kernel
classes are Globals that no commit can remove.
"""

from gsmcpd.testing.simulator import errors, grain
from gsmcpd.testing.simulator.kernel import CLASSES, classMethod, classOf, method, text
from gsmcpd.testing.simulator.objects import (
    Array,
    Delay,
    Dictionary,
    Instance,
    MethodDictionary,
    String,
    Symbol,
    SymbolDictionaryRef,
    UserClass,
    UserProfile,
    isNumber,
    keyOf,
)
from gsmcpd.testing.simulator.repository import ABSENT

USER_GLOBALS = SymbolDictionaryRef("UserGlobals")
GLOBALS = SymbolDictionaryRef("Globals")
PUBLISHED = SymbolDictionaryRef("Published")

SYMBOL_LIST_KEY = ("symbolList",)
DEFAULT_SYMBOL_LIST = (USER_GLOBALS.name, GLOBALS.name, PUBLISHED.name)

UNNAMED = frozenset({"UserSet", "GsMethodDictionary", "SymbolSet"})
"""Kernel classes the model has but does not bind by name: no public source
names them (C{AllUsers} is the UserSet's way in), or the model holds only
their instances' identity (a commit's conflicting objects)."""

KERNEL_GLOBALS = {**{name: cls for name, cls in CLASSES.items() if name not in UNNAMED},
                  "UserGlobals": USER_GLOBALS, "Globals": GLOBALS,
                  "Transcript": Instance(CLASSES["TranscriptStreamPortable"])}


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
    a binding (a user class is bound like any global, under any number of
    names in any dictionaries), else (for Globals) a kernel global; every
    dictionary holds itself under its own name.
    """
    value = session.transaction.read(globalKey(dictionary, name))
    if value is not ABSENT:
        return value
    if name == dictionary.name:
        return dictionary
    if dictionary == GLOBALS:
        return KERNEL_GLOBALS.get(name, ABSENT)
    return ABSENT


def globalValue(session, name):
    """
    What C{name} is bound to in the first dictionary of the symbol list
    that defines it, or L{ABSENT}: the one lookup for callers that need the
    value, not the dictionary (see L{resolve}).
    """
    for dictionary in symbolList(session):
        value = readGlobal(session, dictionary, name)
        if value is not ABSENT:
            return value
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


def globalNames(session, dictionary):
    """
    The names C{dictionary} holds in C{session}'s view, sorted.
    """
    names = {key[2] for key in session.transaction.keys(("global", dictionary.name))}
    names.add(dictionary.name)
    if dictionary == GLOBALS:
        names.update(KERNEL_GLOBALS)
    return sorted(names)


# ------------------------------------------------------------------ System

@classMethod("System", "commitTransaction")
def _commit(ev, receiver):
    return ev.session.transaction.commit()


@classMethod("System", "disableCommitsWithReason:")
def _disableCommits(ev, receiver, reason):
    """
    Commit-lock this session until it logs out: true when this armed it,
    false when it was locked already (by its user's profile, say).
    """
    transaction = ev.session.transaction
    if transaction.commitsDisabledFor is not None:
        return False
    transaction.commitsDisabledFor = text(reason)
    return True


@classMethod("System", "abortTransaction")
def _abort(ev, receiver):
    ev.session.transaction.abort()
    return receiver


@classMethod("System", "continueTransaction")
def _continue(ev, receiver):
    """
    A fresh view keeping the uncommitted writes: false when a commit since
    the old view changed what they change (the view moves anyway, and they
    can no longer commit); after a failed commit, TransactionError 2409.
    """
    transaction = ev.session.transaction
    if transaction.commitFailed:
        raise errors.continueAfterFailedCommit()
    return transaction.continueTransaction()


@classMethod("System", "needsCommit")
def _needsCommit(ev, receiver):
    return ev.session.transaction.needsCommit


@classMethod("System", "inTransaction")
def _inTransaction(ev, receiver):
    # Sessions run in GemStone's default #autoBegin mode: always in one.
    return True


@classMethod("System", "transactionMode")
def _transactionMode(ev, receiver):
    return Symbol("autoBegin")


@classMethod("System", "transactionMode:")
def _setTransactionMode(ev, receiver, mode):
    if text(mode) != "autoBegin":
        raise errors.refused("the simulated stone runs sessions in #autoBegin mode only")
    return receiver


@classMethod("System", "beginTransaction")
def _beginTransaction(ev, receiver):
    ev.session.transaction.abort()
    return receiver


@classMethod("System", "transactionConflicts")
def _transactionConflicts(ev, receiver):
    """
    GemStone's report of the last commit: C{#commitResult} (a Symbol:
    L{gsmcpd.testing.simulator.repository.Transaction.commitResult}) and,
    for each kind of conflict, the conflicting objects (L{grain}: method
    dictionaries and SymbolSets, classes, symbol dictionaries, the symbol
    list; never a method).
    """
    transaction = ev.session.transaction
    conflicts = Dictionary()
    result = Symbol(transaction.commitResult)
    conflicts.entries[keyOf(Symbol("commitResult"))] = (Symbol("commitResult"), result)
    for kind, objects in transaction.conflicts.items():
        conflicts.entries[keyOf(Symbol(kind))] = (
            Symbol(kind), Array([grain.conflictingObject(ev.session, each) for each in objects]))
    return conflicts


@method("Behavior", "persistentMethodDictForEnv:")
def _persistentMethodDict(ev, receiver, environmentId):
    """
    The class's method dictionary of environment 0 (Smalltalk's); the
    model has no other environment.
    """
    if environmentId != 0:
        return None
    if isinstance(receiver, UserClass):
        return MethodDictionary(receiver.className, receiver.meta)
    return MethodDictionary(receiver.name.removesuffix(" class"), receiver.metaclass is None)


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


@classMethod("System", "cacheStatisticsForSessionId:")
def _cacheStatistics(ev, receiver, number):
    """
    The session's row of cache statistics: only its first field, the
    name, is modelled.
    """
    name = ev.session.stone.cacheNameOf(number)
    return None if name is None else Array([String(name)])


@classMethod("System", "currentSessions")
def _currentSessions(ev, receiver):
    return Array(sorted(ev.session.stone.sessions))


@classMethod("System", "timeGmt")
def _timeGmt(ev, receiver):
    return ev.session.stone.timeGmt()


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


@classMethod("System", "maxSessionId")
def _maxSessionId(ev, receiver):
    """
    The stone's session limit: the simulator's login cap.
    """
    return ev.session.stone.maxLogins


@classMethod("GsCurrentSession", "currentSession")
def _currentSession(ev, receiver):
    return Instance(receiver)


@method("GsCurrentSession", "createOnetimePasswordForUserId:validForSeconds:")
def _createOnetimePassword(ev, receiver, userId, seconds):
    session = ev.session
    return String(session.stone.mintOnetimePassword(
        session, text(userId) if isinstance(userId, (String, Symbol)) else userId, seconds))


@method("GsCurrentSession", "createOnetimePasswordValidForSeconds:")
def _createOwnOnetimePassword(ev, receiver, seconds):
    return _createOnetimePassword(ev, receiver, String(ev.session.user), seconds)


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
    from gsmcpd.testing.simulator.processes import left
    left(ev)
    ev.sleep(receiver.seconds)
    return receiver

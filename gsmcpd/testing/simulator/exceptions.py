"""
Exceptions in the simulated stone: C{on:do:}, C{ensure:}, C{ifCurtailed:},
signalling, and what a handler does with what it caught (C{return:},
C{retry}, C{pass}, C{resume:}, ...).

Two ways a signal travels, as in GemStone:

  - an Error (or a TestFailure) is not resumable: the Python exception
    L{errors.SmalltalkError} unwinds to the innermost C{on:do:} that
    handles it, which then runs its handler block;
  - a resumable exception (Warning, Notification, Halt, a soft break, a
    resumable test failure; see L{kernel.RESUMABLE}) is handed to its
    handler where it was signalled (L{signal}), so the handler can resume
    it; returning from the handler unwinds to its C{on:do:}.

Unhandled, a Notification resumes with nil; anything else ends the call
with its error, a soft break as the GCI's break error.
"""

import attr

from gsmcpd.testing.simulator import errors
from gsmcpd.testing.simulator.kernel import (
    CLASSES,
    RESUMABLE,
    SignalledError,
    StClass,
    classMethod,
    classOf,
    method,
    text,
)
from gsmcpd.testing.simulator.objects import ExceptionSet, String, UserClass


@attr.s(eq=False)
class Handler:
    """
    One active C{on:do:}: what it catches and its handler block.
    """

    exceptionClass = attr.ib()
    block = attr.ib()


class _HandlerReturn(Exception):
    """
    A handler's value (C{return:}, or falling off its end) unwinding to its
    C{on:do:}.
    """

    def __init__(self, exception, value):
        super().__init__()
        self.exception = exception
        self.value = value


class _Resume(_HandlerReturn):
    """
    C{resume:} going back to where a resumable exception was signalled.
    """


class _Retry(_HandlerReturn):
    """
    C{retry}: unwind to the C{on:do:} and run its protected block again.
    """


def catches(ev, exceptionClass, exception):
    """
    Whether a handler for C{exceptionClass} (a class or an ExceptionSet)
    catches C{exception}.
    """
    if isinstance(exceptionClass, ExceptionSet):
        return any(catches(ev, each, exception) for each in exceptionClass.classes)
    return isinstance(exceptionClass, (StClass, UserClass)) \
        and ev.inherits(classOf(exception), exceptionClass)


def caught(error):
    """
    The exception object for a SmalltalkError a handler caught.
    """
    return error.exception or SignalledError(error)


def isResumable(ev, exception):
    for each in ev.behaviors(classOf(exception)):
        if isinstance(each, StClass) and each.name in RESUMABLE:
            return RESUMABLE[each.name]
    return False


def signal(ev, exception):
    """
    Signal C{exception} (a L{SignalledError}): the value a handler resumes
    it with.
    """
    if not isResumable(ev, exception):
        exception.error.exception = exception
        exception.error.stack = None
        raise exception.error
    exception.resumable = True
    return _dispatch(ev, exception, len(ev.handlers))


def signalNew(ev, className, number, description, messageText=None):
    """
    Signal a new instance of the kernel exception class C{className}.
    """
    return signal(ev, SignalledError(
        errors.SmalltalkError(number, className, description),
        cls=CLASSES[className], messageText=messageText))


def signalCompileWarning(ev, warning, offset):
    """
    Signal a C{CompileWarning} for C{warning} at the 0-based C{offset} into
    the compiled source, worded as GemStone's compiler words it, so doits
    and methods compiled by reflection warn alike.
    """
    text = f"{warning}, near source character {offset + 1}"
    return signalNew(ev, "CompileWarning", errors.APPLICATION_WARNING,
                     errors.describe("CompileWarning",
                                     errors.APPLICATION_WARNING, text),
                     text)


def signalBreak(ev):
    """
    Signal C{Break} (what a soft break is) where the running code is.  With
    no handler the break ends the call (GCI error 6003).
    """
    return signalNew(ev, "Break", errors.SOFT_BREAK,
                     errors.describe("Break", errors.SOFT_BREAK, "A soft break was received."))


def _dispatch(ev, exception, below):
    """
    Hand a resumable C{exception} to the innermost handler for it among the
    first C{below} active handlers; the handler runs with only the handlers
    outside its own active, as ANSI says.
    """
    for index in range(below - 1, -1, -1):
        entry = ev.handlers[index]
        if not catches(ev, entry.exceptionClass, exception):
            continue
        exception.handler = entry
        exception.handlerIndex = index
        saved = ev.handlers
        ev.handlers = saved[:index]
        ev.stack.append(_signalFrame(exception))
        try:
            value = _runHandler(ev, entry.block, exception)
        except _Resume as resumed:
            if resumed.exception is not exception:
                raise
            return resumed.value
        finally:
            ev.handlers = saved
            ev.stack.pop()
        raise _HandlerReturn(exception, value)
    return _unhandled(ev, exception)


def _unhandled(ev, exception):
    name = classOf(exception).name
    if name == "Break":
        if ev.debugRun is not None:
            # A run that can stop stops at a soft break; continued, it goes on.
            ev.debugRun.pause(ev, errors.SOFT_BREAK, exception.error.description)
            return None
        raise errors.breakError(False, ev.session.interrupt.context)
    if any(isinstance(each, StClass) and each.name == "Notification"
           for each in ev.behaviors(classOf(exception))):
        return None
    if ev.debugRun is not None and name == "Halt":
        # A run that can stop stops at the halt; continued, it answers nil.
        ev.debugRun.pause(ev, exception.error.number, exception.error.description)
        return None
    exception.error.exception = exception
    raise exception.error


def _runHandler(ev, handler, exception):
    return ev.value(handler, exception) if handler.numArgs else ev.value(handler)


def _signalFrame(exception):
    """
    The frame of the signal a handler runs above (GemStone's handlers run
    on the signalling stack, above frames of the exception's own).
    """
    return (_signal, exception, (), "signal")


def _handleUnwound(ev, handler, exception, error):
    """
    Run C{handler} for an Error that unwound to its C{on:do:}, on the stack
    as it was where it was signalled, as GemStone runs it.
    """
    saved = ev.stack
    ev.stack = [*(error.stack or saved), _signalFrame(exception)]
    try:
        return _runHandler(ev, handler, exception)
    finally:
        ev.stack = saved


# ---------------------------------------------------------------- ExecBlock

@method("ExecBlock", "on:do:")
def _onDo(ev, receiver, exceptionClass, handler):
    """
    Run the receiver; an Error it signals (of C{exceptionClass}) reaches
    C{handler} once the stack has unwound to here, a resumable exception
    where it was signalled (L{_dispatch}).  Hard breaks and other GCI-level
    events pass untouched.
    """
    while True:
        entry = Handler(exceptionClass, handler)
        ev.handlers.append(entry)
        try:
            try:
                return ev.value(receiver)
            finally:
                ev.handlers.pop()
        except errors.SmalltalkError as e:
            exception = caught(e)
            if not catches(ev, exceptionClass, exception):
                raise
            exception.handler = entry
            try:
                return _handleUnwound(ev, handler, exception, e)
            except _Retry as retried:
                if retried.exception is not exception:
                    raise
            except _HandlerReturn as returned:
                if returned.exception is not exception:
                    raise
                return returned.value
        except _Retry as retried:
            if retried.exception.handler is not entry:
                raise
        except _HandlerReturn as returned:
            if returned.exception.handler is not entry:
                raise
            return returned.value


@method("ExecBlock", "ensure:")
def _ensure(ev, receiver, cleanup):
    try:
        return ev.value(receiver)
    finally:
        ev.value(cleanup)


@method("ExecBlock", "ifCurtailed:")
def _ifCurtailed(ev, receiver, cleanup):
    try:
        return ev.value(receiver)
    except BaseException:
        ev.value(cleanup)
        raise


# -------------------------------------------------------- exception classes

@classMethod("AbstractException", "new")
def _new(ev, receiver):
    name = receiver.name if isinstance(receiver, (StClass, UserClass)) else "Error"
    number = errors.HALT if name == "Halt" else errors.APPLICATION_ERROR
    return SignalledError(errors.SmalltalkError(number, name, None), cls=receiver)


@classMethod("AbstractException", "signal")
def _classSignal(ev, receiver):
    return _signal(ev, _new(ev, receiver))


@classMethod("AbstractException", "signal:")
def _classSignalText(ev, receiver, messageText):
    return _signalText(ev, _new(ev, receiver), messageText)


@classMethod("AbstractException", ",")
def _exceptionSet(ev, receiver, other):
    mine = receiver.classes if isinstance(receiver, ExceptionSet) else (receiver,)
    theirs = other.classes if isinstance(other, ExceptionSet) else (other,)
    return ExceptionSet(mine + theirs)


method("ExceptionSet", ",")(_exceptionSet)


@method("AbstractException", "signal")
def _signal(ev, receiver):
    if receiver.error.description is None:
        name = classOf(receiver).name
        receiver.error.description = errors.describe(
            name, receiver.error.number, receiver.messageText or "signalled")
    return signal(ev, receiver)


@method("AbstractException", "signal:")
def _signalText(ev, receiver, messageText):
    receiver.messageText = text(messageText)
    receiver.error.description = text(messageText)
    return signal(ev, receiver)


@method("AbstractException", "messageText")
def _messageText(ev, receiver):
    """
    The text it was signalled with; nil for the kernel's own errors (as
    GemTalk's notes measured for ZeroDivide and MessageNotUnderstood: their
    detail is in C{description}).
    """
    return None if receiver.messageText is None else String(receiver.messageText)


@method("AbstractException", "messageText:")
def _setMessageText(ev, receiver, messageText):
    receiver.messageText = text(messageText)
    return receiver


@method("AbstractException", "description")
def _description(ev, receiver):
    return String(receiver.error.description or errors.describe(
        classOf(receiver).name, receiver.error.number, "signalled"))


@method("AbstractException", "number")
def _errorNumber(ev, receiver):
    return receiver.error.number


@method("AbstractException", "errorDetails")
def _errorDetails(ev, receiver):
    from gsmcpd.testing.simulator.objects import Array
    details = receiver.error.details
    if details is None:
        return None
    return Array([Array([number, offset, String(message)])
                  for number, offset, message in details])


@method("AbstractException", "isResumable")
def _isResumable(ev, receiver):
    return isResumable(ev, receiver)


@method("AbstractException", "return:")
def _return(ev, receiver, value):
    raise _HandlerReturn(receiver, value)


@method("AbstractException", "return")
def _returnNil(ev, receiver):
    raise _HandlerReturn(receiver, None)


@method("AbstractException", "retry")
def _retry(ev, receiver):
    raise _Retry(receiver, None)


@method("AbstractException", "resume:")
def _resume(ev, receiver, value):
    if not receiver.resumable:
        raise errors.notResumable(classOf(receiver).name)
    raise _Resume(receiver, value)


@method("AbstractException", "resume")
def _resumeNil(ev, receiver):
    return _resume(ev, receiver, None)


@method("AbstractException", "pass", "outer")
def _pass(ev, receiver):
    """
    Hand the exception to the next handler out (a resumable one from where
    it was signalled; an Error by unwinding further).
    """
    if receiver.resumable:
        return _dispatch(ev, receiver, min(receiver.handlerIndex, len(ev.handlers)))
    receiver.error.exception = receiver
    raise receiver.error


@method("Object", "halt")
def _halt(ev, receiver):
    return signalNew(ev, "Halt", errors.HALT,
                     errors.describe("Halt", errors.HALT, "a halt was executed"))

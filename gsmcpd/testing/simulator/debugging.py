"""
The simulated stone's debugger: a run started with the debug and
interpreted flags (L{execute}) whose GsProcess stops at a breakpoint, a
C{halt}, an Error nothing handled, or the next step point a step asked for,
and waits there, its evaluator parked on its own thread, until the client
steps it (C{gciStepOverFromLevel:} and its siblings, sent by L{perform}),
continues it (L{continueWith}), trims its stack to a method's frame and
restarts that frame (C{trimStackToLevel:}), or ends it (L{clearStack}).

Step points and breakpoints are L{steppoints}'s; evaluation in a stopped
frame is L{contexteval}'s.  The GCI call that started, stepped or continued a run answers its
result when it finishes, or fails with the process as its error's context
when it stops (a breakpoint is error 6005), as GemStone's do.
"""

import itertools
import threading
import weakref

import attr

from gsmcpd.testing.simulator import errors, steppoints
from gsmcpd.testing.simulator.kernel import CLASSES, classMethod, method
from gsmcpd.testing.simulator.processes import NotModeled, Process

BREAKPOINT = 6005
"""GCI error of a run stopped at a breakpoint or after a step (Jasper)."""

ENABLE_DEBUG, INTERPRETED = 0x1, 0x20
"""GCI_PERFORM_FLAG_ENABLE_DEBUG and _INTERPRETED (gcicmn.ht): a run can
stop only when started with both."""

ENDING_SECONDS = 10
"""How long ending a stopped process waits for its thread to unwind."""

_OOPS = itertools.count(0x7F000001, 0x100)

_RUNS = weakref.WeakSet()


class Ended(BaseException):
    """
    GciTsClearStack ended a stopped process: it unwinds without a handler
    seeing it.
    """


class Restart(BaseException):
    """
    C{trimStackToLevel:} unwinds to the activation C{home}, which runs again
    from its first step point.
    """

    def __init__(self, home):
        super().__init__()
        self.home = home


@attr.s(eq=False)
class DebugRun:
    """
    One debuggable GsProcess of a session and the thread its evaluator
    runs on.  C{state}: running, stopped, finished, failed or ended.
    """

    session = attr.ib()
    process = attr.ib()
    oop = attr.ib()
    flags = attr.ib(default=ENABLE_DEBUG | INTERPRETED)
    """The GCI flags of the call that started it."""
    ev = attr.ib(default=None)
    state = attr.ib(default="running")
    outcome = attr.ib(default=None)
    stack = attr.ib(default=None)
    """The stopped process's stack, innermost last."""
    stop = attr.ib(default=None)
    """Why it stopped: (number, message)."""
    step = attr.ib(default=None)
    """(kind, depth) the next step point must meet to stop there."""
    _command = attr.ib(default=None)
    _lock = attr.ib(factory=threading.Condition)

    def reached(self, ev, frame, node):
        """
        On the run's thread, at a step point of C{frame}: stop if a step or
        a breakpoint says so.
        """
        step, depth = self.step or (None, 0)
        if (step == "into" or (step == "over" and len(ev.stack) <= depth)
                or (step == "out" and len(ev.stack) < depth)):
            self.pause(ev, BREAKPOINT, "a step was completed")
        elif frame.home.method is not None:
            points = self.session.breakpoints.get(id(frame.home.method))
            if points and steppoints.stepPoints(frame.home.method.source)[0].get(id(node)) in points[1]:
                self.pause(ev, BREAKPOINT, "a breakpoint was encountered")

    def signalled(self, ev, error):
        """
        On the run's thread, where C{error} is signalled: stop there if no
        active handler takes it, its signal the top frame (the exception its
        receiver), as GemStone's stack shows it.  Continued, the Error
        still ends the run (the stricter reading: docs/gemstone-fidelity.rst).
        """
        from gsmcpd.testing.simulator import exceptions
        error.exception = exceptions.caught(error)
        if not any(exceptions.catches(ev, each.exceptionClass, error.exception)
                   for each in ev.handlers):
            ev.stack.append(exceptions._signalFrame(error.exception))
            try:
                self.pause(ev, error.number, error.description)
            finally:
                ev.stack.pop()

    def pause(self, ev, number, message):
        """
        Stop here until the client steps, continues, restarts or ends the
        process.
        """
        with self._lock:
            self.stack, self.stop, self.step = ev.stack[:], (number, message), None
            self.state = "stopped"
            self._lock.notify_all()
            while self._command is None:
                self._lock.wait()
            command, self._command = self._command, None
        if command == "end":
            raise Ended()
        if isinstance(command, Restart):
            raise command

    def resume(self, command):
        """
        From a GCI call's thread: hand the stopped process C{command} ("go",
        "end" or a L{Restart}) and wait until it stops again or is over.
        """
        with self._lock:
            if self.state != "stopped":
                raise errors.GciError(errors.ARGUMENT_TYPE_ERROR, errors.describe(
                    "ArgumentTypeError", errors.ARGUMENT_TYPE_ERROR,
                    f"the GsProcess {self.oop} is not stopped (simulated stone; "
                    "GemStone's wording is inferred)"), reason="argumentType")
            self._command, self.state = command, "running"
            self._lock.notify_all()
        return self.wait()

    def wait(self):
        """
        The process's result once it finishes; a GciError naming it as the
        context while it is stopped.
        """
        with self._lock:
            while self.state == "running":
                self._lock.wait()
        if self.state == "stopped":
            number, message = self.stop
            raise errors.GciError(number, message, reason="error", context=self.oop)
        if self.state == "failed":
            raise self.outcome
        return self.outcome

    def end(self):
        """
        End the process whether or not it is stopped: its session is gone.
        A stopped one has ended when this returns, as a stone's processes
        of a session have when its logout is over.
        """
        with self._lock:
            if self.state == "stopped":
                self._command = "end"
                self._lock.notify_all()
                self._lock.wait_for(lambda: self.state != "stopped",
                                    timeout=ENDING_SECONDS)

    def finish(self, state, outcome):
        with self._lock:
            self.session.debugRuns.pop(self.oop, None)
            self.state, self.outcome = state, outcome
            self._lock.notify_all()


def execute(session, source, flags=ENABLE_DEBUG | INTERPRETED):
    """
    GciTsExecute of C{source}: with both debug flags on, a run that can
    stop; its value, or a GciError (the process as context when stopped).
    """
    from gsmcpd.testing.simulator import gem
    from gsmcpd.testing.simulator.stone import GemKilled
    if flags & (ENABLE_DEBUG | INTERPRETED) != ENABLE_DEBUG | INTERPRETED:
        return gem.run(session, source)
    process = Process(CLASSES["GsProcess"], state="running")
    run = DebugRun(session, process, next(_OOPS), flags)
    session.debugRuns[run.oop] = run
    _RUNS.add(run)

    def body():
        try:
            value = gem.run(session, source, debugRun=run)
        except (Ended, GemKilled):
            run.finish("ended", None)
        except errors.GciError as e:
            run.finish("failed", e)
        except Exception as e:  # a model bug: it fails loudly, as the server's do
            run.finish("failed", errors.GciError(
                0, f"simulated stone internal error: {e!r}", reason="simulatorBug"))
        else:
            run.finish("finished", value)
    threading.Thread(target=body, daemon=True).start()
    return run.wait()


def living():
    """
    How many debuggable processes of any session have not ended: running,
    or stopped on their threads.
    """
    return sum(run.state in ("running", "stopped") for run in list(_RUNS))


def _run(session, oop):
    run = session.debugRuns.get(oop)
    if run is None:
        raise errors.GciError(errors.ARGUMENT_TYPE_ERROR, errors.describe(
            "ArgumentTypeError", errors.ARGUMENT_TYPE_ERROR,
            f"{oop} is not a GsProcess this session has stopped (simulated stone; "
            "GemStone's wording is inferred)"), reason="argumentType")
    return run


def continueWith(session, oop):
    """
    GciTsContinueWith(process, OOP_ILLEGAL): run on to the next stop or
    the end.
    """
    return _run(session, oop).resume("go")


def clearStack(session, oop):
    """
    GciTsClearStack: end the stopped process.
    """
    run = _run(session, oop)
    run.resume("end")


def perform(session, oop, selector, *args, flags=ENABLE_DEBUG | INTERPRETED):
    """
    GciTsPerform of C{selector} to the stopped process C{oop}.
    """
    from gsmcpd.testing.simulator.evaluator import Evaluator
    run = _run(session, oop)
    ev = Evaluator(session)
    ev.performFlags = flags
    try:
        return ev.send(run.process, selector, args)
    except errors.SmalltalkError as e:
        raise errors.GciError(e.number, e.description, reason="error") from None


def _runOf(ev, process):
    for run in list(ev.session.debugRuns.values()):
        if run.process is process:
            return run
    raise errors.argumentTypeError("a GsProcess that is not stopped")


def _level(run, level):
    if not isinstance(level, int) or isinstance(level, bool):
        raise errors.argumentTypeError("level")
    if not 1 <= level <= len(run.stack):
        raise errors.outOfRange(f"level {level} is not in 1..{len(run.stack)}")
    return level


def _stepFrom(kind):
    def stepping(ev, receiver, level):
        if getattr(ev, "performFlags", 0) & INTERPRETED == 0:
            # GemStone cannot step native code (error 6014).
            raise errors.SmalltalkError(6014, "ImproperOperation", errors.describe(
                "ImproperOperation", 6014, "a step needs the interpreted flag"))
        run = _runOf(ev, receiver)
        run.step = (kind, len(run.stack) - _level(run, level) + 1)
        return run.resume("go")
    return stepping


method("GsProcess", "gciStepOverFromLevel:")(_stepFrom("over"))
method("GsProcess", "gciStepIntoFromLevel:")(_stepFrom("into"))
method("GsProcess", "gciStepThruFromLevel:")(_stepFrom("out"))


@method("GsProcess", "localStackDepth")
def _localStackDepth(ev, receiver):
    return len(_runOf(ev, receiver).stack)


@method("GsProcess", "_frameContentsAt:")
def _frameContentsAt(ev, receiver, level):
    from gsmcpd.testing.simulator import frames
    run = _runOf(ev, receiver)
    return frames.frameContents(run.ev, _level(run, level), run.stack)


@method("GsProcess", "_frameAt:tempAt:put:")
def _frameAtTempAtPut(ev, receiver, level, offset, value):
    """
    Write the argument or temporary C{offset} (its index among the frame's
    names, slot 9) of the stopped frame at C{level}.
    """
    run = _runOf(ev, receiver)
    entry = run.stack[-_level(run, level)]
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise errors.argumentTypeError("_frameAt:tempAt:put:")
    if isinstance(entry, tuple) or not 1 <= offset <= len(entry.names):
        raise NotModeled("the simulated stone writes only a named argument or temporary "
                         "of a method's or block's frame")
    entry.names[list(entry.names)[offset - 1]] = value
    return value


@method("GsProcess", "trimStackToLevel:")
def _trimStackToLevel(ev, receiver, level):
    run = _runOf(ev, receiver)
    entry = run.stack[-_level(run, level)]
    if isinstance(entry, tuple) or entry.block is not None or entry.home.method is None:
        raise NotModeled("the simulated stone restarts only a method's frame")
    try:
        run.resume(Restart(entry.home))
    except errors.GciError as e:
        if e.context != run.oop:
            raise
    return receiver


@classMethod("Object", "_objectForOop:")
def _objectForOop(ev, receiver, oop):
    """
    The stopped process a GCI error named as its context: the only objects
    the model numbers this way.
    """
    run = ev.session.debugRuns.get(oop)
    if run is None:
        raise NotModeled("the simulated stone resolves only a stopped process's OOP")
    return run.process

"""
The simulated stone's GsProcesses, as far as a bounded wait needs them: a
block forked below the active priority, a Semaphore, and a wait with a
timeout that runs what was forked until it signals or the time is up.

GemStone runs a forked process only when the active one waits (a GCI
call's main process runs at C{userSchedulingPriority}, 15); one forked
below it is preempted the moment the waiter is ready again, by the signal
or by its timeout.  The model runs a forked process inside the wait, on a
stack and handlers of its own, and cuts it where GemStone would preempt
it (at its next block or method activation past the deadline, or after the
signal that woke the waiter).  What it cannot do is resume a cut process,
run one while no one waits, or run one at or above the active priority:
each of those fails loudly (L{NotModeled}, a model limit reported as
C{simulatorBug}), never as something GemStone would do.  A cut process has
already unwound (its C{ensure:} blocks ran when it was cut, not when it is
terminated): C{docs/gemstone-fidelity.rst} lists it.
"""

import time

import attr

from gsmcpd.testing.simulator import errors, system
from gsmcpd.testing.simulator.kernel import CLASSES, classMethod, classOf, method
from gsmcpd.testing.simulator.objects import Instance

MAIN_PRIORITY = 15
"""C{Processor userSchedulingPriority}: the GCI call's own process."""

LOWEST, HIGHEST = 1, 40


class NotModeled(Exception):
    """
    Scheduling the model does not do; GemStone would go on, so this is the
    model's limit, never a Smalltalk error.
    """


class Preempted(BaseException):
    """
    The running forked process reached the point where GemStone would
    preempt it; no Smalltalk handler sees it.
    """


@attr.s(eq=False)
class Process(Instance):
    block = attr.ib(default=None)
    priority = attr.ib(default=MAIN_PRIORITY)
    state = attr.ib(default="ready")
    """ready, running, done, cut (preempted; the model cannot resume it)
    or terminated."""


@attr.s(eq=False)
class Semaphore(Instance):
    excess = attr.ib(default=0)


@attr.s(eq=False)
class Scheduling:
    """
    One call's processes: the main one, the forked ones not yet ended, the
    one running and the Semaphore the main one waits on.
    """

    main = attr.ib(factory=lambda: Process(CLASSES["GsProcess"], state="running"))
    forked = attr.ib(factory=list)
    active = attr.ib(default=None)
    awaited = attr.ib(default=None)


PROCESSOR = Instance(CLASSES["ProcessorScheduler"])
system.KERNEL_GLOBALS["Processor"] = PROCESSOR


def scheduling(ev):
    if ev.scheduling is None:
        ev.scheduling = Scheduling()
        ev.scheduling.active = ev.scheduling.main
    return ev.scheduling


def left(ev):
    """
    Refuse to end a call, or to wait without running them, while forked
    processes are left: GemStone would run them later, the model cannot.
    """
    if ev.scheduling is not None and any(
            each.state in ("ready", "cut") for each in ev.scheduling.forked):
        raise NotModeled("a forked process is left to run (ready, or cut at a "
                         "deadline and not terminated): the model does not run it later")


@classMethod("Semaphore", "new")
def _new(ev, receiver):
    return Semaphore(CLASSES["Semaphore"])


@method("Semaphore", "signal")
def _signal(ev, receiver):
    receiver.excess += 1
    found = scheduling(ev)
    if receiver is found.awaited and found.active is not found.main:
        # The waiter, above the running process, is ready: it preempts it.
        ev.deadline = float("-inf")
    return receiver


@method("Semaphore", "waitForMilliseconds:")
def _waitFor(ev, receiver, milliseconds):
    if not isinstance(milliseconds, int) or isinstance(milliseconds, bool):
        raise errors.messageNotUnderstood(classOf(milliseconds).name, "_generality")
    found = scheduling(ev)
    if found.active is not found.main:
        raise NotModeled("a forked process waits on a Semaphore")
    deadline = time.monotonic() + max(milliseconds, 0) / 1000
    found.awaited = receiver
    try:
        for each in list(found.forked):
            if receiver.excess or time.monotonic() >= deadline:
                break
            if each.state == "cut":
                raise NotModeled("a process cut at a deadline would run again")
            if each.state == "ready":
                _run(ev, found, each, deadline)
    finally:
        found.awaited = None
    if receiver.excess:
        receiver.excess -= 1
        return True
    ev.sleep(deadline - time.monotonic())
    return False


def _run(ev, found, process, deadline):
    from gsmcpd.testing.simulator.evaluator import NonLocalReturn
    saved = ev.stack, ev.handlers, ev.deadline
    ev.stack, ev.handlers, ev.deadline = [], [], deadline
    found.active, process.state = process, "running"
    try:
        ev.value(process.block)
        process.state = "done"
    except Preempted:
        process.state = "cut"
    except errors.SmalltalkError as e:
        raise NotModeled(f"{e.className} in a forked process, unhandled there") from None
    except NonLocalReturn:
        raise NotModeled("a ^ in a forked block") from None
    finally:
        ev.stack, ev.handlers, ev.deadline = saved
        found.active = found.main


@method("ExecBlock", "forkAt:")
def _forkAt(ev, receiver, priority):
    if not isinstance(priority, int) or not LOWEST <= priority <= HIGHEST:
        raise errors.outOfRange(f"a priority is {LOWEST} to {HIGHEST}")
    if receiver.numArgs:
        raise errors.messageNotUnderstood("ExecBlock", "value")
    found = scheduling(ev)
    if found.active is not found.main or priority >= found.main.priority:
        raise NotModeled("a process forked at or above the active one's priority, "
                         "or by a forked process")
    process = Process(CLASSES["GsProcess"], block=receiver, priority=priority)
    found.forked.append(process)
    return process


@method("ProcessorScheduler", "activeProcess")
def _activeProcess(ev, receiver):
    return scheduling(ev).active


@method("GsProcess", "priority")
def _priority(ev, receiver):
    return receiver.priority


@method("GsProcess", "terminate")
def _terminate(ev, receiver):
    if receiver.block is None:
        raise NotModeled("the main process terminated")
    if receiver.state == "running":
        raise NotModeled("a process terminating itself")
    if receiver.state in ("ready", "cut"):
        receiver.state = "terminated"
    return receiver


"""
The simulated stone's sampling profiler, read as GemStone's C{ProfMonitor}
answers its results: C{ProfMonitor new}, C{intervalNs:},
C{startMonitoring}, C{stopMonitoring}, C{gatherResults}, C{results},
C{removeFile}, and each result's C{ProfMonitorEntry} (C{cmethod}, C{tally},
C{total}, C{children}, and the instance variables C{cmethod} and
C{rcvrClass}); C{System millisecondsToRun:} beside them.  The protocol is
tODE's (C{TDProfileTool}, C{TDProfMonitor}, C{TDProfMonitorEntry}); the
instance variables MagLev's C{ProfMonitorEntry_ruby.gs}.

A stone's CPU clock (L{Stone.cpuClock}) is, as a gem's is, the CPU time
its session's calls took, each on its thread (L{threadCPU}), so a time is
the run's own; a test that wants exact counts gives its stone L{sendClock}, at
which every send costs L{SEND_NS} (and no jitter, below).  While a monitor
runs, the first send after each interval has passed takes the samples then
due: each the stack of the sender, as GemStone's process reflection shows
it (L{frames}), each activation as its GsNMethod and the class of its
receiver.  Each interval strays from the one asked for by up to the
stone's jitter (L{Stone.sampleJitter}; seeded, so the same on every run):
the model's loops are far more regular than a CPU's, and at an interval
they divide, samples at exact intervals would keep to one phase of them.
Samples so follow where the CPU went: a phase of a loop that takes longer
is more often the one running when an interval ends.  An entry is one (method,
receiver class) pair: its C{tally} the samples with it innermost (self),
its C{total} those with it anywhere on the stack, its C{children} the
entries seen directly above it.

Where GemStone's behaviour is not shown in public, the model is stricter
(C{docs/gemstone-fidelity.rst}): a monitor runs once, must be stopped
before it is gathered, is gathered once and removes its file once; one
monitor runs in a session at a time; an interval is at least 1 µs;
C{children} is nil for an entry with none.  The results and each entry's
children are Arrays here; GemStone's classes for them are not shown, so a
template only enumerates them.
"""

import random
import threading
import time
import weakref
from collections import Counter
from itertools import pairwise

import attr

from gsmcpd.testing.simulator import errors, frames
from gsmcpd.testing.simulator.kernel import (
    CLASSES,
    classMethod,
    classOf,
    integer,
    method,
)
from gsmcpd.testing.simulator.objects import Array, Instance

SEND_NS = 1_000
"""The CPU time of one send by L{sendClock}, in nanoseconds."""

DEFAULT_INTERVAL_NS = 1_000_000
"""A monitor's interval until C{intervalNs:} sets one (tODE's man page: "The
default interval is 1 ms")."""

DEFAULT_JITTER = 0.5
"""Each interval is drawn between half and one and a half of the one asked
for: the mean is the same, the phase in a loop is not."""

MIN_INTERVAL_NS = 1_000
"""The shortest interval the model takes (MagLev's C{Gprof.compute_interval}
answers no less)."""


_monitors = weakref.WeakKeyDictionary()


@attr.s
class _SessionClock:
    """
    Where a session's CPU clock stands: the thread it last read on, that
    thread's CPU time at the clock's zero, and its last reading.
    """

    thread = attr.ib()
    zero = attr.ib()
    last = attr.ib(default=0)


_clocks = weakref.WeakKeyDictionary()


def threadCPU(session):
    """
    A stone's CPU clock: the nanoseconds of CPU C{session}'s calls have
    taken, as a gem's CPU adds up.  A call runs on one thread; on the next
    call's thread the clock goes on from where the last reading left it.
    """
    now = time.thread_time_ns()
    thread = threading.current_thread()
    clock = _clocks.get(session)
    if clock is None:
        clock = _clocks[session] = _SessionClock(thread, now)
    elif clock.thread is not thread:
        clock.thread, clock.zero = thread, now - clock.last
    clock.last = now - clock.zero
    return clock.last


def sendClock(session):
    """
    A CPU clock for tests: every send of C{session} costs L{SEND_NS}, so
    times and sample counts are exact and the same on every run.
    """
    return session.sends * SEND_NS


def monitorsOf(session):
    """
    The C{ProfMonitor}s made in C{session}, for a test to see what they
    left behind (one monitoring, a file not removed).
    """
    return list(_monitors.get(session, ()))


def _misuse(detail):
    return errors.SmalltalkError(
        errors.APPLICATION_ERROR, "Error",
        errors.describe("Error", errors.APPLICATION_ERROR, detail))


@attr.s(eq=False)
class ProfMonitor(Instance):
    """
    One monitor: its interval, where it is in its life (C{new},
    C{monitoring}, C{stopped}, C{gathered}), the samples it took (how many
    of each stack), and whether its sample file is still there.
    """

    session = attr.ib(default=None)
    intervalNs = attr.ib(default=DEFAULT_INTERVAL_NS)
    state = attr.ib(default="new")
    due = attr.ib(default=0)
    """The CPU time, in nanoseconds, at which the next sample is due."""
    samples = attr.ib(factory=Counter)
    results = attr.ib(default=None)
    hasFile = attr.ib(default=True)
    jitter = attr.ib(default=0)
    """How far each interval may stray from C{intervalNs}, as a fraction of
    it (L{Stone.sampleJitter})."""
    spread = attr.ib(factory=lambda: random.Random(0))

    def nextInterval(self):
        """
        The CPU time to the next sample: the interval, spread by the
        jitter, so that samples never keep to one phase of a loop.
        """
        reach = self.jitter * self.intervalNs
        return self.intervalNs + round(self.spread.uniform(-reach, reach))

    def tick(self, ev):
        """
        A send is made: take every sample now due, of the sender's stack.
        """
        now = self.session.stone.cpuClock(self.session)
        if now >= self.due:
            due = 0
            while now >= self.due:
                due += 1
                self.due += self.nextInterval()
            self.samples[_sample(ev)] += due

    def require(self, state, doing):
        if self.state != state:
            raise _misuse(f"a ProfMonitor {self.state} cannot {doing}")


@attr.s(eq=False)
class ProfMonitorEntry(Instance):
    """
    One method (with its receiver's class) of a monitor's results.
    """

    tally = attr.ib(default=0)
    total = attr.ib(default=0)
    children = attr.ib(default=None)


def _sample(ev):
    """
    The running stack, outermost first, as (GsNMethod, receiver class) pairs.
    """
    keys = []
    for entry in ev.stack:
        if isinstance(entry, tuple):
            function, receiver, _, selector = entry
            keys.append((frames.kernelMethod(ev, function, receiver, selector),
                         classOf(receiver)))
        else:
            keys.append((frames.activeMethod(ev, entry), classOf(entry.home.receiver)))
    return tuple(keys)


def gather(samples):
    """
    The entries C{samples} (a count of each stack) make, in the order
    their methods were first seen.
    """
    tally, total, children = Counter(), Counter(), {}
    for sample, count in samples.items():
        tally[sample[-1]] += count
        total.update(dict.fromkeys(sample, count))
        for caller, callee in pairwise(sample):
            children.setdefault(caller, {})[callee] = None
    entries = {key: ProfMonitorEntry(CLASSES["ProfMonitorEntry"],
                                     {"cmethod": key[0], "rcvrClass": key[1]},
                                     tally=tally[key], total=count)
               for key, count in total.items()}
    for key, entry in entries.items():
        if key in children:
            entry.children = Array([entries[each] for each in children[key]])
    return list(entries.values())


@classMethod("ProfMonitor", "new")
def _new(ev, receiver):
    monitor = ProfMonitor(receiver, session=ev.session)
    _monitors.setdefault(ev.session, []).append(monitor)
    return monitor


@method("ProfMonitor", "intervalNs:")
def _intervalNs(ev, receiver, nanoseconds):
    receiver.require("new", "change its interval")
    if integer(nanoseconds) < MIN_INTERVAL_NS:
        raise errors.outOfRange(
            f"an interval of {nanoseconds} ns is under {MIN_INTERVAL_NS} ns")
    receiver.intervalNs = nanoseconds
    return receiver


@method("ProfMonitor", "startMonitoring")
def _startMonitoring(ev, receiver):
    receiver.require("new", "start")
    session = ev.session
    if session.profiler is not None:
        raise _misuse("another ProfMonitor is monitoring this session")
    receiver.state = "monitoring"
    receiver.jitter = session.stone.sampleJitter
    receiver.due = session.stone.cpuClock(session) + receiver.nextInterval()
    session.profiler = receiver
    return receiver


@method("ProfMonitor", "stopMonitoring")
def _stopMonitoring(ev, receiver):
    receiver.require("monitoring", "stop")
    receiver.state = "stopped"
    receiver.session.profiler = None
    return receiver


@method("ProfMonitor", "gatherResults")
def _gatherResults(ev, receiver):
    receiver.require("stopped", "gather its results")
    receiver.state = "gathered"
    receiver.results = Array([Array(gather(receiver.samples))])
    return receiver


@method("ProfMonitor", "removeFile")
def _removeFile(ev, receiver):
    if receiver.state == "monitoring" or not receiver.hasFile:
        raise _misuse(f"a ProfMonitor {receiver.state} has no file to remove")
    receiver.hasFile = False
    return receiver


@method("ProfMonitorEntry", "cmethod")
def _cmethod(ev, receiver):
    return receiver.slots["cmethod"]


def _reader(className, name):
    """
    Register C{className}'s accessor C{name}, answering the model's
    attribute of that name.
    """
    @method(className, name)
    def read(ev, receiver):
        return getattr(receiver, name)


for _className, _name in (("ProfMonitor", "results"), ("ProfMonitorEntry", "tally"),
                          ("ProfMonitorEntry", "total"), ("ProfMonitorEntry", "children")):
    _reader(_className, _name)


@classMethod("System", "millisecondsToRun:")
def _millisecondsToRun(ev, receiver, block):
    """
    The CPU time of C{block}, by its stone's clock.
    """
    session = ev.session
    before = session.stone.cpuClock(session)
    ev.value(block)
    return (session.stone.cpuClock(session) - before) // 1_000_000

"""
C{--profile}: py-spy samples of the daemon (and its stone) under load, so a
missed target comes with the evidence of where the time went.

Each profile is written as collapsed stacks (C{NAME.folded}: one line per
stack, frames joined by C{;}, then its sample count), which speedscope and
C{flamegraph.pl} draw as a flame graph, and summarized beside it
(C{NAME.txt}): the share of samples each thread took and the functions that
were on top of the stack most often.  Idle threads are not sampled, so the
samples stand for CPU (or GIL-holding) time.
"""

import collections
import os
import shutil
import subprocess
import sys

TOP = 25
"""How many functions the summary lists."""


def findPySpy():
    """
    py-spy, from the bench's virtualenv or the path.

    @raise RuntimeError: when it is not installed.
    """
    beside = os.path.join(os.path.dirname(sys.executable), "py-spy")
    path = beside if os.path.exists(beside) else shutil.which("py-spy")
    if path is None:
        raise RuntimeError("--profile needs py-spy: install the bench "
                           "extra (pip install -e '.[bench]'; bin/bench "
                           "does this)")
    return path


class Sampler:
    """
    py-spy sampling one process into C{PREFIX.folded}; L{wait} writes the
    summary C{PREFIX.txt}.
    """

    def __init__(self, pid, seconds, prefix):
        self.folded = prefix + ".folded"
        self.summary = prefix + ".txt"
        self.process = subprocess.Popen(
            [findPySpy(), "record", "--pid", str(pid), "--duration",
             str(max(1, int(seconds))), "--rate", "200", "--nonblocking",
             "--threads", "--format", "raw", "--output", self.folded],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def wait(self):
        self.process.wait()
        if not os.path.exists(self.folded):
            return
        with open(self.folded) as f:
            text = summarize(parseFolded(f))
        with open(self.summary, "w") as f:
            f.write(text)


def record(pid, seconds, prefix):
    """
    Start sampling C{pid} for C{seconds}; C{--nonblocking} so the sampling
    does not pause what it measures.

    @return: the L{Sampler}, to wait for.
    """
    return Sampler(pid, seconds, prefix)


def parseFolded(lines):
    """
    Collapsed stacks as C{(frames, count)} pairs, outermost frame first
    (with C{--threads}, the thread).
    """
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if stack and count.isdigit():
            yield stack.split(";"), int(count)


def _function(frame):
    """
    A frame without its line number: C{name (file)}.
    """
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit(':', 1)[0].rstrip(')')})" if where \
        else name


def summarize(stacks, top=TOP):
    """
    The share of samples each thread took, and the functions most often on
    top of the stack (self) and anywhere in it (total).
    """
    threads = collections.Counter()
    selfTime = collections.Counter()
    totalTime = collections.Counter()
    total = 0
    for frames, count in stacks:
        total += count
        threads[frames[0]] += count
        if len(frames) > 1:
            selfTime[_function(frames[-1])] += count
        for function in {_function(frame) for frame in frames[1:]}:
            totalTime[function] += count
    if not total:
        return "no samples\n"
    lines = [f"{total} samples", "", "By thread:"]
    lines += [f"  {count / total:6.1%}  {thread}"
              for thread, count in threads.most_common(10)]
    lines += ["", "Self (on top of the stack):"]
    lines += [f"  {count / total:6.1%}  {function}"
              for function, count in selfTime.most_common(top)]
    lines += ["", "Total (anywhere in the stack):"]
    lines += [f"  {count / total:6.1%}  {function}"
              for function, count in totalTime.most_common(top)]
    return "\n".join(lines) + "\n"

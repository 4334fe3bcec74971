"""
Start and stop a simulated stone process (a test double, not GemStone).

Used by the tests and by the daemon's C{--simulated} mode; it needs no
reactor.  The stone's NRS is its socket path.
"""

import os
import selectors
import signal
import subprocess
import sys
import time

import attr

READY_TIMEOUT = 10.0
LOAD_TIMEOUT = {"demo": 0.0, "kernel": 240.0}
"""Seconds a repository may add to start-up: generating the kernel-sized
one takes about 15 s of CPU (parsing 40,000 distinct sources), over a
minute on a loaded machine."""


class SimulatorStartError(Exception):
    """
    The simulated stone did not start; the message says what it printed on
    its standard output.
    """


@attr.s(eq=False)
class SimulatorProcess:
    """
    A running simulated stone.

    @ivar socketPath: its socket, which is also the stone NRS to log in to.
    @ivar banner: the line it printed when ready.
    """

    process = attr.ib()
    socketPath = attr.ib()
    banner = attr.ib()

    def stop(self, timeout=5.0):
        """
        Stop it with SIGTERM (SIGKILL if it does not go within C{timeout}).
        """
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdin.close()
        self.process.stdout.close()


def launch(socketPath, maxLogins=10, user=None, passwordFile=None,
           timeout=READY_TIMEOUT, workerUsers=(), repository="demo"):
    """
    Start C{python -m gsmcpd.testing.simulator} on C{socketPath} and wait for its
    ready line.  C{workerUsers} are restricted users to seed besides
    McpReadOnly (C{--worker-user}); C{repository} is the code it starts with
    (C{--repository}: demo, or the generated kernel-sized one), whose
    L{LOAD_TIMEOUT} adds to C{timeout}.

    @raise SimulatorStartError: it exited or stayed silent for C{timeout}
        seconds.
    """
    return start(socketPath, maxLogins, user, passwordFile, timeout, workerUsers,
                 repository).ready()


@attr.s(eq=False)
class Starting:
    """
    A simulated stone started but not yet waited for (L{start}): a caller
    may do other work while it loads its repository.
    """

    process = attr.ib()
    socketPath = attr.ib()
    timeout = attr.ib()

    def ready(self):
        """
        Wait for its ready line, as L{launch} does: the L{SimulatorProcess}.

        @raise SimulatorStartError: it exited or stayed silent for its
            timeout, counted from now.
        """
        process = self.process
        banner = _readLine(process, self.timeout)
        if "listening on" not in banner:
            if process.poll() is None:
                process.kill()
            rest = process.stdout.read().decode("utf-8", "replace")
            process.wait()
            process.stdin.close()
            process.stdout.close()
            raise SimulatorStartError(
                "the simulated stone did not start (its error output went to ours): "
                f"{(banner + rest).strip() or 'no output'}")
        return SimulatorProcess(process, self.socketPath, banner)


def start(socketPath, maxLogins=10, user=None, passwordFile=None,
          timeout=READY_TIMEOUT, workerUsers=(), repository="demo"):
    """
    Start the simulated stone as L{launch} does, without waiting for it: a
    L{Starting}.
    """
    command = [sys.executable, "-m", "gsmcpd.testing.simulator", "--socket", os.fspath(socketPath),
               "--max-logins", str(maxLogins), "--exit-on-stdin-eof"]
    if user is not None:
        command += ["--user", user]
    if passwordFile is not None:
        command += ["--password-file", os.fspath(passwordFile)]
    for each in workerUsers:
        command += ["--worker-user", each]
    command += ["--repository", repository]
    # Only the ready line comes on stdout; the stone's error output is ours,
    # so nothing it writes later can fill a pipe nobody reads.  Its own
    # session keeps a terminal's Ctrl-C for us (we stop it in order); the
    # stdin pipe stops it if we die first.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.PIPE,
                               start_new_session=True)
    return Starting(process, os.fspath(socketPath), timeout + LOAD_TIMEOUT[repository])


def _readLine(process, timeout):
    """
    The first line C{process} prints, or what it printed before C{timeout}.
    """
    deadline = time.monotonic() + timeout
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while b"\n" not in data:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                break
            chunk = os.read(process.stdout.fileno(), 4096)
            if not chunk:
                break
            data += chunk
    return data.decode("utf-8", "replace").strip()

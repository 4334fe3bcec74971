"""
The servers the bench starts, each a child process on a free loopback port,
and what the kernel says about their memory and threads.
"""

import os
import signal
import socket
import subprocess
import sys
import time

STOP_TIMEOUT = 30.0


def freePort():
    """
    A loopback port nothing listens on right now.
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpuSeconds(pid):
    """
    The user and system CPU seconds C{pid} has used, from C{/proc/PID/stat}.
    """
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid):
    """
    The pids of C{pid}'s live child processes (gsmcpd's: its stone), from
    whichever of its threads started them.
    """
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(child) for child in f.read().split()]
        except FileNotFoundError:
            pass
    return found


def procStatus(pid):
    """
    C{VmRSS} (in MB) and C{Threads} from C{/proc/PID/status}.
    """
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            fields[name] = value.split()
    return {"rss_mb": int(fields["VmRSS"][0]) / 1024,
            "threads": int(fields["Threads"][0])}


class Server:
    """
    One child process serving HTTP on C{port}; its output goes to
    C{logPath}.
    """

    def __init__(self, name, argv, directory, port=None):
        self.name = name
        self.port = port or freePort()
        self.logPath = os.path.join(directory, f"{name}.log")
        self._argv = [a.format(port=self.port) for a in argv]
        self.process = None

    @property
    def pid(self):
        return self.process.pid

    def start(self, timeout=30.0):
        with open(self.logPath, "wb") as log:
            self.process = subprocess.Popen(
                self._argv, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited:\n{self.logTail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not listen in {timeout}s:\n"
                           f"{self.logTail()}")

    def status(self):
        return procStatus(self.pid)

    def cpu(self):
        """
        CPU seconds used so far by the server and by its children.
        """
        return (cpuSeconds(self.pid),
                sum(cpuSeconds(child) for child in children(self.pid)))

    def logTail(self, lines=20):
        with open(self.logPath, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])

    def stop(self):
        """
        SIGTERM, as systemd stops a service, then SIGKILL if it lingers.
        """
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def echo(directory):
    """
    The bare C{twisted.web} JSON-RPC echo (L{gsmcpd.testing.bench.echo}).
    """
    return Server("echo", [sys.executable, "-m", "gsmcpd.testing.bench.echo",
                           "{port}"],
                  directory)


def sdkServer(directory):
    """
    The official Python SDK's server with one trivial tool
    (L{gsmcpd.testing.bench.sdkserver}).
    """
    return Server("sdk", [sys.executable, "-m",
                          "gsmcpd.testing.bench.sdkserver", "{port}"],
                  directory)


def twistd():
    """
    The C{twistd} beside this Python (the virtualenv's), else the same
    entry point run by this Python.
    """
    beside = os.path.join(os.path.dirname(sys.executable), "twistd")
    if os.access(beside, os.X_OK):
        return [beside]
    return [sys.executable, "-c",
            "from twisted.scripts.twistd import run; run()"]


def gsmcpd(directory, name="gsmcpd", accessLog=False, extra=(),
           stone=("--simulated",)):
    """
    C{twistd -n --pidfile= gsmcp --simulated --max-sessions none}, as
    shipped: no session cap (the simulated stone's login cap follows it),
    no connection caps (the capacity probe holds a thousand streams from
    one address), and the access log off unless C{accessLog}.

    @param stone: the options naming the stone: the simulated one, or
        L{gsmcpd.testing.bench.nullstone.daemonOptions} for the null stone.
    """
    argv = [*twistd(), "--nodaemon", "--pidfile=", "gsmcp", *stone,
            "--port", "tcp:{port}:interface=127.0.0.1",
            "--max-sessions", "none", "--max-connections", "none",
            "--max-connections-per-peer", "none"]
    if accessLog:
        argv.append("--access-log")
    argv += extra
    return Server(name, argv, directory)

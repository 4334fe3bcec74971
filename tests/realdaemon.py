"""
A real C{twistd -n gsmcp} process on a free loopback port, for tests that
drive the daemon as a client would.
"""

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time

from twisted.trial.unittest import SynchronousTestCase

TWISTD = ("from twisted.scripts.twistd import run; run()",)
TWISTD_GSMCP = (sys.executable, "-c", *TWISTD, "--nodaemon", "--pidfile=",
                "gsmcp")
GSMCPD_SERVE = (sys.executable, "-c",
                "from gsmcpd.daemon.early import run; run()", "serve")
"""The two ways to run the daemon in the foreground."""
CLIENTS = os.path.join(os.path.dirname(__file__), "clients")
"""The MCP client scripts the real-socket tests run."""


def freePort():
    """
    A loopback port nothing listens on right now.
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path, headers=None):
    """
    C{(status, headers, body)} of C{GET path} on a loopback port.
    """
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


class Daemon:
    """
    C{twistd -n gsmcp --simulated ...} as a child process.

    @ivar url: the daemon's C{/mcp} URL.
    @ivar logPath: where its log goes.
    @param stone: the options that name its stone: by default its own
        simulated one.
    @param command: L{TWISTD_GSMCP} or L{GSMCPD_SERVE}.
    @param environ: variables to add to the daemon's environment.
    """

    def __init__(self, directory, *arguments, port=None, endpoint=None,
                 stone=("--simulated",), command=TWISTD_GSMCP, environ=None,
                 spawned=lambda process: None):
        """
        @param port: the loopback port to listen on (default: a free one).
        @param endpoint: the C{--port} description, when it is not plain
            TCP on C{port}.
        @param spawned: called with the process as soon as it is started,
            before its port is waited for.
        """
        self.port = port or freePort()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.logPath = os.path.join(directory, "twistd.log")
        self._log = open(self.logPath, "wb")
        self.process = subprocess.Popen(
            [*command, *stone, "--port",
             endpoint or f"tcp:{self.port}:interface=127.0.0.1", *arguments],
            stdout=self._log, stderr=subprocess.STDOUT, cwd=directory,
            env=dict(os.environ, **(environ or {})))
        spawned(self.process)
        self._waitForPort(timeout=30)

    def _waitForPort(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"twistd exited:\n{self.log()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"twistd did not listen in {timeout}s:\n"
                           f"{self.log()}")

    def stoneSocket(self):
        """
        The simulated stone's socket, as the daemon logged it.
        """
        found = re.search(r"started the simulated stone .* at (\S+)",
                          self.log())
        return found.group(1)

    def rpc(self, method, session=None, id=1, **params):
        """
        One JSON-RPC request over a fresh connection: C{(status, headers,
        parsed body or None)}.
        """
        headers = {"content-type": "application/json",
                   "accept": "application/json, text/event-stream"}
        if session is not None:
            headers["mcp-session-id"] = session
        connection = http.client.HTTPConnection("127.0.0.1", self.port,
                                                timeout=60)
        try:
            connection.request("POST", "/mcp", json.dumps(
                {"jsonrpc": "2.0", "id": id, "method": method,
                 "params": params}), headers)
            response = connection.getresponse()
            body = response.read()
        finally:
            connection.close()
        return (response.status, dict(response.getheaders()),
                json.loads(body) if body else None)

    def initialize(self):
        """
        A new session's id.
        """
        status, headers, body = self.rpc("initialize",
                                         protocolVersion="2025-11-25")
        if status != 200 or "error" in body:
            raise RuntimeError(f"initialize failed: {status} {body}")
        # Header names are case-insensitive; a proxy may lowercase them.
        return {name.lower(): value for name, value in headers.items()}[
            "mcp-session-id"]

    def log(self):
        with open(self.logPath, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        """
        Stop it as systemd would (SIGTERM) and wait.
        """
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        return self.process.returncode


class DaemonTestCase(SynchronousTestCase):
    """
    Tests that start real daemons, each in a directory of its own and
    stopped at the end, and run clients whose last line is a JSON report.
    """

    def startDaemon(self, *arguments, **options):
        """
        A L{Daemon} started with C{arguments} and C{options}.
        """
        directory = os.path.abspath(self.mktemp())
        os.makedirs(directory)
        daemon = Daemon(directory, *arguments, **options)
        self.addCleanup(daemon.stop)
        return daemon

    def runClient(self, *command):
        """
        Run a client C{command}: its report, which must name no
        C{problems}.
        """
        finished = subprocess.run(command, capture_output=True, text=True,
                                  timeout=120)
        seen = json.loads(finished.stdout.splitlines()[-1])
        self.assertEqual(seen["problems"], [], finished.stderr[-2000:])
        return seen


class AgentFlowTestCase(DaemonTestCase):
    """
    A real daemon serving C{toolsets}, and an agent's flow against it: the
    script C{flow} (in C{tests/clients/}) run with the daemon's URL and a
    mode, whose last line is a JSON report of what it saw, with no
    C{problems}.
    """

    flow: str
    toolsets: str

    def setUp(self):
        self.daemon = self.startDaemon("--toolsets", self.toolsets)

    def runFlow(self, mode):
        return self.runClient(sys.executable, os.path.join(CLIENTS, self.flow),
                              self.daemon.url, mode)

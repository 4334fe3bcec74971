"""
Two daemons behind HAProxy on loopback, sharing one simulated stone (a
test double, not GemStone), with the shipped C{etc/haproxy/gsmcpd.cfg}:
every MCP session keeps its GemStone session across calls, a full daemon
gets no new session (its agent check says so), and a daemon being stopped
gets none either while the sessions it holds keep reaching it until its
drain grace ends.
"""

import base64
import contextlib
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from twisted.trial.unittest import SkipTest, SynchronousTestCase

from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.launch import launch
from tests.realdaemon import Daemon, freePort

CONFIG = Path(__file__).resolve().parents[2] / "etc" / "haproxy" / \
    "gsmcpd.cfg"
MODERN = "2026-07-28"
MODERN_META = {"io.modelcontextprotocol/protocolVersion": MODERN,
               "io.modelcontextprotocol/clientCapabilities": {}}
CLIENTS = 10
CALLS = 20
SESSIONS_PER_DAEMON = CLIENTS + 2
DRAIN_GRACE = 8
CHECK_INTERVAL = 1.0
"""The configuration's inter: HAProxy marks a server down after one
failed check."""


def modernRequest(port, id, name, arguments, handle=None, wrapped=False):
    """
    One MCP 2026-07-28 tools/call to a loopback port: C{(status, headers,
    parsed body)}.

    @param wrapped: send the handle's header in the base64-wrapped form
        the 2026-07-28 revision lets a client use (SEP-2243).
    """
    headers = {"content-type": "application/json",
               "accept": "application/json, text/event-stream",
               "mcp-protocol-version": MODERN, "mcp-method": "tools/call",
               "mcp-name": name}
    if handle is not None:
        headers["mcp-param-session"] = handle if not wrapped else \
            "=?base64?" + base64.b64encode(handle.encode()).decode() + "?="
        arguments = dict(arguments, session=handle)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", "/mcp", json.dumps({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments,
                       "_meta": MODERN_META}}), headers)
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    return (response.status,
            {k.lower(): v for k, v in response.getheaders()},
            json.loads(body) if body else None)


class Proxy:
    """
    HAProxy running the shipped configuration in the foreground.
    """

    rpc = Daemon.rpc
    _waitForPort = Daemon._waitForPort
    initialize = Daemon.initialize

    def __init__(self, directory, *servers):
        self.port = freePort()
        environ = dict(os.environ, GSMCPD_BIND=f"127.0.0.1:{self.port}",
                       **{f"GSMCPD_SERVER{n}": f"127.0.0.1:{daemon.port}"
                          for n, daemon in enumerate(servers, 1)},
                       **{f"GSMCPD_AGENT{n}": str(daemon.agentPort)
                          for n, daemon in enumerate(servers, 1)})
        self.logPath = os.path.join(directory, "haproxy.log")
        self._log = open(self.logPath, "wb")
        self.process = subprocess.Popen(
            [shutil.which("haproxy"), "-db", "-f", str(CONFIG)],
            env=environ, stdout=self._log, stderr=subprocess.STDOUT)
        self._waitForPort(timeout=10)

    def log(self):
        with open(self.logPath, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self._log.close()


class ProxiedDaemons(SynchronousTestCase):
    """
    Two daemons, each with C{caps} sessions at most, behind HAProxy.
    """

    caps = (SESSIONS_PER_DAEMON, SESSIONS_PER_DAEMON)
    drainGrace = 0
    """The daemons' C{--drain-grace}: none but where draining is tested
    (L{DrainTests}), as a stopping daemon waits it out at each test's end."""

    def setUp(self):
        if shutil.which("haproxy") is None:
            raise SkipTest("haproxy is not installed (apt-get install "
                           "haproxy)")
        directory = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        socketPath = os.path.join(directory, "stone")
        stone = launch(socketPath, maxLogins=sum(self.caps) + 2 * 2)
        self.addCleanup(stone.stop)
        passwordFile = os.path.join(directory, "password")
        with open(passwordFile, "w") as f:
            f.write("swordfish\n")
        os.chmod(passwordFile, 0o600)
        self._directory = directory
        self._stone = ("--gci-library", libraryPath(), "--stone", socketPath,
                       "--password-file", passwordFile)
        self.started = []
        self.addCleanup(self.stopTogether)
        self.daemons = [self.startDaemon(name, cap)
                        for name, cap in zip(("one", "two"), self.caps,
                                             strict=True)]
        self.proxy = Proxy(directory, *self.daemons)
        self.addCleanup(self.proxy.stop)

    def startDaemon(self, name, cap, port=None, agentPort=None):
        """
        A daemon on the shared stone, with at most C{cap} sessions and an
        agent check (on C{port} and C{agentPort}, or free ones).
        """
        directory = os.path.join(self._directory, name)
        os.mkdir(directory)
        agentPort = agentPort or freePort()
        daemon = Daemon(directory, "--max-sessions", str(cap),
                        "--drain-grace", str(self.drainGrace), "--agent-port",
                        str(agentPort), port=port, stone=self._stone)
        daemon.agentPort = agentPort
        self.started.append(daemon)
        return daemon

    def stopTogether(self):
        """
        Tell every daemon still running to stop at once, so their drains
        overlap, then wait for each.
        """
        for daemon in self.started:
            if daemon.process.poll() is None:
                daemon.process.terminate()
        for daemon in self.started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                daemon.process.wait(self.drainGrace + 30)
            daemon.stop()

    def gemSession(self, session, id):
        """
        The GemStone session number a call through HAProxy ran on.
        """
        status, _, body = self.proxy.rpc(
            "tools/call", session, id, name="execute_code",
            arguments={"code": "System session"})
        self.assertEqual(status, 200, body)
        self.assertNotIn("error", body)
        return body["result"]["content"][0]["text"]

    def holder(self, session):
        """
        The daemon that knows C{session}.
        """
        holders = [daemon for daemon in self.daemons
                   if daemon.process.poll() is None
                   and daemon.rpc("ping", session)[0] == 200]
        self.assertEqual(len(holders), 1)
        return holders[0]


class ProxiedClients(ProxiedDaemons):
    """
    L{ProxiedDaemons} and the clients of both eras their tests run.
    """

    def client(self, number):
        session = self.proxy.initialize()
        seen = {self.gemSession(session, id) for id in range(2, CALLS + 2)}
        return session, seen

    def modernCall(self, id, name, arguments, handle=None, wrapped=False):
        """
        One MCP 2026-07-28 tools/call through HAProxy, answered 200:
        C{(headers, result)}.

        @param wrapped: send the handle's header in the base64-wrapped form
            the 2026-07-28 revision lets a client use (SEP-2243).
        """
        status, headers, body = modernRequest(
            self.proxy.port, id, name, arguments, handle, wrapped)
        self.assertEqual(status, 200, body)
        return headers, body["result"]

    def modernClient(self, number):
        headers, opened = self.modernCall(1, "open_session", {})
        handle = opened["structuredContent"]["session"]
        self.assertEqual(headers["mcp-param-session"], handle)
        seen = {self.modernCall(id, "execute_code",
                                {"code": "System session"}, handle,
                                wrapped=bool(id % 2))[1]["content"][0]["text"]
                for id in range(2, CALLS + 2)}
        return handle, seen

    def handleHolder(self, handle):
        """
        The daemon that holds the 2026-07-28 session C{handle}.
        """
        holders = [daemon for daemon in self.daemons
                   if daemon.process.poll() is None
                   and modernRequest(daemon.port, 1, "execute_code",
                                     {"code": "1"}, handle)[0] == 200]
        self.assertEqual(len(holders), 1)
        return holders[0]

    def openOn(self, daemon, open, holder):
        """
        Open sessions through HAProxy with C{open} until one lands on
        C{daemon} (HAProxy then knows where it is): that one.
        """
        for _ in range(10):
            opened = open()
            if holder(opened) is daemon:
                return opened
        self.fail(f"HAProxy sent no session to {daemon.port}")

    def openHandle(self):
        headers, opened = self.modernCall(1, "open_session", {})
        return opened["structuredContent"]["session"]

    def modernText(self, id, code, handle):
        return self.modernCall(id, "execute_code", {"code": code},
                               handle)[1]["content"][0]["text"]

class HaproxyTests(ProxiedClients):

    def test_sessionsStick(self):
        """
        Ten clients at once, twenty calls each: every call of a client runs
        on its one GemStone session, and both daemons take clients.
        """
        with ThreadPoolExecutor(CLIENTS) as pool:
            results = list(pool.map(self.client, range(CLIENTS)))
        gemSessions = set()
        for session, seen in results:
            self.assertEqual(len(seen), 1, f"{session} ran on {seen}")
            gemSessions |= seen
        self.assertEqual(len(gemSessions), CLIENTS)
        holders = {self.holder(session) for session, _ in results}
        self.assertEqual(len(holders), 2)

    def test_handlesStick(self):
        """
        MCP 2026-07-28: HAProxy learns each handle from open_session's
        Mcp-Param-Session response header and routes the calls carrying it
        to the daemon holding its GemStone session, whether the header
        carries the handle as it is or base64-wrapped (every other call).
        """
        with ThreadPoolExecutor(CLIENTS) as pool:
            results = list(pool.map(self.modernClient, range(CLIENTS)))
        for handle, seen in results:
            self.assertEqual(len(seen), 1, f"{handle} ran on {seen}")
        self.assertEqual(len({seen.pop() for _, seen in results}), CLIENTS)


class DrainTests(ProxiedClients):

    drainGrace = DRAIN_GRACE

    def test_drainKeepsItsSessions(self):
        """
        Once a daemon is told to stop, it opens no new session (asked
        directly, it answers serverStopping), and every new session goes
        to the other; its call in flight finishes, and for the whole grace
        HAProxy still sends it the requests of the 2025 session and the
        2026-07-28 handle it holds, which run on their own GemStone
        sessions and commit.  Once the grace is over it is down: their
        next request is answered 404 by the other daemon.  Started again,
        it gets new sessions again.
        """
        draining, staying = self.daemons
        legacy = self.openOn(draining, self.proxy.initialize, self.holder)
        handle = self.openOn(draining, self.openHandle, self.handleHolder)
        legacyGem = self.gemSession(legacy, 2)
        modernGem = self.modernText(2, "System session", handle)
        with ThreadPoolExecutor(1) as pool:
            inFlight = pool.submit(
                self.proxy.rpc, "tools/call", legacy, 3, name="execute_code",
                arguments={"code": "(Delay forSeconds: 2) wait. 42"})
            time.sleep(0.5)
            draining.process.terminate()
            time.sleep(0.5)
            status, _, body = draining.rpc("initialize",
                                           protocolVersion="2025-11-25")
            self.assertEqual(body["error"]["data"], {"kind": "serverStopping"})
            status, _, body = inFlight.result(30)
        self.assertEqual(status, 200)
        self.assertEqual(body["result"]["content"][0]["text"], "42", body)
        time.sleep(2 * CHECK_INTERVAL)

        sessions = [self.proxy.initialize() for _ in range(5)]
        self.assertEqual({self.holder(s) for s in sessions}, {staying})
        self.assertEqual(self.gemSession(legacy, 4), legacyGem)
        self.proxy.rpc("tools/call", legacy, 5, name="execute_code",
                       arguments={"code": "UserGlobals at: #Drained2025 "
                                  "put: 2025"})
        status, _, body = self.proxy.rpc("tools/call", legacy, 6,
                                         name="commit", arguments={})
        self.assertEqual((status, body["result"]["content"][0]["text"]),
                         (200, "Committed."), body)
        self.assertEqual(self.modernText(3, "System session", handle),
                         modernGem)
        # To the newest view, where the other's commit is (or the two
        # writes to UserGlobals conflict).
        self.modernCall(4, "abort", {}, handle)
        self.modernText(5, "UserGlobals at: #Drained2026 put: 2026", handle)
        self.assertEqual(self.modernCall(6, "commit", {}, handle)[1][
            "content"][0]["text"], "Committed.")
        self.assertIsNone(draining.process.poll(), "the drain ended early")
        # HAProxy's own account: NOLB (the 404) and DRAIN (the agent).
        self.assertIn("gsmcpd1 is stopping", self.proxy.log())
        self.assertIn("gsmcpd1 enters drain state", self.proxy.log())

        draining.process.wait(DRAIN_GRACE + 30)
        self.assertEqual(self.proxy.rpc("ping", legacy)[0], 404)
        status, _, body = modernRequest(self.proxy.port, 7, "execute_code",
                                        {"code": "1"}, handle)
        self.assertEqual((status, body["error"]["code"]), (404, -32004))
        self.assertEqual(self.proxy.rpc(
            "tools/call", self.proxy.initialize(), 2, name="execute_code",
            arguments={"code": "(UserGlobals at: #Drained2025) + "
                       "(UserGlobals at: #Drained2026)"})[2]["result"][
                "content"][0]["text"], "4051")

        # Restarted, it takes new sessions again: HAProxy counts it up,
        # and its agent's "ready" ends the DRAIN the last one's set.
        again = self.startDaemon("again", self.caps[0], draining.port,
                                 draining.agentPort)
        self.daemons[0] = again
        deadline = time.monotonic() + 30
        while "gsmcpd1 is UP" not in self.proxy.log():
            self.assertLess(time.monotonic(), deadline, self.proxy.log())
            time.sleep(0.2)
        self.openOn(again, self.proxy.initialize, self.holder)


class CapacityTests(ProxiedDaemons):

    caps = (3, 24)

    def test_fullDaemonGetsNoNewSession(self):
        """
        With one daemon full, its agent check answers drain: twenty new
        sessions in a row all open, on the other; the full one's sessions
        still reach it.
        """
        full, roomy = self.daemons
        # One session on it through HAProxy, which learns where it is.
        for _ in range(10):
            proxied = self.proxy.initialize()
            if self.holder(proxied) is full:
                break
        else:
            self.fail("HAProxy sent no session to the first daemon")
        while full.rpc("initialize", protocolVersion="2025-11-25")[2].get(
                "result"):
            pass
        time.sleep(2 * CHECK_INTERVAL + 0.5)
        sessions = [self.proxy.initialize() for _ in range(20)]
        self.assertEqual({self.holder(s) for s in sessions}, {roomy})
        self.assertTrue(self.gemSession(proxied, 2))

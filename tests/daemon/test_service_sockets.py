"""
The whole daemon in this process, on a real loopback socket, against the
simulated stone: isolation between clients, and one client's long call
never stalling another's.
"""

import json
import time

import treq
from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase
from twisted.web.client import HTTPConnectionPool

from gsmcpd.daemon.options import Options
from gsmcpd.daemon.served import SIMULATED_TITLE
from gsmcpd.daemon.service import assemble
from gsmcpd.daemon.stone import loadLibrary
from gsmcpd.testing.simulator.control import SimulatorControl


class ServiceTestCase(TestCase):

    @inlineCallbacks
    def setUp(self):
        options = Options()
        options.parseOptions(["--simulated", "--port",
                              "tcp:0:interface=127.0.0.1",
                              "--toolsets", "execution session"])
        config = options.config({})
        self.service = assemble(config, loadLibrary(config), reactor)
        self.service.startService()
        self.addCleanup(self.service.stopService)
        self.stone = self.service.getServiceNamed("stone")
        port = yield self.service.whenServing()
        self.url = f"http://127.0.0.1:{port.getHost().port}/mcp"
        self.http = HTTPConnectionPool(reactor, persistent=False)
        self.ids = iter(range(1, 1000))

    @inlineCallbacks
    def rpc(self, method, session=None, **params):
        headers = {"content-type": ["application/json"],
                   "accept": ["application/json, text/event-stream"]}
        if session:
            headers["mcp-session-id"] = [session]
        response = yield treq.post(
            self.url, headers=headers, pool=self.http,
            data=json.dumps({"jsonrpc": "2.0", "id": next(self.ids),
                             "method": method, "params": params}).encode())
        body = yield response.json()
        return response, body

    @inlineCallbacks
    def initialize(self):
        response, body = yield self.rpc("initialize",
                                        protocolVersion="2025-11-25")
        return response.headers.getRawHeaders("mcp-session-id")[0], body

    @inlineCallbacks
    def execute(self, session, code):
        _, body = yield self.rpc("tools/call", session, name="execute_code",
                                 arguments={"code": code})
        return body["result"]


class ServiceTests(ServiceTestCase):

    @inlineCallbacks
    def test_simulatedTitle(self):
        _, body = yield self.initialize()
        self.assertEqual(body["result"]["serverInfo"]["title"],
                         SIMULATED_TITLE)

    @inlineCallbacks
    def test_executeCode(self):
        session, _ = yield self.initialize()
        result = yield self.execute(session, "3 + 4")
        self.assertEqual(result["content"], [{"type": "text", "text": "7"}])

    @inlineCallbacks
    def test_clientsAreIsolated(self):
        """
        An uncommitted change in one client is invisible to another; after
        a commit it is visible once the other refreshes.
        """
        first, _ = yield self.initialize()
        second, _ = yield self.initialize()
        result = yield self.execute(first,
                                    "UserGlobals at: #Shared put: 42")
        self.assertIn("[session]", result["content"][-1]["text"])
        result = yield self.execute(
            second, "UserGlobals at: #Shared ifAbsent: [#none]")
        self.assertEqual(result["content"][0]["text"], "#none")
        _, body = yield self.rpc("tools/call", first, name="commit")
        self.assertFalse(body["result"]["isError"])
        result = yield self.execute(
            second, "UserGlobals at: #Shared ifAbsent: [#none]")
        self.assertEqual(result["content"][0]["text"], "#none")
        yield self.rpc("tools/call", second, name="refresh")
        result = yield self.execute(
            second, "UserGlobals at: #Shared ifAbsent: [#none]")
        self.assertEqual(result["content"][0]["text"], "42")

    @inlineCallbacks
    def test_conflictingCommitReported(self):
        first, _ = yield self.initialize()
        second, _ = yield self.initialize()
        yield self.execute(first, "UserGlobals at: #Contested put: 1")
        yield self.execute(second, "UserGlobals at: #Contested put: 2")
        _, body = yield self.rpc("tools/call", first, name="commit")
        self.assertFalse(body["result"]["isError"])
        _, body = yield self.rpc("tools/call", second, name="commit")
        self.assertTrue(body["result"]["isError"])
        self.assertEqual(
            body["result"]["structuredContent"]["error"]["kind"], "refused")

    @inlineCallbacks
    def test_longCallStallsNoOtherClient(self):
        """
        While one client's execute_code sleeps five seconds in the stone, a
        second client's tools/call is answered within half a second.
        """
        sleeper, _ = yield self.initialize()
        other, _ = yield self.initialize()
        sleeping = self.execute(sleeper, "(Delay forSeconds: 5) wait. #woke")
        started = time.monotonic()
        result = yield self.execute(other, "6 * 7")
        elapsed = time.monotonic() - started
        self.assertEqual(result["content"][0]["text"], "42")
        self.assertLess(elapsed, 0.5)
        self.assertFalse(sleeping.called)
        result = yield sleeping
        self.assertEqual(result["content"][0]["text"], "#woke")

    @inlineCallbacks
    def test_stopLogsEverySessionOut(self):
        yield self.initialize()
        yield self.initialize()
        control = SimulatorControl(self.stone.simulator.socketPath)

        def loggedIn():
            return len(control.call({"op": "sessions"})["sessions"])

        # Two clients' sessions and the daemon's own, which stopping logs
        # out last, just before it stops the stone.
        self.assertEqual(loggedIn(), 3)
        yield self.stone.sessions.closeAll("the server is stopping")
        self.assertEqual(loggedIn(), 1)

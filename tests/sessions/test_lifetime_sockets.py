"""
Session lifetime over real sockets, against a real C{twistd gsmcp
--simulated}: a hung-up stream, a killed gem, a runaway call.
"""

import http.client
import time

from gsmcpd.testing.simulator.control import SimulatorControl
from tests.realdaemon import DaemonTestCase


class LiveDaemonTestCase(DaemonTestCase):

    arguments = ()

    def setUp(self):
        self.daemon = self.startDaemon(*self.arguments)
        self.control = SimulatorControl(self.daemon.stoneSocket())

    def loggedIn(self):
        """
        The stone's logged-in sessions, the daemon's own control session
        included.
        """
        return len(self.control.call({"op": "sessions"})["sessions"])

    def execute(self, session, code, id=2):
        return self.daemon.rpc("tools/call", session, id, name="execute_code",
                               arguments={"code": code})


class StreamLossTests(LiveDaemonTestCase):

    arguments = ("--stream-loss-grace", "2")

    def test_closedStreamLogsOutWithinGrace(self):
        """
        A client that closes its GET stream has its GemStone session logged
        out within the grace plus one second.
        """
        session = self.daemon.initialize()
        before = self.loggedIn()
        stream = http.client.HTTPConnection("127.0.0.1", self.daemon.port,
                                            timeout=10)
        stream.request("GET", "/mcp", headers={
            "mcp-session-id": session, "accept": "text/event-stream"})
        response = stream.getresponse()
        self.assertEqual(response.status, 200)
        self.assertTrue(response.readline().startswith(b":"))
        stream.close()
        closed = time.monotonic()
        while self.loggedIn() == before and time.monotonic() - closed < 5:
            time.sleep(0.1)
        self.assertEqual(self.loggedIn(), before - 1)
        self.assertLess(time.monotonic() - closed, 2 + 1)
        status, _, _ = self.daemon.rpc("ping", session)
        self.assertEqual(status, 404)


class DeadGemTests(LiveDaemonTestCase):

    arguments = ("--max-sessions", "1")

    def test_killedGemIsSessionGoneThen404(self):
        session = self.daemon.initialize()
        _, _, status = self.daemon.rpc("tools/call", session, 3,
                                       name="status")
        number = status["result"]["structuredContent"]["session"]
        self.control.call({"op": "kill", "session": number})
        code, _, body = self.execute(session, "3 + 4", id=41)
        self.assertEqual(code, 200)
        self.assertEqual(body["id"], 41)
        self.assertEqual(body["error"]["code"], -32001)
        self.assertEqual(body["error"]["data"]["kind"], "sessionGone")
        self.assertNotIn(self.daemon.stoneSocket(), str(body))
        code, _, _ = self.daemon.rpc("ping", session)
        self.assertEqual(code, 404)
        again = self.daemon.initialize()
        _, _, body = self.execute(again, "3 + 4")
        self.assertEqual(body["result"]["content"][0]["text"], "7")


class DeadlineTests(LiveDaemonTestCase):

    arguments = ("--call-timeout", "2")

    def test_runawayCallEndedAndSessionServes(self):
        session = self.daemon.initialize()
        started = time.monotonic()
        code, _, body = self.execute(session, "[true] whileTrue", id=9)
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(body["id"], 9)
        self.assertEqual(body["error"]["code"], -32001)
        self.assertIn("soft break", body["error"]["message"])
        _, _, body = self.execute(session, "6 * 7")
        self.assertEqual(body["result"]["content"][0]["text"], "42")


class RunawayTests(LiveDaemonTestCase):

    arguments = ("--call-timeout", "1")

    def stoneSessions(self):
        return [s["session"]
                for s in self.control.call({"op": "sessions"})["sessions"]]

    def test_callIgnoringBothBreaksIsReplaced(self):
        """
        A call that takes neither break: its gem is stopped from the
        daemon's own session and the client gets a fresh one.
        """
        session = self.daemon.initialize()
        _, _, status = self.daemon.rpc("tools/call", session, 3,
                                       name="status")
        number = status["result"]["structuredContent"]["session"]
        self.control.call({"op": "ignoreBreaks", "session": number,
                           "which": "both"})
        _, _, body = self.execute(session, "[true] whileTrue", id=12)
        self.assertEqual(body["id"], 12)
        self.assertEqual(body["error"]["data"]["step"], "replaced")
        # The client hears as soon as the replacement is under way; the
        # daemon's own session stops the abandoned gem alongside.
        deadline = time.monotonic() + 10
        while number in self.stoneSessions() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertNotIn(number, self.stoneSessions())
        _, _, body = self.execute(session, "6 * 7")
        self.assertEqual(body["result"]["content"][0]["text"], "42")


class WorkerUserTests(DaemonTestCase):

    def test_sessionsRunAsTheWorkerUser(self):
        daemon = self.startDaemon("--worker-user", "McpReadOnly")
        session = daemon.initialize()
        _, _, body = daemon.rpc("tools/call", session, 2, name="status")
        self.assertEqual(body["result"]["structuredContent"]["user"],
                         "McpReadOnly")
        daemon.rpc("tools/call", session, 3, name="execute_code",
                   arguments={"code": "UserGlobals at: #X put: 1"})
        _, _, body = daemon.rpc("tools/call", session, 4, name="commit")
        self.assertTrue(body["result"]["isError"])
        self.assertIn("2249", body["result"]["content"][0]["text"])

    def test_unmintableWorkerRefusesToStart(self):
        error = self.assertRaises(RuntimeError, self.startDaemon,
                                  "--worker-user", "Nobody")
        self.assertIn("refusing to start", str(error))
        self.assertIn("addOnetimePasswordUserId: 'Nobody'", str(error))

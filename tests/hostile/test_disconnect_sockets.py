"""
Clients that hang up or give up, against a live C{twistd gsmcp
--simulated} whose stone counts its logins (issue 11, items 1, 2 and 9):
a disconnect cancels the call, a DELETE breaks what runs and answers once
the session is gone, and the cap is never exceeded on the stone.
"""

import http.client
import json
import socket
import threading
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator.control import SimulatorControl
from tests.hostile.live import LiveDaemon

SLEEPING = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "execute_code", "arguments": {
                "code": "(Delay forSeconds: 30) wait. 1"}}}


class StoneWatch:
    """
    A thread sampling the stone's logged-in sessions, for the most it ever
    saw at once.
    """

    def __init__(self, control):
        self.control = control
        self.most = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def loggedIn(self):
        return len(self.control.call({"op": "sessions"})["sessions"])

    def _watch(self):
        while not self._stop.wait(0.02):
            self.most = max(self.most, self.loggedIn())

    def stop(self):
        self._stop.set()
        self._thread.join()
        return self.most


class CarelessClientTests(LiveDaemon, SynchronousTestCase):

    arguments = ("--max-sessions", "2", "--streamless-idle-timeout", "3")

    def setUp(self):
        super().setUp()
        self.control = SimulatorControl(self.daemon.stoneSocket())
        self.watch = StoneWatch(self.control)
        self.addCleanup(self.assertCapHeld)

    def assertCapHeld(self):
        # Two sessions and the daemon's own.
        self.assertLessEqual(self.watch.stop(), 3)

    def hangUpDuring(self, document, after=0.5, method="POST"):
        """
        Send C{document} on a connection closed C{after} seconds later,
        before any answer.
        """
        body = json.dumps(document).encode() if document else b""
        with socket.create_connection(("127.0.0.1", self.daemon.port)) as s:
            s.sendall(
                f"{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Content-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\n"
                f"Mcp-Session-Id: {self.session}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            time.sleep(after)

    def ignoreBreaks(self, which):
        """
        Make the session's next call ignore C{which} breaks; answer its
        stone session number.
        """
        _, status = self.call({"jsonrpc": "2.0", "id": 1, "method":
                               "tools/call", "params": {"name": "status"}})
        number = status["result"]["structuredContent"]["session"]
        self.control.call({"op": "ignoreBreaks", "session": number,
                           "which": which})
        return number

    def execute(self, code, id=3):
        return self.call({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "execute_code",
                                     "arguments": {"code": code}}})

    def sessionNumbers(self):
        return [s["session"] for s in self.control.call(
            {"op": "sessions"})["sessions"]]

    def test_disconnectCancelsTheCall(self):
        """
        A client that hangs up during a call cancels it: the call takes a
        soft break, and the session serves its next request at once, with
        its GemStone session intact.
        """
        self.execute("UserGlobals at: #Kept put: 42")
        self.hangUpDuring(SLEEPING)
        started = time.monotonic()
        _, answer = self.execute("UserGlobals at: #Kept")
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(answer["result"]["content"][0]["text"], "42")
        self.assertIn("(cancelled): soft", self.daemon.log())

    def test_busySessionNotReapedAsIdle(self):
        """
        A session whose client hung up during a call that takes no break is
        not reaped as idle while its gem runs: it is ended as a cancelled
        call is, and its login comes back.
        """
        number = self.ignoreBreaks("both")
        self.hangUpDuring(SLEEPING)
        deadline = time.monotonic() + 15
        while "took neither" not in self.daemon.log() and \
                time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertIn("(cancelled): hard", self.daemon.log())
        # The logout follows the log line on the session's own thread.
        deadline = time.monotonic() + 10
        while number in self.sessionNumbers() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertNotIn(number, self.sessionNumbers())
        self.assertPingAnswers()

    def test_deleteBreaksARunningCall(self):
        """
        DELETE of a session whose call runs breaks the call and answers once
        the session is logged out.
        """
        before = self.watch.loggedIn()
        self.hangUpDuring(SLEEPING, after=0.1)
        started = time.monotonic()
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.daemon.port, timeout=20)
        connection.request("DELETE", "/mcp",
                           headers={"mcp-session-id": self.session})
        response = connection.getresponse()
        self.assertEqual(response.status, 200)
        self.assertEqual(response.getheader("content-type"),
                         "application/json")
        self.assertEqual(json.loads(response.read()), {})
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(self.watch.loggedIn(), before - 1)

    def test_deleteGivenUpStillHoldsTheSlot(self):
        """
        A DELETE whose client gives up does not free the slot before the
        logout: with the cap reached, an initialize is refused until the
        stone has the login back, then admitted.
        """
        other = self.daemon.initialize()
        self.ignoreBreaks("soft")
        self.hangUpDuring(SLEEPING, after=0.1)
        self.hangUpDuring(None, after=0.2, method="DELETE")
        status, _, body = self.daemon.rpc("initialize",
                                          protocolVersion="2025-11-25")
        self.assertEqual(body["error"]["data"]["kind"], "sessionLimit")
        deadline = time.monotonic() + 15
        while self.watch.loggedIn() > 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.session = self.daemon.initialize()
        self.daemon.rpc("ping", other)

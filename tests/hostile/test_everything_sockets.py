"""
Every case of issue 11 in turn against one live C{twistd gsmcp
--simulated}, whose stone refuses any login past C{--max-sessions} and the
daemon's own: each gets its specified answer, and afterwards C{ping}
answers, the daemon's RSS is within 50 MB of where it started, no log line
is over 2 KB, and no login was ever refused.
"""

import http.client
import json
import socket
import threading
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator.control import SimulatorControl
from tests.hostile.live import LiveDaemon

MAX_SESSIONS = 3
MEGABYTE = 1 << 20
SLEEP = "(Delay forSeconds: 30) wait. 1"


def residentBytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024


def request(method, id=1, **params):
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params}


def tool(name, id=1, **arguments):
    return request("tools/call", id, name=name, arguments=arguments)


class EveryCaseTests(LiveDaemon, SynchronousTestCase):

    arguments = ("--max-sessions", str(MAX_SESSIONS),
                 "--streamless-idle-timeout", "5")

    def setUp(self):
        super().setUp()
        self.control = SimulatorControl(self.daemon.stoneSocket())
        # Any login past the cap and the daemon's own now fails with 4039,
        # which the daemon logs.
        self.control.call({"op": "maxLogins", "value": MAX_SESSIONS + 1})
        self.assertPingAnswers()
        self.startRss = residentBytes(self.daemon.process.pid)
        self.figures = {}

    def raw(self, data, after=0.0):
        """
        Send C{data} on a fresh connection; read until it closes (or
        C{after} seconds, then hang up).
        """
        with socket.create_connection(("127.0.0.1", self.daemon.port),
                                      timeout=after or 20) as s:
            s.sendall(data)
            received = b""
            try:
                while chunk := s.recv(65536):
                    received += chunk
            except TimeoutError:
                pass
        return received

    def postHead(self, body, *extra):
        return b"\r\n".join([
            b"POST /mcp HTTP/1.1", b"Host: 127.0.0.1",
            b"Content-Type: application/json",
            b"Accept: application/json, text/event-stream",
            b"Mcp-Session-Id: " + self.session.encode(), *extra,
            b"Content-Length: %d" % (len(body),), b"", b""]) + body

    def status(self, answer):
        return int(answer.split(b" ", 2)[1])

    def test_everyCase(self):
        self.disconnectDuringCall()
        self.deleteBusySession()
        self.largeRequests()
        self.slowConnections()
        self.oddShapes()
        self.resumeDroppedStream()
        self.subscriptions()
        self.logFlood()
        self.capUnderConcurrency()
        self.oversizedHeads()
        self.hostAndOrigin()
        self.smallHoles()
        self.assertPingAnswers()
        log = self.daemon.log()
        self.figures.update(
            rssGrowth=residentBytes(self.daemon.process.pid) - self.startRss,
            longestLogLine=max(map(len, log.splitlines())))
        self.assertLess(self.figures["rssGrowth"], 50 * MEGABYTE)
        self.assertLessEqual(self.figures["longestLogLine"], 2048)
        # As a number of its own: a port number may contain the digits.
        self.assertNotRegex(log, r"\b4039\b")
        self.assertNotIn("login failed", log)
        with open(self.mktemp(), "w") as out:
            json.dump(self.figures, out)
            self.figuresPath = out.name

    def disconnectDuringCall(self):
        self.raw(self.postHead(json.dumps(tool("execute_code", 2,
                                               code=SLEEP)).encode()), 0.5)
        started = time.monotonic()
        _, answer = self.call(tool("execute_code", 3, code="3 + 4"))
        self.assertEqual(answer["result"]["content"][0]["text"], "7")
        self.figures["afterDisconnect"] = time.monotonic() - started
        self.assertLess(self.figures["afterDisconnect"], 5)

    def deleteBusySession(self):
        self.raw(self.postHead(json.dumps(tool("execute_code", 2,
                                               code=SLEEP)).encode()), 0.2)
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.daemon.port, timeout=20)
        connection.request("DELETE", "/mcp",
                           headers={"mcp-session-id": self.session})
        response = connection.getresponse()
        self.assertEqual((response.status, json.loads(response.read())),
                         (200, {}))
        self.assertEqual(response.getheader("content-type"),
                         "application/json")
        self.session = self.daemon.initialize()

    def largeRequests(self):
        answers = []
        body = json.dumps(tool("compile_class_definition", 5,
                               className="Huge",
                               instVarNames=["a"] * 1_000_000),
                          separators=(",", ":")).encode()
        self.figures["pingDuringMillionElements"] = self.slowestPingWhile(
            lambda: answers.append(self.post(body)), 0.100)
        self.assertEqual(json.loads(answers[0][2])["result"][
            "structuredContent"]["error"]["kind"], "invalidParams")
        self.assertLess(self.figures["pingDuringMillionElements"], 0.100)

    def slowConnections(self):
        opened = time.monotonic()
        slow = []
        for n in range(100):
            s = socket.create_connection(("127.0.0.1", self.daemon.port))
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      + (b"Content-Length: 100\r\n\r\n{" if n % 2 else b""))
            slow.append(s)
        latencies = []
        for _ in range(200):
            started = time.monotonic()
            self.assertPingAnswers()
            latencies.append(time.monotonic() - started)
        latencies.sort()
        self.figures["pingP99With100Slow"] = latencies[197]
        self.assertLess(self.figures["pingP99With100Slow"], 0.050)
        for s in slow:
            s.settimeout(15 - (time.monotonic() - opened))
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
            self.assertEqual(self.status(answer), 408)
            s.close()
        self.figures["slowClosedWithin"] = time.monotonic() - opened
        self.assertLess(self.figures["slowClosedWithin"], 15)

    def assertInvalid(self, document, codes=(-32600, -32602)):
        status, answer = self.call(document)
        self.assertIn(status, (200, 400))
        self.assertIn(answer["error"]["code"], codes)
        self.assertEqual(answer["id"], document.get("id"))

    def oddShapes(self):
        self.assertInvalid(request("ping", 11, _meta=[1]))
        self.assertInvalid({"jsonrpc": "2.0", "id": 12, "method": "ping",
                            "params": [1]})
        self.assertInvalid(request("tools/call", 13, name={"a": 1}))
        status, _ = self.call({"jsonrpc": "2.0", "method":
                               "notifications/cancelled",
                               "params": {"requestId": [1]}})
        self.assertEqual(status, 202)
        _, answer = self.call(tool("list_all_classes", 14, limit=1.0))
        self.assertTrue(answer["result"]["isError"])
        _, answer = self.call(tool("list_all_classes", 15, offset=10 ** 30))
        self.assertTrue(answer["result"]["isError"])
        status, _, body = self.post(b'{"jsonrpc": "2.0", "id": 16, "method":'
                                    b' "ping", "params": ' + b"[" * 300_000
                                    + b"]" * 300_000 + b"}")
        self.assertEqual((status, json.loads(body)["error"]["code"]),
                         (400, -32700))
        _, answer = self.call(tool("compile_method", 17, className="Object",
                                   source="foo ^" + "[" * 800 + "]" * 800))
        self.assertTrue(answer["result"]["isError"])
        for lastId in ("c1:\u0661", "c1:" + "9" * 5000):
            connection = http.client.HTTPConnection(
                "127.0.0.1", self.daemon.port, timeout=2)
            connection.putrequest("GET", "/mcp")
            connection.putheader("mcp-session-id", self.session)
            connection.putheader("last-event-id", lastId.encode())
            connection.endheaders()
            response = connection.getresponse()
            self.assertEqual(response.status, 200)
            connection.close()

    def resumeDroppedStream(self):
        body = json.dumps(request(
            "tools/call", 31, name="execute_code",
            _meta={"progressToken": 1},
            arguments={"code": "(Delay forSeconds: 1) wait. 6 * 7"})).encode()
        first = self.raw(self.postHead(body), 0.3)
        eventId = first.split(b"id: ")[1].split(b"\n")[0].decode()
        answer = self.raw(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Connection: close\r\nAccept: text/event-stream\r\n"
                          b"Mcp-Session-Id: " + self.session.encode() +
                          b"\r\nLast-Event-ID: " + eventId.encode() +
                          b"\r\n\r\n")
        self.assertIn(b'"id":31,"result"', answer)

    def subscriptions(self):
        uri = "test://" + "x" * MEGABYTE
        for n in range(1000):
            _, answer = self.call(request("resources/subscribe", n, uri=uri))
            self.assertIn(answer["error"]["code"], (-32601, -32602))

    def logFlood(self):
        hugeId = "i" * MEGABYTE
        self.call(request("initialize", 41, protocolVersion="2025-11-25",
                          clientInfo={"name": "n" * MEGABYTE}),
                  session=False)
        caller = threading.Thread(target=self.call, args=(
            tool("execute_code", hugeId, code="(Delay forSeconds: 2) wait"),))
        caller.start()
        time.sleep(0.5)
        self.call({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": hugeId, "reason": "r" * MEGABYTE}})
        caller.join()

    def capUnderConcurrency(self):
        # Wait for the sessions the cases above left to be reaped, then
        # fill the cap from nothing with simultaneous initializes.
        deadline = time.monotonic() + 20
        while len(self.control.call({"op": "sessions"})["sessions"]) > 1 \
                and time.monotonic() < deadline:
            self.call({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                      session=False)
            time.sleep(0.1)
        answers = []
        starters = [threading.Thread(target=lambda: answers.append(
            self.daemon.rpc("initialize", protocolVersion="2025-11-25")))
            for _ in range(MAX_SESSIONS + 1)]
        for starter in starters:
            starter.start()
        for starter in starters:
            starter.join()
        admitted = [a for a in answers if "result" in a[2]]
        self.figures["admittedOfCap"] = len(admitted)
        self.assertEqual(len(admitted), MAX_SESSIONS)
        self.session = admitted[0][1]["Mcp-Session-Id"]

    def oversizedHeads(self):
        answer = self.raw(self.postHead(b"{}", b"X-Big: " + b"x" * (17 << 10)))
        self.assertEqual(self.status(answer), 431)
        self.assertIn(b"application/json", answer)
        answer = self.raw(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          b"Content-Length: 9999999\r\nX-After: 1\r\n\r\n")
        self.assertEqual(self.status(answer), 413)

    def hostAndOrigin(self):
        answer = self.raw(self.postHead(
            json.dumps(request("ping")).encode(), b"Connection: close")
            .replace(b"Host: 127.0.0.1", b"Host: rebound.example"))
        self.assertEqual(self.status(answer), 421)
        answer = self.raw(self.postHead(
            json.dumps(request("ping")).encode(), b"Connection: close",
            b"Origin: http://evil.example"))
        self.assertEqual(self.status(answer), 403)

    def smallHoles(self):
        _, answer = self.call(tool("add_dictionary", 51,
                                   dictionaryName="Trailing\n"))
        self.assertEqual(answer["result"]["structuredContent"]["error"]
                         ["kind"], "invalidParams")
        status, _, body = self.post(b'{"jsonrpc": "2.0", "id": 52, "method":'
                                    b' "ping", "params": {"x": NaN}}')
        self.assertEqual((status, json.loads(body)["error"]["code"]),
                         (400, -32700))

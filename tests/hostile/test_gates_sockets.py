"""
The HTTP gates of a live C{twistd gsmcp --simulated} over raw sockets
(issue 11, items 4, 10 and 11): oversized heads and declared bodies, Host
and Origin, each answered with a JSON body before the connection closes.
"""

import json
import socket

from twisted.trial.unittest import SynchronousTestCase

from tests.hostile.live import LiveDaemon

PING = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'


def dechunked(data):
    body = b""
    while True:
        size, _, data = data.partition(b"\r\n")
        if not int(size, 16):
            return body
        body, data = body + data[:int(size, 16)], data[int(size, 16) + 2:]


class GateTests(LiveDaemon, SynchronousTestCase):

    def exchange(self, head, body=b"", readFor=5):
        """
        Send C{head} (the request line and headers, without the blank line)
        and C{body}; answer C{(status, headers text, parsed JSON body)}.
        """
        with socket.create_connection(("127.0.0.1", self.daemon.port),
                                      timeout=readFor) as s:
            s.sendall(head + b"\r\n\r\n" + body)
            received = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                received += chunk
        head_, _, answer = received.partition(b"\r\n\r\n")
        head_ = head_.decode("latin-1").lower()
        if "transfer-encoding: chunked" in head_:
            answer = dechunked(answer)
        return int(head_.split(" ")[1]), head_, json.loads(answer)

    def postRaw(self, *headers, body=PING):
        return self.exchange(
            b"\r\n".join([b"POST /mcp HTTP/1.1",
                          b"Content-Type: application/json",
                          b"Accept: application/json, text/event-stream",
                          b"Mcp-Session-Id: " + self.session.encode(),
                          b"Connection: close",
                          *headers,
                          b"Content-Length: %d" % (len(body),)]), body)

    def assertRefused(self, answer, status):
        code, head, body = answer
        self.assertEqual(code, status, body)
        self.assertIn("content-type: application/json", head)
        self.assertEqual(body["jsonrpc"], "2.0")
        self.assertIn("error", body)
        return body

    def test_headerLineTooLong(self):
        self.assertRefused(self.postRaw(b"X-Big: " + b"x" * (17 << 10),
                                     b"Host: localhost"), 431)

    def test_tooManyHeaders(self):
        self.assertRefused(self.postRaw(*[b"X-H%d: v" % n for n in range(120)]),
                           431)

    def test_declaredBodyTooLargeAnsweredUnread(self):
        """
        A C{Content-Length} over the cap is answered C{413} with none of the
        body sent.
        """
        answer = self.exchange(
            b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/json\r\n"
            b"Content-Length: %d\r\nX-After: 1" % (5 << 20,))
        body = self.assertRefused(answer, 413)
        self.assertIn("capped", body["error"]["message"])

    def test_reboundHostRefused(self):
        body = self.assertRefused(self.postRaw(b"Host: attacker.example:8000"),
                                  421)
        self.assertIn("--allowed-host", body["error"]["message"])

    def test_foreignOriginRefused(self):
        self.assertRefused(self.postRaw(b"Host: localhost",
                                     b"Origin: http://evil.example"), 403)

    def test_loopbackServed(self):
        status, _, body = self.post(PING, headers={
            "Host": f"127.0.0.1:{self.daemon.port}",
            "Origin": "http://localhost:3000"})
        self.assertEqual((status, json.loads(body)["result"]), (200, {}))

"""
The odd shapes careless clients send (issue 11, items 5 and 12), each
against a live C{twistd gsmcp --simulated}: a C{400} or a JSON-RPC error
carrying the request's id, never a 5xx nor HTML.
"""

import http.client
import json

from twisted.trial.unittest import SynchronousTestCase

from tests.hostile.live import LiveDaemon

INVALID = (-32600, -32602)


def request(method, id=9, **params):
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params}


class OddShapeTests(LiveDaemon, SynchronousTestCase):

    arguments = ("--call-timeout", "5", "--max-sessions", "8")

    def assertRefusedWithId(self, document, codes=INVALID):
        status, answer = self.call(document)
        self.assertIn(status, (200, 400), answer)
        self.assertIn(answer["error"]["code"], codes, answer)
        self.assertEqual(answer["id"], document["id"], answer)
        return answer

    def test_metaNotAnObject(self):
        """
        A C{_meta} that is not an object is invalid params.
        """
        for meta in (5, "token", [1], True):
            self.assertRefusedWithId(request("ping", _meta=meta))
            self.assertRefusedWithId(request(
                "tools/call", name="status", arguments={}, _meta=meta))

    def test_paramsNotAnObject(self):
        """
        C{params} that is not an object is invalid params, with the id.
        """
        for params in ([1], "x", 3, True):
            self.assertRefusedWithId({"jsonrpc": "2.0", "id": "p",
                                      "method": "tools/list",
                                      "params": params})

    def test_toolNameNotAString(self):
        """
        A tool name that is not a string, hashable or not.
        """
        for name in ({"a": 1}, ["status"], 3, None):
            self.assertRefusedWithId(request("tools/call", name=name))

    def test_cancelWithOddRequestId(self):
        """
        C{notifications/cancelled} naming a request by an id no request can
        have is accepted and does nothing.
        """
        for requestId in ([1], {"a": 1}, 1.5, None, "x" * 10_000):
            status, _ = self.call({
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": requestId, "reason": "odd"}})
            self.assertIn(status, (202, 400))

    def test_integralFloatsAndHugeNumbers(self):
        """
        C{limit}/C{offset} as integral floats or numbers no Smalltalk
        SmallInteger holds are refused as invalid params or treated as the
        integers they equal; never a failure.
        """
        for value in (1.0, 10 ** 30, -1, 2 ** 63, 1e300):
            for name in ("limit", "offset"):
                status, answer = self.call(request(
                    "tools/call", name="list_all_classes",
                    arguments={name: value}))
                self.assertEqual(status, 200)
                if "error" in answer:
                    self.assertEqual(answer["error"]["code"], -32602)
                elif answer["result"]["isError"]:
                    self.assertEqual(answer["result"]["structuredContent"]
                                     ["error"]["kind"], "invalidParams")

    def test_initializeWithoutUsableVersionThenStreamedCall(self):
        """
        A session opened with no usable C{protocolVersion} can still make a
        streamed call.
        """
        for version in (None, 5, ["2025-11-25"], "1999-01-01"):
            status, headers, body = self.post(json.dumps(request(
                "initialize", protocolVersion=version)).encode(),
                session=False)
            self.assertEqual(status, 200, body)
            self.session = headers["mcp-session-id"]
            status, answer = self.call(request(
                "tools/call", name="status", arguments={},
                _meta={"progressToken": "t"}))
            self.assertEqual(status, 200, answer)
            self.assertIn("result", answer)

    def test_lastEventIdOddDigits(self):
        """
        A C{Last-Event-ID} with non-ASCII digits or thousands of digits is
        refused (or opens a fresh stream), never a failure.
        """
        for lastId in ("x:\u0661\u0662", "x:" + "9" * 5000,
                       "\u0661:\u0661", ":1", "x:-1"):
            connection = http.client.HTTPConnection(
                "127.0.0.1", self.daemon.port, timeout=5)
            connection.putrequest("GET", "/mcp")
            connection.putheader("mcp-session-id", self.session)
            connection.putheader("accept", "text/event-stream")
            connection.putheader("last-event-id", lastId.encode("utf-8"))
            connection.endheaders()
            response = connection.getresponse()
            self.assertLess(response.status, 500, lastId[:20])
            if response.status != 200:
                self.assertEqual(response.getheader("content-type"),
                                 "application/json")
                json.loads(response.read())
            connection.close()

    def test_deeplyNestedJson(self):
        """
        JSON nested hundreds of thousands of levels deep is a parse error
        (-32700) or invalid request, answered C{400}.
        """
        depth = 300_000
        body = (b'{"jsonrpc": "2.0", "id": 4, "method": "ping", "params": '
                + b"[" * depth + b"]" * depth + b"}")
        status, headers, answer = self.post(body)
        self.assertEqual(status, 400, answer[:200])
        self.assertIn(json.loads(answer)["error"]["code"],
                      (-32700, -32600, -32602))

    def test_deeplyNestedMethodSource(self):
        """
        A method source with hundreds of nested brackets is a tool error
        (or a compile error from the stone), not a failure.
        """
        source = "foo ^" + "[" * 800 + "1" + "]" * 800
        status, answer = self.call(request(
            "tools/call", name="compile_method",
            arguments={"className": "Object", "source": source}))
        self.assertEqual(status, 200, answer)
        self.assertIn("result", answer)

    def test_nanAndInfinityRefused(self):
        """
        C{NaN} and C{Infinity} are not JSON: a parse error.
        """
        for token in (b"NaN", b"Infinity", b"-Infinity"):
            status, headers, answer = self.post(
                b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", '
                b'"params": {"name": "list_all_classes", "arguments": '
                b'{"limit": ' + token + b"}}}")
            self.assertEqual(status, 400, answer)
            self.assertEqual(json.loads(answer)["error"]["code"], -32700)

    def test_deleteAnswersJson(self):
        """
        DELETE answers JSON, as every answer on C{/mcp} does.
        """
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.daemon.port, timeout=5)
        connection.request("DELETE", "/mcp",
                           headers={"mcp-session-id": self.session})
        response = connection.getresponse()
        body = response.read()
        connection.close()
        self.assertIn(response.status, (200, 202, 204))
        if response.status != 204:
            self.assertEqual(response.getheader("content-type"),
                             "application/json")
            json.loads(body)
        self.session = self.daemon.initialize()


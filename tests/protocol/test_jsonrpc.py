"""
Tests for L{gsmcpd.protocol.jsonrpc}.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    JsonRpcError,
    invalidParams,
    parseMessage,
)


class ParseTests(SynchronousTestCase):

    def assertRefused(self, body, code, fragment):
        error = self.assertRaises(JsonRpcError, parseMessage, body)
        self.assertEqual(error.code, code)
        self.assertIn(fragment, error.message)

    def test_request(self):
        message = parseMessage(
            b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        self.assertEqual((message.kind, message.method, message.id,
                          message.params), ("request", "ping", 1, {}))

    def test_notification(self):
        message = parseMessage(
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        self.assertEqual(message.kind, "notification")

    def test_response(self):
        message = parseMessage(b'{"jsonrpc":"2.0","id":"srv-1","result":{}}')
        self.assertEqual((message.kind, message.id), ("response", "srv-1"))

    def test_nullParamsAreEmpty(self):
        message = parseMessage(
            b'{"jsonrpc":"2.0","id":1,"method":"ping","params":null}')
        self.assertEqual(message.params, {})

    def test_malformedUtf8NamesTheOffset(self):
        self.assertRefused(b'{"jsonrpc":"2.0","id":1,"method":"\xc3("}',
                           PARSE_ERROR, "byte offset 34")

    def test_malformedJson(self):
        self.assertRefused(b'{"jsonrpc":', PARSE_ERROR, "Parse error")

    def test_loneSurrogate(self):
        self.assertRefused(
            b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\\ud800"}}',
            PARSE_ERROR, "surrogate")

    def test_surrogatePairIsOneCharacter(self):
        message = parseMessage(
            b'{"jsonrpc":"2.0","id":1,"method":"x",'
            b'"params":{"a":"\\ud83d\\ude00"}}')
        self.assertEqual(message.params["a"], "\U0001F600")

    def test_batchRefused(self):
        self.assertRefused(b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
                           INVALID_REQUEST, "batches")

    def test_notJsonRpc(self):
        self.assertRefused(b'{"id":1,"method":"ping"}', INVALID_REQUEST,
                           "JSON-RPC 2.0")
        self.assertRefused(b'"ping"', INVALID_REQUEST, "JSON-RPC 2.0")

    def test_badId(self):
        self.assertRefused(b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
                           INVALID_REQUEST, "id")
        self.assertRefused(b'{"jsonrpc":"2.0","id":{},"method":"ping"}',
                           INVALID_REQUEST, "id")

    def test_noMethodNoResult(self):
        self.assertRefused(b'{"jsonrpc":"2.0","id":1}', INVALID_REQUEST,
                           "no method")

    def test_emptyArrayParamsAreEmpty(self):
        """
        Some clients send C{[]} for a method that takes nothing.
        """
        message = parseMessage(
            b'{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}')
        self.assertEqual(message.params, {})

    def test_paramsNotObject(self):
        for params in (b'[1]', b'"x"', b'3'):
            self.assertRefused(b'{"jsonrpc":"2.0","id":1,"method":"x",'
                               b'"params":' + params + b'}',
                               INVALID_PARAMS, "object")


class ErrorTests(SynchronousTestCase):

    def test_asResponse(self):
        self.assertEqual(
            JsonRpcError(-32001, "full", {"kind": "sessionLimit"})
            .asResponse(7),
            {"jsonrpc": "2.0", "id": 7, "error": {
                "code": -32001, "message": "full",
                "data": {"kind": "sessionLimit"}}})

    def test_invalidParams(self):
        """
        Every refusal of params is -32602, worded C{Invalid params: why},
        with its data and, when it could be read, the request's id.
        """
        error = invalidParams("no skill 'x'", {"kind": "tamperedState"},
                              requestId=3)
        self.assertEqual((error.code, error.message, error.data,
                          error.requestId),
                         (INVALID_PARAMS, "Invalid params: no skill 'x'",
                          {"kind": "tamperedState"}, 3))
        self.assertEqual(invalidParams("why").asResponse(1)["error"],
                         {"code": INVALID_PARAMS,
                          "message": "Invalid params: why"})

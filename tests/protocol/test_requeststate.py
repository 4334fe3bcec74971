"""
Sealed C{requestState}: verified without being stored.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern.requeststate import RequestStateSeal, requestBinding
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError

CALL = {"name": "delete_class", "arguments": {"className": "Foo"},
        "_meta": {"progressToken": 1}}


class RequestStateSealTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.seal = RequestStateSeal(self.clock, lifetime=60)

    def roundTwo(self, sealed, **changes):
        params = dict(CALL, requestState=sealed,
                      inputResponses={"confirm": {"action": "accept"}})
        params.update(changes)
        return params

    def refusal(self, params, method="tools/call", seal=None):
        error = self.assertRaises(JsonRpcError, (seal or self.seal).open,
                                  method, params)
        self.assertEqual(error.code, INVALID_PARAMS)
        self.assertEqual(error.data, {"kind": "tamperedState"})
        return error.message

    def test_roundTrip(self):
        """
        The state comes back as sealed, whatever changed between rounds
        outside the request's identity (C{_meta}, the answers).
        """
        state = {"step": 2, "methods": 14, "name": "Café"}
        sealed = self.seal.seal("tools/call", CALL, state)
        self.assertIsInstance(sealed, str)
        self.assertEqual(self.seal.open("tools/call", self.roundTwo(
            sealed, _meta={"progressToken": 9})), state)

    def test_noState(self):
        self.assertIsNone(self.seal.open("tools/call", CALL))

    def test_tampered(self):
        """
        Any change to the string is refused: appended text, a changed
        payload, garbage, a non-string.
        """
        sealed = self.seal.seal("tools/call", CALL, {"confirmed": False})
        version, body, mac = sealed.split(".")
        forged = self.seal.seal("tools/call", CALL, {"confirmed": True})
        self.assertIn("fails verification",
                      self.refusal(self.roundTwo(sealed + "-TAMPERED")))
        for bad in (f"{version}.{forged.split('.')[1]}.{mac}", "garbage",
                    "a.b.c", "é.é.é", 12345):
            self.refusal(self.roundTwo(bad))

    def test_boundToTheRequest(self):
        """
        State sealed for one request does not open for another method, tool
        or argument.
        """
        sealed = self.seal.seal("tools/call", CALL, {"confirmed": True})
        self.refusal(self.roundTwo(sealed, arguments={"className": "Bar"}))
        self.refusal(self.roundTwo(sealed, name="remove_dictionary"))
        self.refusal(self.roundTwo(sealed), method="prompts/get")

    def test_otherDaemon(self):
        """
        Another daemon (or this one after a restart: a new key) cannot open
        it.
        """
        sealed = self.seal.seal("tools/call", CALL, {})
        self.refusal(self.roundTwo(sealed),
                     seal=RequestStateSeal(self.clock))
        shared = RequestStateSeal(self.clock, key=b"k" * 32)
        self.assertEqual(RequestStateSeal(self.clock, key=b"k" * 32).open(
            "tools/call",
            self.roundTwo(shared.seal("tools/call", CALL, 1))), 1)

    def test_expires(self):
        sealed = self.seal.seal("tools/call", CALL, {})
        self.clock.advance(60)
        self.seal.open("tools/call", self.roundTwo(sealed))
        self.clock.advance(1)
        self.assertIn("expired", self.refusal(self.roundTwo(sealed)))

    def test_verifiedThenSpent(self):
        """
        A state is verified once (a call is refused for it before a
        session is lent) and spent by its round, which refuses it if it
        expired, or another round spent it, in between.
        """
        sealed = self.roundTwo(self.seal.seal("tools/call", CALL, {"n": 1}))
        verified = self.seal.verified("tools/call", sealed)
        self.assertEqual(self.seal.remembered, 0)
        self.assertEqual(self.seal.spend(verified), {"n": 1})
        error = self.assertRaises(JsonRpcError, self.seal.spend, verified)
        self.assertIn("already used", error.message)
        self.assertIsNone(self.seal.verified("tools/call", CALL))
        self.assertIsNone(self.seal.spend(None))
        late = self.roundTwo(self.seal.seal("tools/call", CALL, {}))
        verified = self.seal.verified("tools/call", late)
        self.clock.advance(self.seal.lifetime + 1)
        error = self.assertRaises(JsonRpcError, self.seal.spend, verified)
        self.assertIn("expired", error.message)

    def test_oneRoundOnly(self):
        """
        A state opens once: the same string sent again (a replayed round)
        is refused as tampered, and the nonce that says so is remembered
        only until the state's deadline, after which it is refused as
        expired.
        """
        sealed = self.seal.seal("tools/call", CALL, {"step": 1})
        again = self.seal.seal("tools/call", CALL, {"step": 1})
        self.assertNotEqual(sealed, again)
        self.assertEqual(self.seal.open("tools/call", self.roundTwo(sealed)),
                         {"step": 1})
        error = self.assertRaises(JsonRpcError, self.seal.open, "tools/call",
                                  self.roundTwo(sealed))
        self.assertIn("already used", error.message)
        self.assertEqual(error.data, {"kind": "tamperedState"})
        self.assertEqual(self.seal.open("tools/call", self.roundTwo(again)),
                         {"step": 1})
        self.assertEqual(self.seal.remembered, 2)
        self.clock.advance(61)
        self.assertIn("expired", self.refusal(self.roundTwo(sealed)))
        self.assertEqual(self.seal.remembered, 0)

    def test_verifyingSpendsNothing(self):
        """
        A call refused before its round (verified first) spends no state:
        the round still opens it; a spent or tampered one fails.
        """
        sealed = self.roundTwo(self.seal.seal("tools/call", CALL, {"n": 1}))
        self.seal.verified("tools/call", sealed)
        self.assertEqual(self.seal.open("tools/call", sealed), {"n": 1})
        error = self.assertRaises(JsonRpcError, self.seal.verified,
                                  "tools/call", sealed)
        self.assertIn("already used", error.message)
        self.assertRaises(JsonRpcError, self.seal.verified, "tools/call",
                          dict(sealed, requestState=sealed["requestState"]
                               + "x"))

    def test_binding(self):
        """
        Only the name, URI and arguments make the binding, key order aside.
        """
        self.assertEqual(
            requestBinding("tools/call",
                           {"name": "x", "arguments": {"a": 1, "b": 2}}),
            requestBinding("tools/call", {"arguments": {"b": 2, "a": 1},
                                          "name": "x", "_meta": {}}))
        self.assertNotEqual(requestBinding("tools/call", {"name": "x"}),
                            requestBinding("prompts/get", {"name": "x"}))

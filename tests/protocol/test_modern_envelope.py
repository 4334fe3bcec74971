"""
Which era a request belongs to, and a 2026-07-28 request's envelope.
"""

import base64

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern import envelope
from gsmcpd.protocol.eras.modern.envelope import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    HEADER_MISMATCH,
    LOG_LEVEL_KEY,
    MISSING_CLIENT_CAPABILITY,
    PROTOCOL_VERSION_KEY,
    UNSUPPORTED_PROTOCOL_VERSION,
    VERSION_HEADER,
    Envelope,
    checkParameterHeaders,
    decodeHeaderValue,
    httpStatus,
    isModern,
    missingCapability,
)
from gsmcpd.protocol.eras.modern.envelope import (
    readEnvelope as envelopeOf,
)
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError
from gsmcpd.protocol.versions import MODERN_VERSION

META = {PROTOCOL_VERSION_KEY: MODERN_VERSION,
        CLIENT_CAPABILITIES_KEY: {"elicitation": {}},
        CLIENT_INFO_KEY: {"name": "test", "version": "1"}}


def readEnvelope(method, params, headers):
    """
    L{envelopeOf} for C{headers} as a request carries them, its
    C{MCP-Protocol-Version} values handed over apart, as the gates do.
    """
    rest = {name: values for name, values in headers.items()
            if name != VERSION_HEADER}
    return envelopeOf(method, params, rest, headers.get(VERSION_HEADER, []))


def headersFor(method, name=None, version=MODERN_VERSION, **extra):
    headers = {"mcp-protocol-version": [version], "mcp-method": [method]}
    if name is not None:
        headers["mcp-name"] = [name]
    headers.update({key: [value] for key, value in extra.items()})
    return headers


def wrapped(text):
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


class EraTests(SynchronousTestCase):

    def test_handshakeVersionsStayOn2025Path(self):
        """
        A header naming any handshake-era revision, tolerated or not, keeps
        the request on the 2025 path, which applies its own gate.
        """
        for version in ("2024-11-05", "2025-03-26", "2025-06-18",
                        "2025-11-25", " 2025-11-25 "):
            self.assertFalse(isModern(version, {"_meta": META}), version)

    def test_noHeaderNoEnvelopeIs2025(self):
        self.assertFalse(isModern(None, {}))
        self.assertFalse(isModern(None, {"_meta": {"progressToken": 1}}))

    def test_modernHeaderOrEnvelope(self):
        """
        The 2026 header, an unknown version, or (with no header) a body that
        carries a protocol version in C{_meta}: all take the 2026 path, which
        answers what is wrong with them.
        """
        self.assertTrue(isModern(MODERN_VERSION, {}))
        self.assertTrue(isModern("v999.0.0", {}))
        self.assertTrue(isModern(None, {"_meta": META}))

    def test_httpStatus(self):
        self.assertEqual(httpStatus(-32601), 404)
        for code in (INVALID_PARAMS, HEADER_MISMATCH,
                     MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION):
            self.assertEqual(httpStatus(code), 400)
        self.assertEqual(httpStatus(-32603), 200)
        self.assertEqual(httpStatus(-32001), 200)


class EnvelopeTests(SynchronousTestCase):

    def refused(self, method, params, headers):
        return self.assertRaises(JsonRpcError, readEnvelope, method, params,
                                 headers)

    def test_complete(self):
        envelope = readEnvelope("tools/list", {"_meta": META},
                                headersFor("tools/list"))
        self.assertEqual(envelope, Envelope(
            MODERN_VERSION, {"elicitation": {}},
            {"name": "test", "version": "1"}, None))
        self.assertTrue(envelope.supports("elicitation"))
        self.assertFalse(envelope.supports("sampling"))

    def test_clientInfoIsOptional(self):
        meta = {key: value for key, value in META.items()
                if key != CLIENT_INFO_KEY}
        envelope = readEnvelope("server/discover", {"_meta": meta},
                                headersFor("server/discover"))
        self.assertIsNone(envelope.clientInfo)

    def test_missingMeta(self):
        error = self.refused("server/discover", {},
                             headersFor("server/discover"))
        self.assertEqual(error.code, INVALID_PARAMS)
        self.assertIn(PROTOCOL_VERSION_KEY, error.message)

    def test_missingRequiredKeys(self):
        """
        Either required key missing is C{-32602}, naming the key.
        """
        for key in (PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY):
            meta = {k: v for k, v in META.items() if k != key}
            error = self.refused("server/discover", {"_meta": meta},
                                 headersFor("server/discover"))
            self.assertEqual(error.code, INVALID_PARAMS)
            self.assertIn(key, error.message)

    def test_unknownVersionInBoth(self):
        """
        A version we do not speak, in header and body alike, is C{-32022}
        listing all three supported versions and echoing the request's.
        """
        meta = dict(META, **{PROTOCOL_VERSION_KEY: "v999.0.0"})
        error = self.refused("server/discover", {"_meta": meta},
                             headersFor("server/discover",
                                        version="v999.0.0"))
        self.assertEqual(error.code, UNSUPPORTED_PROTOCOL_VERSION)
        self.assertEqual(error.data, {
            "supported": ["2025-06-18", "2025-11-25", "2026-07-28"],
            "requested": "v999.0.0"})

    def test_unknownHeaderWithoutEnvelope(self):
        """
        An unknown version header on a body with no envelope (a client of
        neither era) is told the supported versions, not that C{_meta} is
        missing.
        """
        error = self.refused("tools/list", {},
                             headersFor("tools/list", version="2099-01-01"))
        self.assertEqual(error.code, UNSUPPORTED_PROTOCOL_VERSION)
        self.assertEqual(error.data["requested"], "2099-01-01")

    def test_versionHeaderDisagrees(self):
        meta = dict(META, **{PROTOCOL_VERSION_KEY: "v999.0.0"})
        error = self.refused("server/discover", {"_meta": meta},
                             headersFor("server/discover"))
        self.assertEqual(error.code, HEADER_MISMATCH)

    def test_versionHeaderMissing(self):
        headers = headersFor("tools/list")
        del headers["mcp-protocol-version"]
        error = self.refused("tools/list", {"_meta": META}, headers)
        self.assertEqual(error.code, HEADER_MISMATCH)

    def test_methodHeader(self):
        """
        C{Mcp-Method} must be present and equal the body's method exactly
        (values are case-sensitive); surrounding whitespace is not part of
        the value.
        """
        for header in ("prompts/list", "TOOLS/LIST", None):
            headers = headersFor("tools/list")
            if header is None:
                del headers["mcp-method"]
            else:
                headers["mcp-method"] = [header]
            error = self.refused("tools/list", {"_meta": META}, headers)
            self.assertEqual(error.code, HEADER_MISMATCH, header)
        headers = headersFor("tools/list")
        headers["mcp-method"] = ["  tools/list "]
        readEnvelope("tools/list", {"_meta": META}, headers)

    def test_nameHeader(self):
        """
        For a method naming a tool, prompt or resource, C{Mcp-Name} must
        carry that name: missing or different is C{-32020}; padded or
        base64-wrapped is the same name.
        """
        params = {"_meta": META, "name": "execute_code", "arguments": {}}
        for name in ("other_tool", None):
            error = self.refused("tools/call", params,
                                 headersFor("tools/call", name))
            self.assertEqual(error.code, HEADER_MISMATCH, name)
        for name in ("  execute_code ", wrapped("execute_code")):
            readEnvelope("tools/call", params, headersFor("tools/call", name))
        uri = "gemstone://class/Café/source"
        readEnvelope("resources/read", {"_meta": META, "uri": uri},
                     headersFor("resources/read", wrapped(uri)))

    def test_duplicatedHeader(self):
        """
        A routing header sent twice is refused: a router and the server
        might read different copies.
        """
        headers = headersFor("tools/list")
        headers["mcp-method"] = ["tools/list", "tools/list"]
        error = self.refused("tools/list", {"_meta": META}, headers)
        self.assertEqual(error.code, HEADER_MISMATCH)

    def test_capabilitiesMustBeAnObject(self):
        meta = dict(META, **{CLIENT_CAPABILITIES_KEY: ["sampling"]})
        error = self.refused("tools/list", {"_meta": meta},
                             headersFor("tools/list"))
        self.assertEqual(error.code, INVALID_PARAMS)

    def test_logLevel(self):
        meta = dict(META, **{LOG_LEVEL_KEY: "debug"})
        envelope = readEnvelope("tools/list", {"_meta": meta},
                                headersFor("tools/list"))
        self.assertEqual(envelope.logLevel, "debug")
        meta[LOG_LEVEL_KEY] = "chatty"
        error = self.refused("tools/list", {"_meta": meta},
                             headersFor("tools/list"))
        self.assertEqual(error.code, INVALID_PARAMS)

    def test_missingCapability(self):
        """
        A capability the request did not declare is C{-32021}, its data a
        capabilities object naming it.
        """
        self.assertTrue(Envelope(MODERN_VERSION, {"elicitation": {}})
                        .supports("elicitation"))
        error = missingCapability("sampling",
                                  "this tool asks the client's model")
        self.assertEqual(error.code, MISSING_CLIENT_CAPABILITY)
        self.assertEqual(error.data,
                         {"requiredCapabilities": {"sampling": {}}})
        self.assertIn("this tool asks the client's model", error.message)


class HeaderValueTests(SynchronousTestCase):

    def test_literal(self):
        """
        Anything not wholly wrapped is literal, base64-looking or not.
        """
        hello = base64.b64encode(b"Hello").decode()
        for value in ("plain", hello, "=?base64?" + hello,
                      hello + "?="):
            self.assertEqual(decodeHeaderValue(value), value)
        self.assertIsNone(decodeHeaderValue(None))

    def test_wrapped(self):
        self.assertEqual(decodeHeaderValue(wrapped("Hello")), "Hello")
        self.assertEqual(decodeHeaderValue(wrapped("Grüße")), "Grüße")

    def test_invalidBase64(self):
        """
        Bad padding, characters outside the alphabet, non-canonical
        encodings and bytes that are not UTF-8 are all refused.
        """
        for payload in ("SGVsbG8", "SGVs!!!bG8=", "SGVsbG9=",
                        base64.b64encode(b"\xff\xfe").decode()):
            error = self.assertRaises(JsonRpcError, decodeHeaderValue,
                                      f"=?base64?{payload}?=")
            self.assertEqual(error.code, HEADER_MISMATCH, payload)


SCHEMA = {"type": "object", "properties": {
    "session": {"type": "string", "x-mcp-header": "Session"},
    "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
    "code": {"type": "string"}}}


def shown():
    return True


def hidden():
    return False


class ParameterHeaderTests(SynchronousTestCase):

    def test_mirrored(self):
        self.assertEqual(envelope.mirroredParameters(SCHEMA),
                         {"session": "Session", "verbose": "Verbose"})

    def test_agreeing(self):
        """
        Each mirrored argument arrives with its header (any case of the
        name, wrapped or literal); absent arguments need no header.
        """
        checkParameterHeaders(SCHEMA, {"session": "abc", "verbose": True},
                              {"mcp-param-session": [wrapped("abc")],
                               "mcp-param-verbose": ["true"]}, shown)
        checkParameterHeaders(SCHEMA, {"code": "3 + 4"}, {}, shown)

    def test_notExpected(self):
        """
        Where the client was not shown the declaration, a header it did not
        send is not missed, but one it sent must still agree.
        """
        checkParameterHeaders(SCHEMA, {"session": "abc"}, {}, expected=hidden)
        for headers in ({"mcp-param-session": ["abd"]},
                        {"mcp-param-verbose": ["true"]}):
            error = self.assertRaises(
                JsonRpcError, checkParameterHeaders, SCHEMA,
                {"session": "abc"}, headers, expected=hidden)
            self.assertEqual(error.code, HEADER_MISMATCH, headers)

    def test_expectedAskedOnlyForAMissingHeader(self):
        """
        Whether the client was shown the declaration is asked only when a
        header is missing (finding out reads the catalog).
        """
        asked = []

        def asking():
            asked.append(True)
            return False
        checkParameterHeaders(SCHEMA, {"session": "abc"},
                              {"mcp-param-session": [wrapped("abc")]},
                              expected=asking)
        self.assertEqual(asked, [])
        checkParameterHeaders(SCHEMA, {"session": "abc"}, {}, expected=asking)
        self.assertEqual(asked, [True])

    def test_disagreeing(self):
        """
        A missing header, a header without its argument, a different or
        undecodable value: each is C{-32020}.
        """
        cases = [
            ({"session": "abc"}, {}),
            ({}, {"mcp-param-session": ["abc"]}),
            ({"session": "abc"}, {"mcp-param-session": ["abd"]}),
            ({"session": "Hello"},
             {"mcp-param-session": ["=?base64?SGVsbG8?="]}),
            ({"verbose": False}, {"mcp-param-verbose": ["False"]}),
        ]
        for arguments, headers in cases:
            error = self.assertRaises(JsonRpcError, checkParameterHeaders,
                                      SCHEMA, arguments, headers, shown)
            self.assertEqual(error.code, HEADER_MISMATCH, (arguments, headers))

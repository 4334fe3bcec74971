"""
The bearer gate: the challenge a request without a good token gets, and a
session answering only the identity that opened it.
"""

import json

import attr
from klein import Klein
from treq.testing import StubTreq
from twisted.internet.task import Clock
from twisted.logger import LogLevel, globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase
from twisted.web.resource import Resource
from twisted.web.test.requesthelper import DummyRequest

from gsmcpd.auth.keys import KeyFile, usableKeys
from gsmcpd.auth.resource import ProtectedResource
from gsmcpd.auth.scopes import ScopeToolsets
from gsmcpd.auth.tokens import Principal, TokenValidator
from gsmcpd.observe.clipping import CLIPPED_LENGTH
from gsmcpd.transport.bearer import (
    BearerGate,
    BearerResource,
    RefusalSummary,
    principalOf,
)
from tests.idp import AUDIENCE, ISSUER, IdentityProvider

NOW = 1_800_000_000.0


@attr.s
class _Session:
    handle = attr.ib(default="0123456789abcdef")
    principal = attr.ib(default=None)


def principal(identity):
    return Principal(identity, identity, frozenset(), NOW + 60)


class BearerGateTests(SynchronousTestCase):
    def setUp(self):
        clock = Clock()
        clock.advance(NOW)
        self.provider = IdentityProvider(now=NOW)
        self.gate = BearerGate(
            TokenValidator(KeyFile(usableKeys(self.provider.jwks())), ISSUER,
                           AUDIENCE, clock, requiredScopes={"gemstone:read"}),
            ProtectedResource(AUDIENCE, ISSUER,
                              frozenset({"gemstone:read"})),
            ScopeToolsets({"gemstone:read": frozenset({"browsing"}),
                           "gemstone:write": frozenset({"mutation"})}))

    def request(self, authorization=None):
        request = DummyRequest([b"mcp"])
        request.method = b"POST"
        request.path = b"/mcp"
        if authorization is not None:
            request.requestHeaders.setRawHeaders(b"authorization",
                                                 [authorization])
        return request

    def test_admitted(self):
        request = self.request(b"Bearer " + self.provider.token().encode())
        self.assertIsNone(self.successResultOf(self.gate.admit(request)))
        self.assertEqual(principalOf(request).user, "DataCurator")

    def test_noToken(self):
        challenge = self.successResultOf(self.gate.admit(self.request()))
        self.assertEqual(challenge.status, 401)
        self.assertNotIn("error=", challenge.authenticate)
        self.assertIsNone(principalOf(self.request()))

    def test_badToken(self):
        challenge = self.successResultOf(self.gate.admit(
            self.request(b"Bearer garbage")))
        self.assertEqual(challenge.status, 401)
        self.assertIn('error="invalid_token"', challenge.authenticate)

    def test_refusalLogClipsThePath(self):
        """
        The path and method a refused request gave are clipped in the log:
        a client chooses them, up to the length of a header line.
        """
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        request = self.request(b"Bearer garbage")
        request.path = b"/mcp?" + b"x" * 16_000
        request.method = b"\xff" * 16_000
        self.successResultOf(self.gate.admit(request))
        [event] = [e for e in events
                   if e.get("log_namespace") == BearerGate.log.namespace]
        for field in ("path", "method"):
            self.assertLess(len(event[field]), CLIPPED_LENGTH + 50)

    def test_refusalsLoggedAtDebugWithASummary(self):
        """
        Each refused token is logged at debug level; at info level, at most
        one summary a minute counts the refusals since the last, by reason.
        """
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        clock = self.gate.validator.clock

        def refuse(token):
            self.successResultOf(self.gate.admit(self.request(token)))

        def logged(level, namespace):
            return [e for e in events if e["log_level"] == level
                    and e.get("log_namespace") == namespace]

        refuse(b"Bearer garbage")
        for _ in range(50):
            clock.advance(1)
            refuse(b"Bearer garbage")
            refuse(b"Bearer " + self.provider.token(scope="other").encode())
        debug = logged(LogLevel.debug, BearerGate.log.namespace)
        self.assertEqual(len(debug), 101)
        self.assertEqual(logged(LogLevel.info, BearerGate.log.namespace), [])
        [first] = logged(LogLevel.info, RefusalSummary.log.namespace)
        self.assertEqual(first["count"], 1)
        clock.advance(10)
        refuse(b"Bearer garbage")
        summaries = logged(LogLevel.info, RefusalSummary.log.namespace)
        self.assertEqual(len(summaries), 2)
        self.assertEqual((summaries[1]["count"], summaries[1]["reasons"]),
                         (101, "50 InsufficientScope, 51 InvalidToken"))

    def test_insufficientScope(self):
        challenge = self.successResultOf(self.gate.admit(self.request(
            b"Bearer " + self.provider.token(scope="other").encode())))
        self.assertEqual(challenge.status, 403)
        self.assertIn('scope="gemstone:read"', challenge.authenticate)

    def test_metadata(self):
        request = self.request()
        document = json.loads(self.gate.metadata(request))
        self.assertEqual(document["resource"], AUDIENCE)
        self.assertEqual(request.responseHeaders.getRawHeaders(
            b"content-type"), [b"application/json"])

    def test_toolsetsFor(self):
        self.assertEqual(self.gate.toolsetsFor(Principal(
            "a", "a", frozenset({"gemstone:read", "gemstone:write"}), 0)),
            {"browsing", "mutation"})
        self.assertIsNone(BearerGate(None, None, refusals=RefusalSummary(
            Clock())).toolsetsFor(principal("a")))


class _App:
    """
    Stands in for the MCP app: answers who it was asked by.
    """

    app = Klein()

    @app.route("/mcp", methods=["POST", "GET", "DELETE"])
    def mcp(self, request):
        return principalOf(request).user.encode()


class BearerResourceTests(SynchronousTestCase):
    """
    L{BearerResource} in front of an app, through StubTreq.
    """

    def setUp(self):
        self.clock = clock = Clock()
        clock.advance(NOW)
        self.provider = IdentityProvider(now=NOW)
        self.gate = gate = BearerGate(
            TokenValidator(KeyFile(usableKeys(self.provider.jwks())), ISSUER,
                           AUDIENCE, clock),
            ProtectedResource(AUDIENCE, ISSUER))
        self.client = StubTreq(BearerResource(_App().app.resource(), gate))

    def request(self, method, path="/mcp", token=None, data=None):
        headers = {}
        if token is not None:
            headers[b"authorization"] = [b"Bearer " + token.encode()]
        response = self.successResultOf(self.client.request(
            method, "https://127.0.0.1:8443" + path, headers=headers,
            data=data))
        return response, self.successResultOf(self.client.content(response))

    def test_admitted(self):
        response, body = self.request("POST", token=self.provider.token())
        self.assertEqual((response.code, body), (200, b"DataCurator"))

    def test_challenge(self):
        response, body = self.request("POST", token="garbage")
        self.assertEqual(response.code, 401)
        self.assertIn(b'error="invalid_token"', response.headers
                      .getRawHeaders(b"www-authenticate")[0])
        self.assertEqual(json.loads(body)["error"]["code"], -32600)

    def test_refusalMarkedForTheMetrics(self):
        """
        A refused request is marked C{authRefused}, which the site's
        metrics count; an admitted one is not.
        """
        seen = []
        self.client = StubTreq(_Recording(
            BearerResource(_App().app.resource(), self.gate), seen))
        self.request("POST", token="garbage")
        self.request("POST", token=self.provider.token())
        self.assertEqual([getattr(r, "authRefused", False) for r in seen],
                         [True, False])

    def test_twoAuthorizationHeaders(self):
        """
        Two C{Authorization} headers answer 400 with a JSON-RPC error, even
        when both carry a good token, whichever era the request speaks.
        """
        good = b"Bearer " + self.provider.token().encode()
        modern = {"_meta": {"io.modelcontextprotocol/protocolVersion":
                            "2026-07-28"}}
        for method, params in (("POST", {}), ("GET", {}),
                               ("POST", modern), ("DELETE", modern)):
            response = self.successResultOf(self.client.request(
                method, "https://127.0.0.1:8443/mcp",
                headers={b"authorization": [good, good]},
                data=json.dumps({"jsonrpc": "2.0", "id": 3,
                                 "method": "ping", "params": params})))
            body = json.loads(self.successResultOf(
                self.client.content(response)))
            self.assertEqual((response.code, body["error"]["code"],
                              body["id"]), (400, -32600, 3), method)

    def test_everyVerbGated(self):
        for method in ("GET", "DELETE", "POST"):
            self.assertEqual(self.request(method)[0].code, 401)

    def test_metadataWithoutToken(self):
        for path in ("/.well-known/oauth-protected-resource",
                     "/.well-known/oauth-protected-resource/mcp"):
            response, body = self.request("GET", path)
            self.assertEqual((response.code, json.loads(body)["resource"]),
                             (200, AUDIENCE))
        self.assertEqual(self.request(
            "POST", "/.well-known/oauth-protected-resource")[0].code, 405)

    def test_refusalsCarryTheRequestsId(self):
        """
        A 401 or 403 answers with the id of the request it refuses, where
        the body parses far enough to have one.
        """
        ping = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"})
        for token in (None, "garbage"):
            response, body = self.request("POST", token=token, data=ping)
            self.assertEqual((response.code, json.loads(body)["id"]),
                             (401, 7))
        for data, expected in (
                (b"{not json", None),
                (json.dumps({"jsonrpc": "2.0", "method": "notifications/x"}),
                 None),
                (json.dumps({"jsonrpc": "2.0", "id": "a", "method": 3}), "a")):
            response, body = self.request("POST", data=data)
            self.assertEqual(json.loads(body)["id"], expected, data)

    def test_forbiddenCarriesTheRequestsId(self):
        gate = BearerGate(
            TokenValidator(KeyFile(usableKeys(self.provider.jwks())), ISSUER,
                           AUDIENCE, self.clock,
                           requiredScopes={"gemstone:read"}),
            ProtectedResource(AUDIENCE, ISSUER, frozenset({"gemstone:read"})))
        self.client = StubTreq(BearerResource(_App().app.resource(), gate))
        response, body = self.request(
            "POST", token=self.provider.token(scope="other"),
            data=json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        self.assertEqual((response.code, json.loads(body)["id"]), (403, 9))

    def test_admittedBodyIntact(self):
        """
        A refusal reads the body; an admitted request's body is the app's,
        untouched.
        """
        self.client = StubTreq(BearerResource(_Echo().app.resource(),
                                              self.gate))
        response, body = self.request("POST", token=self.provider.token(),
                                      data=b'{"x": 1}')
        self.assertEqual(body, b'{"x": 1}')


class _Echo:
    app = Klein()

    @app.route("/mcp", methods=["POST"])
    def mcp(self, request):
        return request.content.read()


class _Recording(Resource):
    """
    A resource in front of another, keeping every request it passes on.
    """

    isLeaf = True

    def __init__(self, inner, seen):
        super().__init__()
        self._inner = inner
        self._seen = seen

    def render(self, request):
        self._seen.append(request)
        return self._inner.render(request)

"""
Tests for L{gsmcpd.daemon.security}: the security settings refused
together, and an authenticated transport in memory (each person's GemStone
user, scopes choosing tools, sessions bound to identities, read-only mode,
the audit trail).
"""

import json
import os

import attr
from treq.testing import StubTreq
from twisted.internet.defer import Deferred, inlineCallbacks, succeed
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.keys import KeyFile, usableKeys
from gsmcpd.auth.resource import ProtectedResource
from gsmcpd.auth.scopes import ScopeToolsets
from gsmcpd.auth.tokens import Principal, TokenValidator
from gsmcpd.daemon.admin import Health
from gsmcpd.daemon.options import ConfigError, Options
from gsmcpd.daemon.security import (
    KEYLESS_RETRY,
    READ_ONLY_INSTRUCTIONS,
    READ_ONLY_REASON,
    FetchKeysAtStart,
    SessionPolicies,
    auditLog,
    bearerGate,
    listeningEndpoint,
    securityServices,
)
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.auditchain import verify
from gsmcpd.protocol.eras.modern.envelope import Envelope
from gsmcpd.protocol.eras.modern.handles import noSuchHandle
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.sessions.listeners import Filter
from gsmcpd.tools.catalog import ToolCatalog, buildToolsets
from gsmcpd.transport.bearer import BearerGate, BearerResource
from tests.fakes import SmalltalkRaised
from tests.idp import AUDIENCE, ISSUER, IdentityProvider
from tests.toolharness import StonePool
from tests.transport.test_modern import (
    META,
    SOURCE,
    TASKS,
    VERSION,
    ModernTestCase,
    modern,
)
from tests.transport.test_web import JSON, TransportTestCase, request

AUTH = ("--auth-issuer", ISSUER, "--auth-audience", AUDIENCE)
READ = ["browsing", "listing", "search", "session"]


def configure(*argv):
    options = Options()
    options.parseOptions(["--simulated", *argv])
    return options.config({})


class ConfigTests(SynchronousTestCase):
    """
    The security settings, checked together when the configuration is
    built.
    """

    def refusal(self, *argv):
        return str(self.assertRaises(ConfigError, configure, *argv))

    def test_unauthenticatedRemoteRefused(self):
        message = self.refusal("--port", "tcp:8000:interface=0.0.0.0")
        self.assertIn("--allow-unauthenticated-remote", message)
        configure("--port", "tcp:8000:interface=0.0.0.0",
                  "--allow-unauthenticated-remote")

    def test_authenticationOnPlaintextRemoteRefused(self):
        self.assertIn("ssl:", self.refusal("--port", "tcp:8000", *AUTH))

    def test_authenticationOnLoopbackPlaintext(self):
        self.assertTrue(configure(*AUTH).authIssuer)

    def test_issuerAndAudienceTogether(self):
        self.assertIn("go together", self.refusal("--auth-issuer", ISSUER))

    def test_detailsNeedAuthentication(self):
        self.assertIn("--auth-required-scopes needs", self.refusal(
            "--auth-required-scopes", "mcp:use"))

    def test_workerUserRefusedWithAuthentication(self):
        self.assertIn("--worker-user", self.refusal(
            "--worker-user", "McpReadOnly", *AUTH))

    def test_oneKeySource(self):
        path = IdentityProvider().writeJwks(self.mktemp())
        self.assertIn("give one", self.refusal(
            "--auth-jwks-file", path, "--auth-jwks-url",
            ISSUER + "/certs", *AUTH))

    def test_httpsIssuer(self):
        self.assertIn("https", self.refusal(
            "--auth-issuer", "http://idp.test", "--auth-audience",
            AUDIENCE))

    def test_badTlsEndpoint(self):
        self.assertIn("privateKey", self.refusal("--port", "ssl:8443"))

    def test_scopeToolsetsNameServedToolsets(self):
        self.assertIn("execution", self.refusal(
            *AUTH, "--toolsets", "browsing session",
            "--auth-scope-toolsets", '{"a": ["execution"]}'))
        config = configure(*AUTH, "--auth-scope-toolsets", json.dumps(
            {"gemstone:read": READ}))
        self.assertEqual(config.scopeToolsets.toolsetsFor({"gemstone:read"}),
                         set(READ))

    def test_readOnly(self):
        config = configure("--read-only")
        self.assertNotIn("mutation", [t.name for t in config.toolsets])
        self.assertIn(READ_ONLY_INSTRUCTIONS, config.identity.instructions)
        self.assertIn("mutation", self.refusal(
            "--read-only", "--toolsets", "browsing mutation"))

    def test_readOnlyMappingMayNameMutation(self):
        configure("--read-only", *AUTH, "--auth-scope-toolsets",
                  '{"w": ["mutation", "browsing"]}')

    def test_missingCertificateRefused(self):
        config = configure("--port", f"ssl:8443:privateKey={self.mktemp()}"
                           ":interface=127.0.0.1")
        self.assertRaises(ConfigError, listeningEndpoint, config, None)

    def test_auditLog(self):
        self.assertIsNone(auditLog(configure(), "DataCurator", ()))
        self.assertIsInstance(auditLog(configure(*AUTH), "DataCurator", ()),
                              AuditLog)
        audit = auditLog(configure("--audit-log", self.mktemp()),
                         "DataCurator", configure().toolsets)
        self.addCleanup(audit.close)
        self.assertIn("compile_method", audit.mutatingTools)
        self.assertNotIn("commit", audit.mutatingTools)

    def keyFile(self, mode=0o600):
        path = self.mktemp()
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, mode), "w") as f:
            f.write("k3y\n")
        os.chmod(path, mode)
        return path

    def test_auditKey(self):
        """
        C{--audit-key-file} makes the file's chain an HMAC under the
        file's first line; it needs C{--audit-log}, and a file only its
        owner reads.
        """
        path = self.mktemp()
        audit = auditLog(configure("--audit-log", path, "--audit-key-file",
                                   self.keyFile()), "DataCurator", ())
        audit.close()
        self.assertIsNone(verify([path], b"k3y")[0])
        refused = self.assertRaises(ConfigError, auditLog, configure(
            "--audit-log", path), "DataCurator", ())
        self.assertIn("chained with a key: give its key", str(refused))
        self.assertIn("--audit-log", self.refusal(
            "--audit-key-file", self.keyFile()))
        self.assertIn("chmod 600", self.refusal(
            "--audit-log", path, "--audit-key-file", self.keyFile(0o640)))

    def test_gateFromSettings(self):
        path = IdentityProvider().writeJwks(self.mktemp())
        config = configure(*AUTH, "--auth-jwks-file", path,
                           "--auth-required-scopes", "mcp:use",
                           "--auth-scope-toolsets", '{"g:r": ["browsing"]}')
        gate = bearerGate(config, None)
        self.assertEqual(gate.resource.metadata()["scopes_supported"],
                         ["g:r", "mcp:use"])
        self.assertIsNone(bearerGate(configure(), None))


class _Authenticated:
    """
    The transport behind L{BearerResource}, with the session policies the
    daemon assembles, over a L{tests.fakes.FakePool}.
    """

    readOnly = False

    def makePreparation(self):
        return SessionPolicies(lambda session: None, self.readOnly)

    def setUp(self):
        super().setUp()
        self.clock.advance(1_800_000_000)
        self.provider = IdentityProvider(now=self.clock.seconds())
        toolsets = buildToolsets(("execution", "session", "browsing"))
        self.gate = BearerGate(
            TokenValidator(KeyFile(usableKeys(self.provider.jwks())), ISSUER,
                           AUDIENCE, self.clock),
            ProtectedResource(AUDIENCE, ISSUER),
            ScopeToolsets({"bare": frozenset({"session"}),
                           "read": frozenset({"browsing", "session"}),
                           "write": frozenset({"browsing", "session",
                                               "execution"})}))
        self.events = []
        self.app = self.makeApp(Handlers(ToolCatalog(toolsets),
                                           ServerIdentity()))
        self.treq = StubTreq(BearerResource(self.app, self.gate))
        self.token = self.provider.token(sub="Alice", scope="write")

    def makeApp(self, dispatcher):
        return self.buildApp(dispatcher, AuditLog(self.events.append,
                                                  "DataCurator"))

    def post(self, body, session=None, headers=None):
        return super().post(body, session, dict(
            {"authorization": [f"Bearer {self.token}"]}, **(headers or {})))

    @inlineCallbacks
    def toolNames(self, session):
        _, body = yield self.post(request("tools/list", 3), session)
        return sorted(tool["name"] for tool in body["result"]["tools"])


class AuthenticatedTransportTests(_Authenticated, TransportTestCase):
    """
    The 2025 era behind L{BearerResource}.
    """

    @inlineCallbacks
    def test_tokenUserLogsIn(self):
        yield self.initialize()
        self.assertEqual(self.pool.opened[-1].user, "Alice")

    @inlineCallbacks
    def test_replacementLogsInAsTheSameUser(self):
        handle, _ = yield self.initialize()
        session = self.sessions.work.get(handle)
        session.gem.abandon = lambda reason: None  # no call is running
        yield self.sessions.replacement.replace(session, "test")
        self.assertEqual(self.pool.opened[-1].user, "Alice")
        self.assertEqual(self.sessions.work.get(handle).principal.toolsets,
                         frozenset({"browsing", "session", "execution"}))

    @inlineCallbacks
    def test_scopesChooseTools(self):
        handle, _ = yield self.initialize()
        self.assertIn("execute_code", (yield self.toolNames(handle)))
        self.token = self.provider.token(sub="Alice", scope="read")
        handle, _ = yield self.initialize()
        names = yield self.toolNames(handle)
        self.assertIn("get_method_source", names)
        self.assertNotIn("execute_code", names)
        body = yield self.call(handle, "execute_code", {"code": "1"})
        self.assertEqual(body["error"]["code"], -32602)
        self.assertIn("unknown tool", body["error"]["message"])

    @inlineCallbacks
    def test_eachRequestsTokenChoosesTools(self):
        """
        A session opened with a write token and used with a read token
        offers and runs only what the read token opens; the audit names the
        GemStone user the session logged in as.
        """
        handle, _ = yield self.initialize()
        self.token = self.provider.token(sub="Alice", scope="read")
        self.assertNotIn("execute_code", (yield self.toolNames(handle)))
        body = yield self.call(handle, "execute_code", {"code": "1"})
        self.assertIn("unknown tool", body["error"]["message"])
        self.token = self.provider.token(sub="Alice", scope="write")
        self.assertIn("execute_code", (yield self.toolNames(handle)))
        self.assertEqual(self.sessions.work.get(handle).principal.user,
                         "Alice")

    @inlineCallbacks
    def test_anotherIdentityGetsNotFound(self):
        """
        Another identity's request on a session is answered exactly as one
        on a session that does not exist: same status, same body, with the
        request's id.
        """
        handle, _ = yield self.initialize()
        self.token = self.provider.token(sub="Mallory", scope="write")
        stranger = yield self.post(request("ping", 3), handle)
        unknown = yield self.post(request("ping", 3), "0" * len(handle))
        self.assertEqual((stranger[0].code, stranger[1]),
                         (unknown[0].code, unknown[1]))
        self.assertEqual((stranger[0].code, stranger[1]["id"]), (404, 3))
        response = yield self.treq.delete(
            "http://127.0.0.1/mcp", headers={
                "authorization": [f"Bearer {self.token}"],
                "mcp-session-id": [handle]})
        self.assertEqual(response.code, 404)
        self.assertIsNotNone(self.sessions.work.get(handle))

    @inlineCallbacks
    def test_noTokenChallenged(self):
        response = yield self.treq.post(
            "http://127.0.0.1/mcp", headers=JSON,
            data=json.dumps(request("initialize")).encode())
        self.assertEqual(response.code, 401)
        self.assertEqual(self.pool.opened, [])

    @inlineCallbacks
    def test_audited(self):
        handle, _ = yield self.initialize()
        yield self.call(handle, "execute_code", {"code": "3 + 4"})
        [event] = [e for e in self.events if e.get("event") == "toolCall"]
        self.assertEqual(
            (event["identity"], event["gemstoneUser"], event["tool"],
             event["outcome"]), ("Alice", "Alice", "execute_code", "ok"))

    @inlineCallbacks
    def test_malformedCallAudited(self):
        """
        A C{tools/call} without a name or with arguments that are not an
        object gets its refusal, with its id, and the trail records it.
        """
        handle, _ = yield self.initialize()
        for params in ({"arguments": {}},
                       {"name": "execute_code", "arguments": ["1"]}):
            _, body = yield self.post(request("tools/call", 9, **params),
                                      handle)
            self.assertEqual(body["id"], 9, body)
        events = [e for e in self.events if e.get("event") == "toolCall"]
        self.assertEqual([(e["tool"], e["outcome"]) for e in events],
                         [(None, "protocolError:-32602"),
                          ("execute_code", "error:invalidParams")])


class ScopedSurfaceTests(_Authenticated, TransportTestCase):
    """
    A token's scopes choose resources, templates and prompts as they choose
    tools: without the browsing scope, no class source by resources/read.
    """

    @inlineCallbacks
    def surfaceFor(self, scope):
        self.token = self.provider.token(sub="Alice", scope=scope)
        handle, _ = yield self.initialize()
        _, templates = yield self.post(
            request("resources/templates/list", 3), handle)
        _, read = yield self.post(request(
            "resources/read", 4, uri=SOURCE), handle)
        return ([t["uriTemplate"] for t in
                 templates["result"]["resourceTemplates"]], read)

    @inlineCallbacks
    def test_withoutTheScope(self):
        templates, read = yield self.surfaceFor("bare")
        self.assertEqual(templates, [])
        self.assertEqual((read["id"], read["error"]["code"]), (4, -32002))
        self.assertEqual(self.pool.opened[-1].calls, [])

    @inlineCallbacks
    def test_withTheScope(self):
        templates, read = yield self.surfaceFor("read")
        self.assertIn("gemstone://class/{className}/source", templates)
        self.assertEqual(self.pool.opened[-1].calls[-1][0],
                         "export_class_source")


class _ReadOnly:
    """
    An authenticated transport with C{--read-only}'s session policy, over
    gems that arm the commit lock.
    """

    readOnly = True

    def setUp(self):
        super().setUp()
        self.pool.configure = lambda gem: gem.results.update(
            disable_commits=lambda args: {"armed": True})


class ReadOnlyTransportTests(_ReadOnly, AuthenticatedTransportTests):

    @inlineCallbacks
    def test_commitLockArmedAtLogin(self):
        yield self.initialize()
        self.assertIn(("disable_commits", {"reason": READ_ONLY_REASON}),
                      self.pool.opened[-1].calls)

    @inlineCallbacks
    def test_noLockNoSession(self):
        def refuse(args):
            raise SmalltalkRaised(2151, "SecurityError", "no")
        self.pool.configure = lambda gem: gem.results.update(
            disable_commits=refuse)
        response, body = yield self.post(request(
            "initialize", protocolVersion="2025-11-25", capabilities={},
            clientInfo={"name": "test", "version": "0"}))
        self.assertEqual(body["error"]["data"]["kind"], "loginFailed")
        self.assertEqual(self.pool.open_, set())
        self.assertEqual(len(self.sessions.work), 0)


class UnreachableKeys:
    """
    A key source whose authorization server answers once C{reachable}.
    """

    def __init__(self):
        self.keys = ()
        self.fetches = 0
        self.reachable = False

    def refresh(self):
        self.fetches += 1
        if self.reachable:
            self.keys = ("a key",)
        return succeed(None)


class SecurityServicesTests(SynchronousTestCase):
    def test_keysFetchedAtStart(self):
        config = configure(*AUTH)
        gate = bearerGate(config, Clock())
        fetches = []
        gate.validator.keys.refresh = lambda: fetches.append(1)
        [hangup, service] = securityServices(Clock(), None, None, gate)
        service.startService()
        self.assertEqual(fetches, [1])

    def test_keylessIsUnhealthyUntilKeysArrive(self):
        """
        While no signing key is loaded (the JWKS unreachable at start),
        C{/healthz} is 503 and the keys are fetched again every
        L{KEYLESS_RETRY} seconds; once they arrive it is 200 and the
        fetching stops.
        """
        clock = Clock()
        keys = UnreachableKeys()
        health = Health(signingKeys=keys)
        health.serving = True
        service = FetchKeysAtStart(keys, clock)
        service.startService()
        self.addCleanup(service.stopService)
        self.assertEqual(health.describe(), (503, {
            "status": "unavailable", "reason": "no signing keys are loaded"}))
        clock.advance(KEYLESS_RETRY)
        self.assertEqual(keys.fetches, 2)
        keys.reachable = True
        clock.advance(KEYLESS_RETRY)
        self.assertEqual(health.describe()[0], 200)
        clock.advance(10 * KEYLESS_RETRY)
        self.assertEqual(keys.fetches, 3)

    def test_hangupAlways(self):
        """
        A plain-HTTP daemon without an audit file still handles SIGHUP.
        """
        self.assertEqual([service.name for service in securityServices(
            None, None, None, None)], ["hangup"])


class AuthenticatedModernTests(_Authenticated, ModernTestCase):
    """
    The 2026-07-28 era behind L{BearerResource}: sessions log in as the
    token's GemStone user, handles and tasks answer only their owner, and
    scopes choose what is offered, as in the 2025 era.
    """

    @inlineCallbacks
    def test_openSessionLogsInAsTheTokensUser(self):
        handle = yield self.openSession()
        self.assertEqual(self.pool.opened[-1].user, "Alice")
        self.assertEqual(self.sessions.work.get(handle).principal.identity,
                         "Alice")

    @inlineCallbacks
    def test_readWithoutHandleLogsInAsTheTokensUser(self):
        result = yield self.tool("status")
        self.assertFalse(result["isError"], result)
        self.assertEqual([gem.user for gem in self.pool.opened], ["Alice"])

    @inlineCallbacks
    def test_anotherIdentitysHandleAsUnknown(self):
        """
        Another identity presenting a handle is told exactly what a handle
        that names nothing is told; the session and its gem are untouched.
        """
        handle = yield self.openSession()
        gem = self.pool.opened[-1]
        self.token = self.provider.token(sub="Mallory", scope="write")
        for name in ("execute_code", "close_session"):
            arguments = {"session": handle}
            if name == "execute_code":
                arguments["code"] = "3 + 4"
            response, body = yield self.send(modern(
                "tools/call", 7, name=name, arguments=arguments),
                mcp_param_session=handle)
            self.assertEqual((response.code, body),
                             (404, noSuchHandle(handle).asResponse(7)))
        self.assertIs(self.sessions.work.get(handle).gem, gem)
        self.assertEqual(gem.calls, [])

    @inlineCallbacks
    def test_ownerKeepsTheHandle(self):
        handle = yield self.openSession()
        self.token = self.provider.token(sub="Alice", scope="write")
        result = yield self.tool("execute_code",
                                 {"code": "3 + 4", "session": handle},
                                 mcp_param_session=handle)
        self.assertEqual(result["content"][0]["text"], "7")

    @inlineCallbacks
    def test_anotherIdentitysTaskAsUnknown(self):
        """
        A task answers only the identity whose call it is.
        """
        handle = yield self.openSession()
        task = self.app.modern.era.tasks.adopt(
            Deferred(), lambda: None,
            self.sessions.work.get(handle).principal)
        meta = dict(META, **{"io.modelcontextprotocol/clientCapabilities":
                             TASKS})
        _, mine = yield self.send(modern("tasks/get", 5, meta,
                                         taskId=task.taskId))
        self.assertEqual(mine["result"]["status"], "working")
        self.token = self.provider.token(sub="Mallory", scope="write")
        _, stranger = yield self.send(modern("tasks/get", 5, meta,
                                             taskId=task.taskId))
        _, cancelled = yield self.send(modern("tasks/cancel", 6, meta,
                                              taskId=task.taskId))
        self.assertEqual(stranger["error"], {
            "code": -32602, "message": f"Invalid params: no task "
            f"{task.taskId!r} (it never existed, its retention ran out, or "
            "newer ended tasks of yours replaced it)"})
        self.assertEqual(cancelled["error"]["code"], -32602)
        self.assertEqual(task.status, "working")

    @inlineCallbacks
    def test_scopesChooseTools(self):
        self.token = self.provider.token(sub="Alice", scope="read")
        _, body = yield self.send(modern("tools/list"))
        names = {tool["name"] for tool in body["result"]["tools"]}
        self.assertIn("get_method_source", names)
        self.assertNotIn("execute_code", names)
        handle = yield self.openSession()
        response, body = yield self.send(modern(
            "tools/call", 8, name="execute_code",
            arguments={"code": "1", "session": handle}),
            mcp_param_session=handle)
        self.assertEqual((body["id"], body["error"]["code"]), (8, -32602))
        self.assertIn("unknown tool", body["error"]["message"])

    @inlineCallbacks
    def test_scopesChooseResources(self):
        self.token = self.provider.token(sub="Alice", scope="bare")
        _, templates = yield self.send(modern("resources/templates/list"))
        self.assertEqual(templates["result"]["resourceTemplates"], [])
        _, read = yield self.send(modern("resources/read", 4, uri=SOURCE))
        self.assertEqual(read["id"], 4)
        self.assertIn("error", read)
        self.assertEqual(self.pool.opened, [])


    def test_listenOnlyToReadableResources(self):
        """
        A listener hears only of resources its scopes may read.
        """
        endpoint = self.app.modern.era
        wants = Filter(resourceSubscriptions=frozenset({SOURCE, "x:/y"}))
        for scope, heard in (("bare", {"x:/y"}), ("read", {SOURCE, "x:/y"})):
            principal = Principal("Alice", "Alice", frozenset({scope}), 0.0)
            principal = attr.evolve(
                principal, toolsets=self.gate.toolsetsFor(principal))
            envelope = Envelope(VERSION, {}, principal=principal)
            self.assertEqual(endpoint.listenable(wants, envelope)
                             .resourceSubscriptions, heard)


class SharedUserOverTheStoneTests(_Authenticated, ModernTestCase):
    """
    Two people whose tokens name one GemStone user, over the simulated
    stone: a call without a handle leaves nothing in a session the other's
    next call could read, though both log in as that user.
    """

    def makePool(self):
        return StonePool()

    @inlineCallbacks
    def test_sessionTempsNeverShared(self):
        self.gate.validator.userClaim = "gemstone_user"
        self.sessions.warm.perUser = 2
        self.token = self.provider.token(sub="Alice", scope="write",
                                         gemstone_user="Alice")
        result = yield self.tool("execute_code", {
            "code": "SessionTemps current at: #Planted put: 'x'. 1"})
        self.assertFalse(result["isError"], result)
        self.token = self.provider.token(sub="Mallory", scope="write",
                                         gemstone_user="Alice")
        result = yield self.tool("execute_code", {
            "code": "SessionTemps current at: #Planted ifAbsent: ['nothing']"})
        self.assertEqual(result["content"][0]["text"], "'nothing'")


class ReadOnlyModernTests(_ReadOnly, _Authenticated, ModernTestCase):
    """
    --read-only holds in the 2026 era: every session it logs in, behind a
    handle or for one read, carries the stone's commit lock.
    """

    @inlineCallbacks
    def test_commitLockArmed(self):
        yield self.openSession()
        yield self.tool("status")
        self.assertEqual(len(self.pool.opened), 2)
        for gem in self.pool.opened:
            self.assertIn(("disable_commits", {"reason": READ_ONLY_REASON}),
                          gem.calls)
        # A throwaway session's own lock comes first: a commit its code
        # sends is refused for the reason that holds, --read-only's.
        locks = [arguments["reason"] for tag, arguments
                 in self.pool.opened[-1].calls if tag == "disable_commits"]
        self.assertEqual(locks[-1], READ_ONLY_REASON)

"""
A real C{twistd gsmcp --simulated} over HTTPS with authentication, driven by
the official Python SDK client and raw HTTPS requests: each person their own
GemStone user, scopes choosing tools, and the refusals.
"""

import http.client
import json
import os
import ssl
import subprocess
import sys
import time

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator.control import SimulatorControl
from tests.idp import ISSUER, IdentityProvider, TestCA, writeIdentity
from tests.realdaemon import CLIENTS, TWISTD, Daemon, freePort

READ = ["browsing", "listing", "search", "session"]
SCOPE_TOOLSETS = {"gemstone:read": READ,
                  "gemstone:write": READ + ["mutation", "testing",
                                            "execution"]}


class TlsDaemonTestCase(SynchronousTestCase):
    """
    One daemon per test: HTTPS on loopback, tokens checked against a JWKS
    file, scopes mapped to toolsets, and L{arguments} besides.
    """

    arguments = ()

    def setUp(self):
        directory = os.path.abspath(self.mktemp())
        os.makedirs(directory)
        self.ca = TestCA()
        certificate, key = map(os.path.abspath, writeIdentity(self, self.ca))
        self.caFile = os.path.join(directory, "ca.pem")
        with open(self.caFile, "wb") as f:
            f.write(self.ca.pem())
        port = freePort()
        self.audience = f"https://localhost:{port}/mcp"
        self.provider = IdentityProvider(audience=self.audience)
        self.daemon = Daemon(
            directory, "--auth-issuer", ISSUER,
            "--auth-audience", self.audience,
            "--auth-jwks-file", self.provider.writeJwks(
                os.path.join(directory, "jwks.json")),
            "--auth-scope-toolsets", json.dumps(SCOPE_TOOLSETS),
            *self.arguments, port=port,
            endpoint=f"ssl:{port}:privateKey={key}:certKey={certificate}:"
            "interface=127.0.0.1")
        self.addCleanup(self.daemon.stop)
        control = SimulatorControl(self.daemon.stoneSocket())
        control.call({"op": "addUser", "user": "Alice",
                      "password": os.urandom(8).hex()})
        control.call({"op": "grantOnetime", "minter": "DataCurator",
                      "userId": "Alice"})

    def token(self, **claims):
        self.provider.now = time.time()
        return self.provider.token(**claims)

    def client(self, token, *mode):
        finished = subprocess.run(
            [sys.executable, os.path.join(CLIENTS,
                                          "python_sdk_bearer_client.py"),
             self.audience, self.caFile, "GSMCP_TEST_TOKEN", *mode],
            capture_output=True, text=True, timeout=60,
            env=dict(os.environ, GSMCP_TEST_TOKEN=token))
        self.assertEqual(finished.returncode, 0, finished.stderr)
        return json.loads(finished.stdout.splitlines()[-1])

    def https(self, method, path="/mcp", token=None, body=None,
              session=None):
        """
        One raw HTTPS request: C{(status, headers, body)}.
        """
        connection = http.client.HTTPSConnection(
            "localhost", self.daemon.port, timeout=30,
            context=ssl.create_default_context(cafile=self.caFile))
        headers = {"content-type": "application/json",
                   "accept": "application/json, text/event-stream"}
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        if session is not None:
            headers["mcp-session-id"] = session
        try:
            connection.request(method, path, body and json.dumps(body),
                               headers)
            response = connection.getresponse()
            return (response.status, dict(response.getheaders()),
                    response.read())
        finally:
            connection.close()



class AuthenticatedDaemonTests(TlsDaemonTestCase):

    def test_tokenUserIsTheGemStoneUser(self):
        seen = self.client(self.token(sub="Alice",
                                      scope="gemstone:write"))
        self.assertEqual(seen["status"]["structured"]["user"], "Alice")
        self.assertFalse(seen["commit"]["isError"], seen["commit"])

    def test_modernSessionIsTheTokensUser(self):
        """
        The SDK client negotiating 2026-07-28 over HTTPS: the session
        open_session logs in, and status run through its handle, are the
        token's GemStone user; the read scope's tools only.
        """
        seen = self.client(self.token(sub="Alice", scope="gemstone:read"),
                           "auto")
        self.assertEqual(seen["protocolVersion"], "2026-07-28")
        self.assertEqual(seen["status"]["structured"]["user"], "Alice")
        self.assertFalse(seen["close"]["isError"], seen["close"])
        self.assertIn("open_session", seen["tools"])
        self.assertNotIn("execute_code", seen["tools"])

    def test_readOnlyUserCannotCommit(self):
        seen = self.client(self.token(sub="McpReadOnly",
                                      scope="gemstone:write"))
        self.assertEqual(seen["status"]["structured"]["user"], "McpReadOnly")
        self.assertFalse(seen["change"]["isError"])
        self.assertTrue(seen["commit"]["isError"])
        self.assertIn("2249", json.dumps(seen["commit"]))

    def test_readScopeSeesNoMutationTool(self):
        seen = self.client(self.token(sub="Alice", scope="gemstone:read"))
        self.assertIn("get_method_source", seen["tools"])
        for absent in ("compile_method", "delete_class", "execute_code",
                       "run_test_class"):
            self.assertNotIn(absent, seen["tools"])
        self.assertIsNone(seen["change"])

    def test_refusals(self):
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25"}}
        status, headers, _ = self.https("POST", body=initialize)
        self.assertEqual(status, 401)
        self.assertIn("resource_metadata=", headers["WWW-Authenticate"])
        for bad in ("garbage", self.token(exp=1), self.token(
                aud="https://elsewhere/mcp")):
            status, headers, _ = self.https("POST", token=bad,
                                            body=initialize)
            self.assertEqual(status, 401)
            self.assertIn('error="invalid_token"',
                          headers["WWW-Authenticate"])
        status, _, body = self.https(
            "GET", "/.well-known/oauth-protected-resource/mcp")
        self.assertEqual((status, json.loads(body)["resource"]),
                         (200, self.audience))

    def test_anotherIdentitysSessionIsNotFound(self):
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25"}}
        status, headers, _ = self.https(
            "POST", token=self.token(sub="Alice"), body=initialize)
        self.assertEqual(status, 200)
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        session = headers["Mcp-Session-Id"]
        self.assertEqual(self.https("POST", token=self.token(sub="Alice"),
                                    body=ping, session=session)[0], 200)
        self.assertEqual(self.https(
            "POST", token=self.token(sub="McpReadOnly"), body=ping,
            session=session)[0], 404)
        self.assertIn("belongs to", self.daemon.log())

    def test_plaintextToTheTlsPortGetsNoMcpAnswer(self):
        connection = http.client.HTTPConnection("localhost",
                                                self.daemon.port, timeout=10)
        try:
            connection.request("POST", "/mcp", json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                {"content-type": "application/json"})
            answer = connection.getresponse().read()
        except (OSError, http.client.HTTPException):
            answer = b""
        finally:
            connection.close()
        self.assertNotIn(b"jsonrpc", answer)

    def test_noSecretsInTheLog(self):
        token = self.token(sub="Alice", scope="gemstone:read")
        self.client(token)
        self.https("POST", token=token + "x", body={
            "jsonrpc": "2.0", "id": 1, "method": "ping"})
        log = self.daemon.log()
        self.assertNotIn(token.split(".")[2], log)
        self.assertNotIn("swordfish", log)


class ReadOnlyDaemonTests(TlsDaemonTestCase):
    arguments = ("--read-only",)

    def test_nothingCommits(self):
        seen = self.client(self.token(sub="Alice", scope="gemstone:write"))
        self.assertNotIn("compile_method", seen["tools"])
        self.assertFalse(seen["change"]["isError"])
        self.assertTrue(seen["commit"]["isError"])
        self.assertIn("--read-only", seen["commit"]["text"][0])


class UnsafeStartTests(SynchronousTestCase):
    def test_unauthenticatedOnEveryInterfaceRefused(self):
        directory = self.mktemp()
        os.makedirs(directory)
        finished = subprocess.run(
            [sys.executable, "-c", *TWISTD, "--nodaemon", "--pidfile=",
             "gsmcp", "--simulated", "--port",
             f"tcp:{freePort()}:interface=0.0.0.0"],
            capture_output=True, text=True, timeout=60, cwd=directory)
        self.assertNotEqual(finished.returncode, 0)
        lines = finished.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, finished.stderr)
        self.assertIn("--allow-unauthenticated-remote", lines[0])
